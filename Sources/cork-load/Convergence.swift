import BoardCore
import BoardTransport
import BoardWire
import NIOCore

/// The end-of-run check that every replica converged on the server's board.
///
/// After the publishers have finished, a fresh connection subscribes to every board and takes the server's state
/// (`ServerBoard`: seq and BoardCore `contentHash` of the snapshot). Then, per board:
/// - the reference replica (the board's first subscriber) is replayed: its subscribe snapshot, then every delta it
///   received, through BoardCore's reducer, exactly as a client applies them. Its seq and content hash must equal
///   the server's.
/// - every other subscriber must have ended at the server's seq with no gap or repeat, and with a `StreamHash` equal
///   to that of the reference's lines over the same seq range: the same bytes through the same reducer give the same
///   board. (Decoding every delta in every simulated client would make cork-load, not corkd, the bottleneck.)
enum Convergence {
    /// The server's state of one board.
    struct ServerBoard: Sendable {
        var seq: UInt64
        var hash: String
        var cards: Int
        /// Why the server would not show the board (archived during the run, say): it is not checked, and the
        /// other boards still are.
        var refused: String? = nil
    }

    /// One board's verdict.
    struct Verdict: Encodable, Sendable {
        var board: String
        var serverSeq: UInt64
        var serverHash: String
        var cards: Int
        var replayedSeq: UInt64?
        var replayedHash: String?
        var deltasReplayed: Int
        var subscribers: Int
        var subscribersMatching: Int
        var problems: [String]
        /// The reference log outgrew `--replay-mb`: the board could not be checked (not a divergence).
        var unchecked = false
        var converged: Bool { problems.isEmpty }

        enum CodingKeys: String, CodingKey {
            case board, serverSeq, serverHash, cards, replayedSeq, replayedHash, deltasReplayed, subscribers
            case subscribersMatching, problems, converged, unchecked
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(board, forKey: .board)
            try c.encode(serverSeq, forKey: .serverSeq)
            try c.encode(serverHash, forKey: .serverHash)
            try c.encode(cards, forKey: .cards)
            try c.encodeIfPresent(replayedSeq, forKey: .replayedSeq)
            try c.encodeIfPresent(replayedHash, forKey: .replayedHash)
            try c.encode(deltasReplayed, forKey: .deltasReplayed)
            try c.encode(subscribers, forKey: .subscribers)
            try c.encode(subscribersMatching, forKey: .subscribersMatching)
            try c.encode(problems, forKey: .problems)
            try c.encode(converged, forKey: .converged)
            try c.encode(unchecked, forKey: .unchecked)
        }
    }

    /// Subscribes to `boards` as `target` and returns each board's state on the server.
    static func serverState(_ target: Target, boards: [String], clientID: String, group: any EventLoopGroup) async throws -> [ServerBoard] {
        let channel = try await Transport.connect(host: target.host, port: target.port, group: group, tls: target.tls, limits: .client)
        let raw = channel.channel
        let deadline = raw.eventLoop.scheduleTask(in: .seconds(60)) { raw.close(promise: nil) }
        defer { deadline.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            var lines = inbound.makeAsyncIterator()
            var ignored = ByteCounts()
            _ = try await Handshake.open(target, clientID: clientID, subscribe: nil, lines: &lines, outbound: outbound, bytes: &ignored)
            var result: [ServerBoard] = []
            for (index, board) in boards.enumerated() {
                let request = ClientMessage.subscribe(ClientMessage.Subscribe(req: .int(UInt64(index + 10)), board: BoardID(board)))
                try await outbound.write(ByteBuffer(bytes: Handshake.coder.encodeLine(request)))
                var found: ServerBoard?
                while found == nil {
                    guard let line = try await lines.next() else { throw LoadError("closed", "the check connection closed") }
                    switch ServerLine(line).kind {
                    case .error:
                        let error = Handshake.error(line)
                        guard case .error(let decoded) = try? Handshake.coder.decodeServer(line.readableBytesView),
                            !decoded.closesConnection
                        else { throw error }
                        found = ServerBoard(seq: 0, hash: "", cards: 0, refused: error.description)
                    case .ping: try await outbound.write(Handshake.pong)
                    case .other:
                        if case .snapshot(let snapshot) = try? Handshake.coder.decodeServer(line.readableBytesView),
                            snapshot.board.rawValue == board
                        {
                            found = ServerBoard(seq: snapshot.seq, hash: snapshot.state.contentHash, cards: snapshot.state.cards.count)
                        }
                    default: continue
                    }
                }
                if let found { result.append(found) }
            }
            try? await outbound.write(Handshake.bye)
            return result
        }
    }

    /// Judges one board from its server state, its reference log and its subscribers' stream records; `expected` is
    /// how many subscribers the board was to have (none connected: nothing was checked).
    static func judge(
        board name: String, server: ServerBoard, reference: ReferenceLog?, streams: [StreamRecord], expected: Int = 0
    ) -> Verdict {
        var verdict = Verdict(
            board: name, serverSeq: server.seq, serverHash: server.hash, cards: server.cards, deltasReplayed: 0,
            subscribers: streams.count, subscribersMatching: 0, problems: [])
        if let refused = server.refused {
            verdict.problems.append("not checked: the server would not show the board at the end (\(refused))")
            verdict.unchecked = true
            return verdict
        }
        guard let reference, var board = reference.snapshot else {
            if !streams.isEmpty || expected > 0 {
                // Nothing to replay, so nothing to compare the other replicas with: not a divergence.
                verdict.problems.append("not checked: no reference replica (its subscriber did not connect)")
                verdict.unchecked = true
            }
            return verdict
        }
        if reference.truncated {
            verdict.problems.append("the reference log outgrew --replay-mb; nothing was replayed")
            verdict.unchecked = true
            return verdict
        }
        var seq = reference.subscribedSeq
        var start = 0
        for (index, end) in reference.ends.enumerated() {
            defer { start = end }
            let decoded = reference.bytes[start..<end].withUnsafeBytes { try? Handshake.coder.decodeServer($0) }
            guard case .delta(let delta) = decoded else {
                verdict.problems.append("delta \(reference.seqs[index]) did not decode")
                break
            }
            let context = ApplyContext(actor: delta.actor, role: .owner, now: delta.at, seq: delta.seq)
            if case .failure(let rejection) = board.apply(delta.op, context: context) {
                verdict.problems.append("delta \(delta.seq) did not apply to the replica: \(rejection)")
                break
            }
            board.seq = delta.seq
            seq = delta.seq
            verdict.deltasReplayed += 1
        }
        let hash = board.contentHash
        verdict.replayedSeq = seq
        verdict.replayedHash = hash
        if seq != server.seq, reference.lostConnection {
            // Its connection was lost: nothing to compare the server's state with (not a divergence).
            verdict.problems.append(
                "not checked: the reference replica lost its connection at seq \(seq), the server is at \(server.seq)")
            verdict.unchecked = true
            return verdict
        }
        if seq != server.seq { verdict.problems.append("the reference replica ended at seq \(seq), the server is at \(server.seq)") }
        if hash != server.hash { verdict.problems.append("the reference replica's content hash differs from the server's") }

        // Each distinct (from, to) range of the subscribers, hashed once over the reference's lines.
        var expected: [String: StreamHash] = [:]
        var mismatched = 0
        var cutShort = 0
        for stream in streams {
            let key = "\(stream.subscribedSeq)-\(stream.lastSeq)"
            if expected[key] == nil { expected[key] = rangeHash(reference, after: stream.subscribedSeq, through: stream.lastSeq) }
            let faithful = stream.subscribedSeq >= reference.subscribedSeq && expected[key] == stream.hash
            if stream.lastSeq == server.seq, faithful {
                verdict.subscribersMatching += 1
            } else if stream.lostConnection, stream.lastSeq < server.seq, faithful {
                cutShort += 1
            } else {
                mismatched += 1
            }
        }
        if mismatched > 0 {
            verdict.problems.append("\(mismatched) of \(streams.count) subscriber(s) did not end at the server's seq with the reference's deltas")
        }
        if cutShort > 0 {
            verdict.problems.append(
                "not checked: \(cutShort) of \(streams.count) subscriber(s) lost their connection; their deltas match the reference up to there")
            // Only what could be compared decides: with no other problem, this board was not checked, not diverged.
            if verdict.problems.count == 1 { verdict.unchecked = true }
        }
        return verdict
    }

    private static func rangeHash(_ log: ReferenceLog, after from: UInt64, through to: UInt64) -> StreamHash {
        var hash = StreamHash()
        var start = 0
        log.bytes.withUnsafeBytes { bytes in
            for (index, end) in log.ends.enumerated() {
                defer { start = end }
                let seq = log.seqs[index]
                guard seq > from, seq <= to else { continue }
                hash.add(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            }
        }
        return hash
    }
}
