import BoardTesting
import BoardCore
import BoardTransport
import BoardWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `kill -9` of the real `corkd` in the middle of a write burst (RELIABILITY.md b5 D1):
/// every acknowledged op survives, seqs have no gap and no duplicate, and a replica rebuilt from a snapshot plus the
/// fetched deltas has the server's board hash.
@Suite(.startsProcesses(within: .minutes(2))) struct ProcessDurabilityTests {
    /// Concurrent writers, each its own user (the rate limit and `connections_per_user` are per user).
    static let writers = 50
    static let cycles = 3
    /// How long the writers write before the kill.
    static let burst: Duration = .milliseconds(1500)

    @Test func killNineMidBurstLosesNoAcknowledgedOpAndReplicasConverge() async throws {
        let began = ContinuousClock.now
        try await withCorkd { corkd in
            let tokens = try await ProcessDurabilityTests.inviteWriters(corkd)
            let start = try await ProcessDurabilityTests.baseline(corkd, members: ProcessDurabilityTests.writers + 1)
            var replica = start.board
            let epoch = start.epoch
            let columns = (todo: replica.columns[0].id.rawValue, doing: replica.columns[1].id.rawValue)
            for cycle in 1...ProcessDurabilityTests.cycles {
                let logs = try await ProcessDurabilityTests.burstAndKill(corkd, tokens: tokens, cycle: cycle, columns: columns)
                if cycle == ProcessDurabilityTests.cycles {
                    try await ProcessDurabilityTests.expectIntegrity(corkd)
                }
                try await corkd.restart()
                replica = try await ProcessDurabilityTests.verify(corkd, replica: replica, epoch: epoch, logs: logs, cycle: cycle)
            }
        }
        print("kill/restart cycles took \(ContinuousClock.now - began)")
    }

    // MARK: Phases

    /// `corkd invite` for every writer (ten at a time), returning their tokens.
    static func inviteWriters(_ corkd: CorkdProcess) async throws -> [String] {
        let data = corkd.dataDirectory.path
        let logs = corkd.logDirectory
        var tokens = [String](repeating: "", count: writers)
        for batch in stride(from: 0, to: writers, by: 10) {
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for writer in batch..<min(batch + 10, writers) {
                    group.addTask {
                        let result = try await SpawnedProcess.run(
                            CorkdProcess.executable,
                            ["invite", "--data-dir", data, "--user", "writer\(writer)", "--role", "editor"],
                            timeout: .seconds(20), logDirectory: logs, name: "invite-\(writer)", unprivileged: true)
                        let text = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
                        guard result.exit.isSuccess, let url = InviteURL(text) else {
                            throw TestFailure("corkd invite writer\(writer): \(result.exit); \(text); \(result.standardError)")
                        }
                        return (writer, url.token)
                    }
                }
                for try await (writer, token) in group { tokens[writer] = token }
            }
        }
        return tokens
    }

    /// The owner's first snapshot, then the invites' `member.set` deltas applied on top until every writer is a member.
    static func baseline(_ corkd: CorkdProcess, members: Int) async throws -> (board: Board, epoch: String) {
        let reader = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken, clientID: "reader-0")
        try await reader.send(#"{"type":"subscribe","board":"main"}"#)
        guard case .snapshot(let snapshot) = try await message(reader) else { throw TestFailure("no snapshot") }
        guard case .subscribed = try await message(reader) else { throw TestFailure("no subscribed") }
        var replica = snapshot.state
        let deadline = ContinuousClock.now + .seconds(15)
        while replica.members.count < members {
            guard ContinuousClock.now < deadline else {
                throw TestFailure("only \(replica.members.count) of \(members) members after 15 s")
            }
            guard case .delta(let delta) = try await message(reader) else { throw TestFailure("expected a delta") }
            try apply(delta, to: &replica)
        }
        await reader.close()
        return (replica, snapshot.epoch)
    }

    /// Starts every writer, lets them write for `burst` after the last one is connected, then `kill -9`s corkd.
    static func burstAndKill(
        _ corkd: CorkdProcess, tokens: [String], cycle: Int, columns: (todo: String, doing: String)
    ) async throws -> [BurstLog] {
        let port = corkd.port
        let fingerprint = try corkd.pinned()
        // A backstop only: the kill ends the writers long before.
        let deadline = ContinuousClock.now + .seconds(20)
        let (reports, ready) = AsyncStream.makeStream(of: String?.self)
        return try await withThrowingTaskGroup(of: BurstLog.self) { group in
            for writer in 0..<writers {
                let token = tokens[writer]
                group.addTask {
                    await BurstWriter.run(
                        writer: writer, cycle: cycle, token: token, port: port, fingerprint: fingerprint, columns: columns,
                        deadline: deadline, ready: ready)
                }
            }
            var failures: [String] = []
            var reported = 0
            for await report in reports {
                if let report { failures.append(report) }
                reported += 1
                if reported == writers { break }
            }
            if failures.isEmpty { try await Task.sleep(for: burst) }
            let exit = try await corkd.kill9()
            #expect(exit.reason == .uncaughtSignal && exit.status == SIGKILL, "\(exit)")
            var logs: [BurstLog] = []
            for try await log in group { logs.append(log) }
            guard failures.isEmpty else { throw TestFailure("cycle \(cycle): \(failures.prefix(5))") }
            return logs.sorted { $0.writer < $1.writer }
        }
    }

    /// `PRAGMA integrity_check` on a copy of the store as the kill left it (the original stays for the restart).
    static func expectIntegrity(_ corkd: CorkdProcess) async throws {
        let copy = corkd.root.appendingPathComponent("integrity")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for suffix in ["", "-wal"] {
            let source = corkd.storeFile.path + suffix
            if FileManager.default.fileExists(atPath: source) {
                try FileManager.default.copyItem(atPath: source, toPath: copy.appendingPathComponent("corkd.sqlite" + suffix).path)
            }
        }
        let result = try await SpawnedProcess.run(
            try SpawnedProcess.tool("sqlite3"), [copy.appendingPathComponent("corkd.sqlite").path, "PRAGMA integrity_check;"],
            timeout: .seconds(30), logDirectory: corkd.logDirectory, name: "integrity-check")
        #expect(result.exit.isSuccess, "sqlite3: \(result.exit); \(result.standardError)")
        #expect(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "integrity_check: \(result.standardOutput.prefix(2000))")
    }

    /// After the restart: the log from the replica's seq to the head, checked against what the writers were told,
    /// applied to the replica, and compared with a fresh snapshot. Returns the replica at the head.
    static func verify(
        _ corkd: CorkdProcess, replica: Board, epoch: String, logs: [BurstLog], cycle: Int
    ) async throws -> Board {
        for log in logs {
            #expect(log.failure == nil, "\(log.failure ?? "")")
            #expect(log.otherRejects.isEmpty, "writer \(log.writer) got rejects: \(log.otherRejects.prefix(5))")
            let seqs = log.acks.filter { !$0.noop }.map(\.seq)
            #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "writer \(log.writer)'s acks go backwards: \(seqs)")
        }
        let acked = logs.reduce(0) { $0 + $1.acks.count }
        let cut = logs.filter(\.inFlightAtClose).count
        #expect(acked > 0, "cycle \(cycle): no op was acknowledged before the kill")
        #expect(cut > 0, "cycle \(cycle): no op was in flight at the kill, so it was not mid-burst")

        let reader = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken, clientID: "reader-\(cycle)")
        try await reader.send(#"{"type":"subscribe","req":"r","board":"main"}"#)
        guard case .snapshot(let snapshot) = try await message(reader) else { throw TestFailure("no snapshot after restart") }
        guard case .subscribed(let subscribed) = try await message(reader) else { throw TestFailure("no subscribed") }
        #expect(snapshot.epoch == epoch, "a crash is not a restore: the epoch changed from \(epoch) to \(snapshot.epoch)")
        #expect(subscribed.seq == snapshot.seq)
        let head = snapshot.seq
        #expect(head >= replica.seq, "seq went backwards: \(replica.seq) before the kill, \(head) after")
        let highestAck = logs.flatMap(\.acks).map(\.seq).max() ?? 0
        #expect(head >= highestAck, "an op was acknowledged at seq \(highestAck) but the board restarted at \(head)")

        // Every delta after the replica's seq, in chunks of at most fetch_max.
        var deltas: [ServerMessage.Delta] = []
        var from = replica.seq + 1
        var request = 0
        while from <= head {
            let to = min(head, from + 999)
            request += 1
            try await reader.send(#"{"type":"fetch","req":\#(request),"board":"main","from":\#(from),"to":\#(to)}"#)
            fetching: while true {
                switch try await message(reader) {
                case .delta(let delta): deltas.append(delta)
                case .ok: break fetching
                case let other: throw TestFailure("fetch \(from)...\(to) answered \(other.type) (the log lost deltas?)")
                }
            }
            from = to + 1
        }
        await reader.close()

        // No gap, no duplicate, nothing out of order.
        let expected = Array(stride(from: replica.seq + 1, through: head, by: 1))
        #expect(deltas.map(\.seq) == expected, "the seqs after restart are not \(replica.seq + 1)...\(head)")
        let bySeq = Dictionary(deltas.map { ($0.seq, $0) }, uniquingKeysWith: { first, _ in first })
        var applied: [String: [UInt64]] = [:]
        for delta in deltas {
            if let client = delta.clientID?.rawValue, let mut = delta.mut { applied[client, default: []].append(mut) }
        }
        let doubled = applied.filter { Set($0.value).count != $0.value.count }
        #expect(doubled.isEmpty, "an op was applied twice: \(doubled.prefix(3))")

        // Every acknowledged op is there, at the seq its ack named; nothing else of the writer's is, except the op
        // that was in flight when the server died (applied, but its ack never left).
        var missing: [String] = []
        var unacked = 0
        for log in logs {
            for ack in log.acks where !ack.noop {
                let delta = bySeq[ack.seq]
                if delta?.clientID?.rawValue != log.clientID || delta?.mut != ack.mut || delta?.op.kind != ack.kind {
                    let found = delta.map { "\($0.clientID?.rawValue ?? "-") mut \($0.mut ?? 0) \($0.op.kind)" } ?? "nothing"
                    missing.append("\(log.clientID) mut \(ack.mut) \(ack.kind) acked at seq \(ack.seq), found \(found)")
                }
            }
            let ackedMuts = Set(log.acks.filter { !$0.noop }.map(\.mut))
            let extra = Set(applied[log.clientID] ?? []).subtracting(ackedMuts)
            unacked += extra.count
            let allowed: Set<UInt64> = log.inFlightAtClose ? [log.lastSent] : []
            #expect(extra.isSubset(of: allowed), "\(log.clientID): applied but never acknowledged or in flight: \(extra.sorted())")
        }
        #expect(missing.isEmpty, "cycle \(cycle): \(missing.count) acknowledged ops are missing: \(missing.prefix(10))")
        let cards = Set(snapshot.state.cards.keys.map(\.rawValue))
        let lostCards = logs.flatMap { $0.acks.compactMap(\.addedCard) }.filter { !cards.contains($0) }
        #expect(lostCards.isEmpty, "acknowledged cards missing from the snapshot: \(lostCards.prefix(10))")

        // A replica that applies the deltas with the pure reducer arrives at the server's board.
        var rebuilt = replica
        for delta in deltas { try apply(delta, to: &rebuilt) }
        #expect(rebuilt.seq == head)
        #expect(rebuilt.contentHash == snapshot.state.contentHash, "cycle \(cycle): the replica diverged from the server")

        let limited = logs.reduce(0) { $0 + $1.rateLimited }
        print(
            "kill -9 cycle \(cycle): \(acked) acked, \(limited) rate-limited, \(cut) writers cut mid-op, "
                + "\(unacked) applied without ack, seq \(replica.seq) → \(head), \(deltas.count) deltas checked")
        return snapshot.state
    }

    // MARK: Helpers

    /// The next line as a typed message, skipping presence and heartbeat pings.
    static func message(_ probe: WireProbe) async throws -> ServerMessage {
        while true {
            guard let line = try await probe.next() else { throw TestFailure("the connection closed") }
            let message = try LineCoder().decodeServer(Array(line.utf8))
            switch message {
            case .ping, .presence, .presenceState, .presenceLeft: continue
            default: return message
            }
        }
    }

    /// Applies a delta as a replica does: the pure reducer, with the delta's actor, time and seq, as `owner`.
    static func apply(_ delta: ServerMessage.Delta, to replica: inout Board) throws {
        guard delta.seq == replica.seq + 1 else {
            throw TestFailure("delta \(delta.seq) does not follow the replica's seq \(replica.seq)")
        }
        let context = ApplyContext(actor: delta.actor, role: .owner, now: delta.at, seq: delta.seq)
        switch replica.apply(delta.op, context: context) {
        case .success(let result):
            if result.isNoop { throw TestFailure("delta \(delta.seq) (\(delta.op.kind)) is a no-op on the replica") }
        case .failure(let rejection):
            throw TestFailure("the replica rejects delta \(delta.seq) (\(delta.op.kind)): \(rejection)")
        }
    }
}
