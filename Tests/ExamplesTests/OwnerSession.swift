import BoardTesting
import Foundation

/// The board owner at a keyboard: a raw `WireProbe` session on `main` that adds cards, chats, and watches for the
/// bot's answers. Every wait is bounded by the probe's timeout and by an overall deadline.
final class OwnerSession {
    let probe: WireProbe
    /// The owner's user id, from `welcome`.
    private(set) var user = ""
    private var mut = 0

    private init(probe: WireProbe) { self.probe = probe }

    /// Connects with the owner's token, says hello and subscribes to `main`.
    static func open(_ corkd: CorkdProcess) async throws -> OwnerSession {
        let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned(), timeout: .seconds(15))
        let owner = OwnerSession(probe: probe)
        do {
            try await probe.send(#"{"type":"hello","version":1,"client":"examples-test","token":"\#(corkd.ownerToken)"}"#)
            owner.user = try await probe.expect(type: "welcome")["user"] as? String ?? ""
            try await probe.send(#"{"type":"subscribe","req":1,"board":"main"}"#)
            _ = try await probe.expect(type: "snapshot")
            _ = try await probe.expect(type: "subscribed")
        } catch {
            await probe.close()
            throw error
        }
        return owner
    }

    /// Sends one op (the JSON of its `op` object) and waits for its ack and its delta.
    func apply(_ op: String) async throws {
        mut += 1
        try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":\#(op)}"#)
        // Deltas of other changes (a `corkd invite` applied meanwhile) may come first.
        let ack = try await probe.expect(type: "ack", skipping: ["presence", "presence.state", "presence.left", "ping", "delta"])
        guard ack["mut"] as? Int == mut else { throw TestFailure("ack for another op: \(ack)") }
        _ = try await probe.expect(type: "delta")
    }

    /// Posts a chat line (its ack and delta arrive later, among the bot's lines).
    func chat(_ text: String) async throws {
        mut += 1
        let encoded = String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
        try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":\#(encoded)}}"#)
    }

    /// The text of the next chat delta whose actor is `user`, skipping every other line (answering pings).
    func nextChat(from user: String, within limit: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            guard let message = try await probe.nextObject() else {
                throw TestFailure("the owner's connection closed while waiting for a chat line from \(user)")
            }
            switch message["type"] as? String {
            case "ping":
                try await probe.send(#"{"type":"pong"}"#)
            case "reject", "error":
                throw TestFailure("the owner's session got \(message)")
            case "delta":
                let op = message["op"] as? [String: Any]
                if message["actor"] as? String == user, op?["kind"] as? String == "chat", let text = op?["text"] as? String {
                    return text
                }
            default:
                continue
            }
        }
        throw TestFailure("no chat line from \(user) within \(limit)")
    }

    /// Says bye and closes.
    func close() async {
        try? await probe.send(#"{"type":"bye","reason":"client"}"#)
        await probe.close()
    }
}
