import BoardCore
import BoardWire

/// One session's presence on a board: the entry of a `presence` or `presence_state` line, as it came. The wire's
/// own struct, named here so that a UI reaches it through `BoardClient` without importing `BoardWire` (its fields
/// are identifiers of `BoardCore` and ``PresenceActivity``).
public typealias PresenceEntry = ServerMessage.PresenceEntry

/// Why the server refused one of this client's ops: the `reject` line, as it came (board, mut, code, message,
/// `current`, `retry_after_ms`). The wire's own struct, named here for the same reason as ``PresenceEntry``; a
/// rejection the client makes itself from a reducer `Rejection` uses `init(board:mut:rejection:)`.
public typealias OpRejection = ServerMessage.Reject
