// The pure client core (session machine, replica, pending ops, journal model, events) is part of this library's
// API: a UI imports `BoardClient` and `BoardCore` only.
@_exported import BoardClientCore
import BoardWire

// The few wire-level values a UI names (identifiers, codes, limits, invite URLs), re-exported one by one so that it
// need not import `BoardWire` (and never sees its envelopes).
@_exported import struct BoardWire.InviteURL
@_exported import struct BoardWire.WireLimits
@_exported import struct BoardWire.WireError
@_exported import enum BoardWire.ErrorCode
@_exported import enum BoardWire.RejectCode
@_exported import enum BoardWire.PresenceActivity
@_exported import enum BoardWire.OpRequest
@_exported import typealias BoardWire.SessionID

/// The longest note `setPresence` sends with `away` (Protocol.md, "presence": `away_note`), in characters.
public let awayNoteMaxCharacters = ClientMessage.Presence.awayNoteMaxCharacters

/// The `welcome` of the current connection: user, client id, limits, heartbeat.
public typealias Welcome = ServerMessage.Welcome
/// One board this user is a member of (``BoardClient/boards(timeout:)``).
public typealias BoardSummary = ServerMessage.BoardSummary
/// One page of activity (``BoardClient/history(card:before:limit:timeout:)``).
public typealias HistoryPage = ServerMessage.HistoryPage
/// One webhook of a board (``BoardClient/hooks(board:timeout:)``).
public typealias HookInfo = ServerMessage.HookEntry
