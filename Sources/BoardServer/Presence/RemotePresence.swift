import BoardCore
import BoardWire

/// Who is present on which board through the other nodes, merged from their ``PresenceRelayMessage``s: a pure state
/// machine (STYLE.md 3) that returns what the boards of this node must show. Time is an input.
///
/// A node's entries last while it is heard from: each sends a `beat` every heartbeat, and a node not heard for `ttlMs`
/// (killed, cut off from the database) is forgotten with all its sessions. A node that starts again under the same
/// name (host and port) replaces its former self at once. A full announcement (`begin`, `set`s, `end`) replaces what
/// the sender had, which is how a node that missed messages (its `LISTEN` dropped) gets back in step.
struct RemotePresence: Sendable {
    /// What a board of this node must do.
    enum Action: Equatable, Sendable {
        /// Show `entry` on `board` (a join or a change).
        case set(BoardID, ServerMessage.PresenceEntry)
        /// The session left `board`.
        case left(BoardID, SessionID, UserID)
        /// Announce this node's own presence again (`ask` to every node, or to this one).
        case announce
        /// Ask the node with this id to announce its presence (heard from it without knowing its sessions).
        case ask(String)
        /// Tell `user`'s sessions here that these inbox entries were read on another node.
        case inboxRead(UserID, [Int64], unread: Int)
    }

    /// Where a session is present.
    struct Key: Hashable, Sendable {
        var board: BoardID
        var session: SessionID
    }

    /// One other node.
    struct Node: Sendable {
        var name: String?
        var lastHeardMs: Int64
        var entries: [Key: ServerMessage.PresenceEntry] = [:]
        /// During a full announcement: the entries it repeated so far.
        var announced: Set<Key>?
    }

    /// This node's id (its own messages are ignored).
    let me: String
    /// How long a silent node's entries last.
    let ttlMs: Int64
    /// The other nodes heard from, by id.
    private(set) var nodes: [String: Node] = [:]

    /// Makes an empty merge.
    init(me: String, ttlMs: Int64) {
        self.me = me
        self.ttlMs = ttlMs
    }

    /// The entries shown for `board`, by session.
    func entries(on board: BoardID) -> [SessionID: ServerMessage.PresenceEntry] {
        var found: [SessionID: ServerMessage.PresenceEntry] = [:]
        for node in nodes.values {
            for (key, entry) in node.entries where key.board == board { found[key.session] = entry }
        }
        return found
    }

    /// Merges one message heard at `nowMs`.
    mutating func receive(_ message: PresenceRelayMessage, nowMs: Int64) -> [Action] {
        guard message.node != me else { return [] }
        var actions: [Action] = []
        let isNew = nodes[message.node] == nil
        var node = nodes[message.node] ?? Node(lastHeardMs: nowMs)
        node.lastHeardMs = nowMs
        // Heard from a node without its full announcement (we started after it, or forgot it): ask for one.
        if isNew, !message.events.contains(.begin) { actions.append(.ask(message.node)) }
        for event in message.events {
            switch event {
            case .beat(let name):
                node.name = name
            case .hello(let name):
                node.name = name
                actions += forgetNodes(named: name, except: message.node)
            case .ask(let to):
                if to == nil || to == me { actions.append(.announce) }
            case .begin:
                node.announced = []
            case .end:
                if let announced = node.announced {
                    var gone = node
                    gone.entries = node.entries.filter { !announced.contains($0.key) }
                    for key in gone.entries.keys { node.entries[key] = nil }
                    actions += Self.leaves(gone)
                }
                node.announced = nil
            case .set(let board, let entry):
                let key = Key(board: board, session: entry.session)
                node.announced?.insert(key)
                if node.entries[key] != entry {
                    node.entries[key] = entry
                    actions.append(.set(board, entry))
                }
            case .left(let board, let session, let user):
                let key = Key(board: board, session: session)
                node.announced?.remove(key)
                if node.entries.removeValue(forKey: key) != nil { actions.append(.left(board, session, user)) }
            case .bye:
                actions += Self.leaves(node)
                node.entries = [:]
                node.announced = nil
            case .inboxRead(let user, let ids, let unread):
                actions.append(.inboxRead(user, ids, unread: unread))
            }
        }
        nodes[message.node] = node
        return actions
    }

    /// Forgets every node not heard from for `ttlMs`: its sessions leave.
    mutating func expire(nowMs: Int64) -> [Action] {
        var actions: [Action] = []
        for (id, node) in nodes where nowMs - node.lastHeardMs > ttlMs {
            actions += Self.leaves(node)
            nodes[id] = nil
        }
        return actions
    }

    /// Forgets the other nodes called `name` (a node that restarted under the same host and port).
    private mutating func forgetNodes(named name: String, except id: String) -> [Action] {
        var actions: [Action] = []
        for (other, node) in nodes where other != id && node.name == name {
            actions += Self.leaves(node)
            nodes[other] = nil
        }
        return actions
    }

    /// A `left` for each of the node's entries, in board and session order.
    private static func leaves(_ node: Node) -> [Action] {
        node.entries.sorted { ($0.key.board, $0.key.session) < ($1.key.board, $1.key.session) }
            .map { .left($0.key.board, $0.key.session, $0.value.user) }
    }
}
