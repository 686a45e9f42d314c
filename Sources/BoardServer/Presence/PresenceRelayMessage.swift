import BoardCore
import BoardWire
import Foundation

/// What one node tells the others about presence, through the shared store's presence channel
/// (``PresenceBus``): the node that sent it and what happened there, in order.
///
/// Only the nodes read this; clients never see it (they get the same `presence` lines as for a session of their own
/// node). One message is one `NOTIFY` payload, packed by ``PresenceRelayMessage/pack(node:events:maxBytes:)`` to at
/// most the bus's payload limit.
struct PresenceRelayMessage: Codable, Equatable, Sendable {
    /// The sending node's id: random, new at every start of the process.
    var node: String
    /// What happened on that node, oldest first.
    var events: [PresenceRelayEvent]

    /// Packs `events` into as few payloads as fit `maxBytes` each, keeping their order; an event that does not fit
    /// alone is left out (no entry comes near: ids are at most `id_max` characters).
    static func pack(node: String, events: [PresenceRelayEvent], maxBytes: Int) -> [String] {
        // The wire's own writer; the envelope is written by hand so that each event is encoded once, whatever
        // payload it ends up in.
        let encoder = CompactJSONEncoder()
        guard let quoted = try? encoder.encode(node) else { return [] }
        let nodeJSON = String(decoding: quoted, as: UTF8.self)
        let prefix = #"{"node":"# + nodeJSON + #","events":["#
        var payloads: [String] = []
        var current: [String] = []
        var size = prefix.utf8.count + 2
        for event in events {
            guard let bytes = try? encoder.encode(event) else { continue }
            let json = String(decoding: bytes, as: UTF8.self)
            let added = json.utf8.count + (current.isEmpty ? 0 : 1)
            if size + added > maxBytes, !current.isEmpty {
                payloads.append(prefix + current.joined(separator: ",") + "]}")
                current = []
                size = prefix.utf8.count + 2
            }
            guard size + json.utf8.count <= maxBytes else { continue }
            size += json.utf8.count + (current.isEmpty ? 0 : 1)
            current.append(json)
        }
        if !current.isEmpty { payloads.append(prefix + current.joined(separator: ",") + "]}") }
        return payloads
    }

    /// Reads a payload; nil for anything that is not a message of this shape.
    static func parse(_ payload: String) -> PresenceRelayMessage? {
        try? JSONDecoder().decode(PresenceRelayMessage.self, from: Data(payload.utf8))
    }
}

/// One thing a node tells the others about presence.
enum PresenceRelayEvent: Codable, Hashable, Sendable {
    /// The node is alive (sent every `presenceHeartbeat`, and first when it starts listening); `name` is the host and
    /// port it serves on, stable across restarts, so a restarted node's old entries go at once.
    case beat(name: String)
    /// The node started (sent once per process, when it first listens): the other nodes forget any node of the same
    /// `name`, its former self, at once.
    case hello(name: String)
    /// "Announce your presence again": to every node (nil) or to the one with this id.
    case ask(to: String?)
    /// A full announcement of the sender's presence starts: what it does not repeat before `end` is gone.
    case begin
    /// The sender's full announcement is complete.
    case end
    /// A session of the sender is present on `board` as `entry` (joined, or changed what it is doing).
    case set(board: BoardID, entry: ServerMessage.PresenceEntry)
    /// A session of the sender left `board`.
    case left(board: BoardID, session: SessionID, user: UserID)
    /// The sender stops (graceful shutdown): all its sessions are gone.
    case bye
    /// A session of the sender marked `user`'s inbox entries `ids` read; `unread` is what is left unread. Every node
    /// tells that user's sessions (`inbox.read`), so an entry read on one client is read on all of them.
    case inboxRead(user: UserID, ids: [Int64], unread: Int)
}
