import BoardTesting
import BoardTransport
import Foundation

/// One acknowledged op as its writer recorded it.
struct AckRecord: Sendable {
    var mut: UInt64
    var seq: UInt64
    var kind: String
    /// The card a `card.add` created.
    var addedCard: String?
    var noop: Bool
}

/// What one writer of a burst saw before the server died under it.
struct BurstLog: Sendable {
    var writer: Int
    var clientID: String
    var acks: [AckRecord] = []
    var rateLimited = 0
    /// Rejects other than `rate_limited` (none are expected): `code mut`.
    var otherRejects: [String] = []
    /// The writer was waiting for the answer to an op when the connection closed.
    var inFlightAtClose = false
    /// The mut of the op sent last (the one in flight when the connection closed, if any).
    var lastSent: UInt64 = 0
    /// A failure before the burst started (connect or hello), or an unexpected line.
    var failure: String?
}

/// A writer of the kill -9 test: one user, one connection, one client id, ops one at a time until the server dies.
///
/// Ops cycle through `card.add` (a new card id per op), `card.move` of that card to DOING, `chat`, and `card.edit` of
/// its title, so the replica check exercises ranks and card fields, not only seqs. Rate-limit rejects are honoured
/// (`retry_after_ms`). It never throws: what it saw is its result.
enum BurstWriter {
    /// Reports, once per writer, whether it is connected and writing (nil) or could not start (the failure).
    typealias Ready = AsyncStream<String?>.Continuation

    static func run(
        writer: Int, cycle: Int, token: String, port: Int, fingerprint: Fingerprint, columns: (todo: String, doing: String),
        deadline: ContinuousClock.Instant, ready: Ready
    ) async -> BurstLog {
        var log = BurstLog(writer: writer, clientID: "w\(writer)-cycle\(cycle)")
        // Fifty writers connect at once while the rest of the suite loads both cores: a writer whose hello waited
        // past corkd's 5 s auth timeout for a thread of this process was closed before the burst (`I/O on closed
        // channel`). Nothing is written before welcome, so starting again is safe; three tries, then it fails.
        var attempts: [String] = []
        var connected: WireProbe?
        while connected == nil, attempts.count < 3 {
            do {
                let probe = try await WireProbe.connect(port: port, fingerprint: fingerprint, timeout: .seconds(30))
                try await probe.send(
                    #"{"type":"hello","version":1,"client":"burst","token":"\#(token)","client_id":"\#(log.clientID)"}"#)
                _ = try await probe.expect(type: "welcome")
                connected = probe
            } catch {
                attempts.append("\(error)")
            }
        }
        guard let probe = connected else {
            log.failure = "writer \(writer) could not start: \(attempts)"
            ready.yield(log.failure)
            return log
        }
        ready.yield(nil)
        defer { probe.channel.channel.close(promise: nil) }
        var lastCard: String?
        var mut: UInt64 = 0
        while ContinuousClock.now < deadline {
            mut += 1
            let (op, kind, added) = nextOp(mut: mut, writer: writer, cycle: cycle, lastCard: lastCard, columns: columns)
            log.lastSent = mut
            do {
                try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":\#(op)}"#)
            } catch {
                log.inFlightAtClose = true  // perhaps written before the error: it may have been applied
                return log
            }
            let reply: [String: Any]?
            do {
                reply = try await answer(to: mut, on: probe)
            } catch {
                log.inFlightAtClose = true
                return log
            }
            guard let reply else {
                log.inFlightAtClose = true
                return log
            }
            let type = reply["type"] as? String
            if type == "ack" || type == "reject", (reply["mut"] as? NSNumber)?.uint64Value != mut {
                log.failure = "writer \(writer): an answer for another mut while waiting for \(mut): \(reply)"
                return log
            }
            switch reply["type"] as? String {
            case "ack":
                let seq = (reply["seq"] as? NSNumber)?.uint64Value ?? 0
                let noop = reply["noop"] as? Bool ?? false
                log.acks.append(AckRecord(mut: mut, seq: seq, kind: kind, addedCard: added, noop: noop))
                if let added { lastCard = added }
            case "reject" where reply["code"] as? String == "rate_limited":
                log.rateLimited += 1
                let wait = min(max((reply["retry_after_ms"] as? Int) ?? 50, 5), 500)
                try? await Task.sleep(for: .milliseconds(wait))
            case "reject":
                log.otherRejects.append("\(reply["code"] as? String ?? "?") mut \(mut)")
            default:
                log.failure = "writer \(writer): unexpected answer to mut \(mut): \(reply)"
                return log
            }
        }
        return log
    }

    /// The op for `mut`, its kind, and the card it adds (if it is a `card.add`).
    static func nextOp(
        mut: UInt64, writer: Int, cycle: Int, lastCard: String?, columns: (todo: String, doing: String)
    ) -> (json: String, kind: String, added: String?) {
        switch (mut % 4, lastCard) {
        case (1, _):
            let card = "k\(cycle)-w\(writer)-m\(mut)"
            return (#"{"kind":"card.add","card":"\#(card)","column":"\#(columns.todo)","title":"card \#(card)"}"#, "card.add", card)
        case (2, let card?):
            return (#"{"kind":"card.move","card":"\#(card)","to_column":"\#(columns.doing)","index":0}"#, "card.move", nil)
        case (0, let card?):
            return (#"{"kind":"card.edit","card":"\#(card)","title":"edited by w\#(writer) at \#(mut)"}"#, "card.edit", nil)
        default:
            return (#"{"kind":"chat","text":"w\#(writer) says \#(mut) in cycle \#(cycle)"}"#, "chat", nil)
        }
    }

    /// The next line that is not a heartbeat ping (the answer to `mut`), or nil when the connection closed.
    static func answer(to mut: UInt64, on probe: WireProbe) async throws -> [String: Any]? {
        while true {
            guard let object = try await probe.nextObject() else { return nil }
            if object["type"] as? String != "ping" { return object }
        }
    }
}
