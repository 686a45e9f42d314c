/// Every line a client sends: one case per message `type` (Protocol.md, "Messages").
///
/// Codable as a flat JSON object: `type` names the case, the payload's fields sit beside it.
public enum ClientMessage: Hashable, Sendable {
    /// `hello`: authenticate and agree on a version; answered by `welcome` or `error`.
    case hello(Hello)
    /// `boards`: list the boards the user is a member of; answered by `boards`.
    case listBoards(ListBoards)
    /// `board.create`: create a board the user owns; answered by `ok`.
    case createBoard(CreateBoard)
    /// `board.archive`: the board's owner archives it; answered by `ok` once it is archived.
    case archiveBoard(ArchiveBoard)
    /// `subscribe`: receive a board's deltas and presence; answered by deltas or a snapshot, then `subscribed`.
    case subscribe(Subscribe)
    /// `unsubscribe`: stop receiving a board; answered by `ok`.
    case unsubscribe(Unsubscribe)
    /// `op`: change a board; answered by `ack` or `reject`.
    case op(Mutation)
    /// `fetch`: resend a range of deltas; answered by the deltas (or a snapshot), then `ok`.
    case fetch(Fetch)
    /// `presence`: say what the user is doing on a board; not answered.
    case presence(Presence)
    /// `history`: page backwards through a board's or card's activity; answered by `history`.
    case history(History)
    /// `ping`: check the connection; answered by `pong`.
    case ping(Heartbeat)
    /// `pong`: the answer to the server's `ping`.
    case pong(Heartbeat)
    /// `bye`: the client is closing the connection.
    case bye(Bye)
    /// `hook.add`: the board's owner adds a webhook; answered by `ok` (feature `hooks`).
    case addHook(AddHook)
    /// `hook.list`: the board's webhooks; answered by `hooks` (feature `hooks`).
    case listHooks(ListHooks)
    /// `hook.remove`: the board's owner removes a webhook; answered by `ok` (feature `hooks`).
    case removeHook(HookRequest)
    /// `hook.test`: the board's owner has a test delivery sent now; answered by `ok` (feature `hooks`).
    case testHook(HookRequest)
    /// `inbox`: the user's inbox; answered by `inbox` (feature `inbox`).
    case inbox(InboxRequest)
    /// `inbox.read`: mark inbox entries read; answered by `ok` (feature `inbox`).
    case readInbox(InboxRead)
    /// `notify`: the user's mail settings; answered by `notify` (feature `inbox`).
    case notify(NotifyRequest)

    /// Every message type a client sends, as written in `type`.
    public static let allTypes: [String] = [
        "hello", "boards", "board.create", "board.archive", "subscribe", "unsubscribe", "op", "fetch", "presence", "history", "ping",
        "pong", "bye", "hook.add", "hook.list", "hook.remove", "hook.test", "inbox", "inbox.read", "notify",
    ]

    /// The message's `type` on the wire.
    public var type: String {
        switch self {
        case .hello: "hello"
        case .listBoards: "boards"
        case .createBoard: "board.create"
        case .archiveBoard: "board.archive"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .op: "op"
        case .fetch: "fetch"
        case .presence: "presence"
        case .history: "history"
        case .ping: "ping"
        case .pong: "pong"
        case .bye: "bye"
        case .addHook: "hook.add"
        case .listHooks: "hook.list"
        case .removeHook: "hook.remove"
        case .testHook: "hook.test"
        case .inbox: "inbox"
        case .readInbox: "inbox.read"
        case .notify: "notify"
        }
    }

    /// The request id the reply must echo, if the message carries one.
    public var req: RequestID? {
        switch self {
        case .hello(let m): m.req
        case .listBoards(let m): m.req
        case .createBoard(let m): m.req
        case .archiveBoard(let m): m.req
        case .subscribe(let m): m.req
        case .unsubscribe(let m): m.req
        case .fetch(let m): m.req
        case .history(let m): m.req
        case .ping(let m), .pong(let m): m.req
        case .addHook(let m): m.req
        case .listHooks(let m): m.req
        case .removeHook(let m), .testHook(let m): m.req
        case .inbox(let m): m.req
        case .readInbox(let m): m.req
        case .notify(let m): m.req
        case .op, .presence, .bye: nil
        }
    }

    /// Whether the message is allowed before `welcome` (anything else then gets `unauthenticated`).
    public var isAllowedBeforeWelcome: Bool { ClientMessage.allowedBeforeWelcome.contains(type) }

    /// The message types allowed before `welcome`: `hello`, `ping`, `pong` and `bye`.
    public static let allowedBeforeWelcome: Set<String> = ["hello", "ping", "pong", "bye"]
}

extension ClientMessage: Codable {
    /// Decodes by `type`; an unknown type throws `MessageTypeError`.
    public init(from decoder: any Decoder) throws {
        let type = try MessageTypeError.decodeType(from: decoder)
        switch type {
        case "hello": self = .hello(try Hello(from: decoder))
        case "boards": self = .listBoards(try ListBoards(from: decoder))
        case "board.create": self = .createBoard(try CreateBoard(from: decoder))
        case "board.archive": self = .archiveBoard(try ArchiveBoard(from: decoder))
        case "subscribe": self = .subscribe(try Subscribe(from: decoder))
        case "unsubscribe": self = .unsubscribe(try Unsubscribe(from: decoder))
        case "op": self = .op(try Mutation(from: decoder))
        case "fetch": self = .fetch(try Fetch(from: decoder))
        case "presence": self = .presence(try Presence(from: decoder))
        case "history": self = .history(try History(from: decoder))
        case "ping": self = .ping(try Heartbeat(from: decoder))
        case "pong": self = .pong(try Heartbeat(from: decoder))
        case "bye": self = .bye(try Bye(from: decoder))
        case "hook.add": self = .addHook(try AddHook(from: decoder))
        case "hook.list": self = .listHooks(try ListHooks(from: decoder))
        case "hook.remove": self = .removeHook(try HookRequest(from: decoder))
        case "hook.test": self = .testHook(try HookRequest(from: decoder))
        case "inbox": self = .inbox(try InboxRequest(from: decoder))
        case "inbox.read": self = .readInbox(try InboxRead(from: decoder))
        case "notify": self = .notify(try NotifyRequest(from: decoder))
        default: throw MessageTypeError(type: type)
        }
    }

    /// Encodes `type` and the payload's fields in one flat object.
    public func encode(to encoder: any Encoder) throws {
        try MessageTypeError.encodeType(type, to: encoder)
        switch self {
        case .hello(let m): try m.encode(to: encoder)
        case .listBoards(let m): try m.encode(to: encoder)
        case .createBoard(let m): try m.encode(to: encoder)
        case .archiveBoard(let m): try m.encode(to: encoder)
        case .subscribe(let m): try m.encode(to: encoder)
        case .unsubscribe(let m): try m.encode(to: encoder)
        case .op(let m): try m.encode(to: encoder)
        case .fetch(let m): try m.encode(to: encoder)
        case .presence(let m): try m.encode(to: encoder)
        case .history(let m): try m.encode(to: encoder)
        case .ping(let m), .pong(let m): try m.encode(to: encoder)
        case .bye(let m): try m.encode(to: encoder)
        case .addHook(let m): try m.encode(to: encoder)
        case .listHooks(let m): try m.encode(to: encoder)
        case .removeHook(let m), .testHook(let m): try m.encode(to: encoder)
        case .inbox(let m): try m.encode(to: encoder)
        case .readInbox(let m): try m.encode(to: encoder)
        case .notify(let m): try m.encode(to: encoder)
        }
    }
}
