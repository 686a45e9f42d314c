/// Every line a server sends: one case per message `type` (Protocol.md, "Messages").
///
/// Codable as a flat JSON object: `type` names the case, the payload's fields sit beside it.
public enum ServerMessage: Hashable, Sendable {
    /// `welcome`: the answer to a good `hello`.
    case welcome(Welcome)
    /// `boards`: the boards the user is a member of.
    case boards(BoardList)
    /// `ok`: a request without other output succeeded (`board.create`, `unsubscribe`, the end of `fetch`).
    case ok(Ok)
    /// `snapshot`: a board's whole state at a seq.
    case snapshot(Snapshot)
    /// `subscribed`: the subscription is live; deltas after `seq` follow.
    case subscribed(Subscribed)
    /// `delta`: one committed change, to every subscriber.
    case delta(Delta)
    /// `ack`: the client's op is durable (or changed nothing).
    case ack(Ack)
    /// `reject`: the client's op was refused and nothing changed.
    case reject(Reject)
    /// `presence.state`: everyone present on a board, sent on subscribe.
    case presenceState(PresenceSnapshot)
    /// `presence`: one session's presence changed.
    case presence(Presence)
    /// `presence.left`: a session left the board (unsubscribed, disconnected or timed out).
    case presenceLeft(PresenceLeft)
    /// `history`: a page of activity records.
    case history(HistoryPage)
    /// `ping`: the heartbeat; answer with `pong`.
    case ping(Heartbeat)
    /// `pong`: the answer to the client's `ping`.
    case pong(Heartbeat)
    /// `bye`: the server is about to close the connection.
    case bye(Bye)
    /// `error`: a request failed, or the connection is about to close.
    case error(WireError)
    /// `hooks`: a board's webhooks, the answer to `hook.list` (feature `hooks`).
    case hooks(HookList)
    /// `inbox`: a page of the user's inbox, the answer to `inbox` (feature `inbox`).
    case inbox(InboxPage)
    /// `inbox.entry`: a new entry for the user (feature `inbox`).
    case inboxEntry(InboxNew)
    /// `inbox.read`: entries marked read on one of the user's clients (feature `inbox`).
    case inboxRead(InboxMarked)
    /// `notify`: the user's mail settings, the answer to `notify` (feature `inbox`).
    case notify(NotifyReply)

    /// Every message type a server sends, as written in `type`.
    public static let allTypes: [String] = [
        "welcome", "boards", "ok", "snapshot", "subscribed", "delta", "ack", "reject", "presence.state", "presence",
        "presence.left", "history", "ping", "pong", "bye", "error", "hooks", "inbox", "inbox.entry", "inbox.read", "notify",
    ]

    /// The message's `type` on the wire.
    public var type: String {
        switch self {
        case .welcome: "welcome"
        case .boards: "boards"
        case .ok: "ok"
        case .snapshot: "snapshot"
        case .subscribed: "subscribed"
        case .delta: "delta"
        case .ack: "ack"
        case .reject: "reject"
        case .presenceState: "presence.state"
        case .presence: "presence"
        case .presenceLeft: "presence.left"
        case .history: "history"
        case .ping: "ping"
        case .pong: "pong"
        case .bye: "bye"
        case .error: "error"
        case .hooks: "hooks"
        case .inbox: "inbox"
        case .inboxEntry: "inbox.entry"
        case .inboxRead: "inbox.read"
        case .notify: "notify"
        }
    }

    /// The request id this message answers, if any.
    public var req: RequestID? {
        switch self {
        case .welcome(let m): m.req
        case .boards(let m): m.req
        case .ok(let m): m.req
        case .snapshot(let m): m.req
        case .subscribed(let m): m.req
        case .history(let m): m.req
        case .ping(let m), .pong(let m): m.req
        case .error(let m): m.req
        case .hooks(let m): m.req
        case .inbox(let m): m.req
        case .notify(let m): m.req
        case .inboxEntry, .inboxRead: nil
        case .delta, .ack, .reject, .presenceState, .presence, .presenceLeft, .bye: nil
        }
    }
}

extension ServerMessage: Codable {
    /// Decodes by `type`; an unknown type throws `MessageTypeError`.
    public init(from decoder: any Decoder) throws {
        let type = try MessageTypeError.decodeType(from: decoder)
        switch type {
        case "welcome": self = .welcome(try Welcome(from: decoder))
        case "boards": self = .boards(try BoardList(from: decoder))
        case "ok": self = .ok(try Ok(from: decoder))
        case "snapshot": self = .snapshot(try Snapshot(from: decoder))
        case "subscribed": self = .subscribed(try Subscribed(from: decoder))
        case "delta": self = .delta(try Delta(from: decoder))
        case "ack": self = .ack(try Ack(from: decoder))
        case "reject": self = .reject(try Reject(from: decoder))
        case "presence.state": self = .presenceState(try PresenceSnapshot(from: decoder))
        case "presence": self = .presence(try Presence(from: decoder))
        case "presence.left": self = .presenceLeft(try PresenceLeft(from: decoder))
        case "history": self = .history(try HistoryPage(from: decoder))
        case "ping": self = .ping(try Heartbeat(from: decoder))
        case "pong": self = .pong(try Heartbeat(from: decoder))
        case "bye": self = .bye(try Bye(from: decoder))
        case "error": self = .error(try WireError(from: decoder))
        case "hooks": self = .hooks(try HookList(from: decoder))
        case "inbox": self = .inbox(try InboxPage(from: decoder))
        case "inbox.entry": self = .inboxEntry(try InboxNew(from: decoder))
        case "inbox.read": self = .inboxRead(try InboxMarked(from: decoder))
        case "notify": self = .notify(try NotifyReply(from: decoder))
        default: throw MessageTypeError(type: type)
        }
    }

    /// Encodes `type` and the payload's fields in one flat object.
    public func encode(to encoder: any Encoder) throws {
        try MessageTypeError.encodeType(type, to: encoder)
        switch self {
        case .welcome(let m): try m.encode(to: encoder)
        case .boards(let m): try m.encode(to: encoder)
        case .ok(let m): try m.encode(to: encoder)
        case .snapshot(let m): try m.encode(to: encoder)
        case .subscribed(let m): try m.encode(to: encoder)
        case .delta(let m): try m.encode(to: encoder)
        case .ack(let m): try m.encode(to: encoder)
        case .reject(let m): try m.encode(to: encoder)
        case .presenceState(let m): try m.encode(to: encoder)
        case .presence(let m): try m.encode(to: encoder)
        case .presenceLeft(let m): try m.encode(to: encoder)
        case .history(let m): try m.encode(to: encoder)
        case .ping(let m), .pong(let m): try m.encode(to: encoder)
        case .bye(let m): try m.encode(to: encoder)
        case .error(let m): try m.encode(to: encoder)
        case .hooks(let m): try m.encode(to: encoder)
        case .inbox(let m): try m.encode(to: encoder)
        case .inboxEntry(let m): try m.encode(to: encoder)
        case .inboxRead(let m): try m.encode(to: encoder)
        case .notify(let m): try m.encode(to: encoder)
        }
    }
}
