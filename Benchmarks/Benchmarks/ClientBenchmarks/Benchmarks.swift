import Benchmark
import BoardClientCore
import BoardCore
import BoardWire

/// The client core on a 10,000-card board: a foreign delta applied and its board update published, the
/// same with 100 pending ops to rebase, a reconnect that catches up 1,000 missed deltas, and the memory a replica of
/// that board holds. Run with
/// `swift package benchmark --target ClientBenchmarks` from the Benchmarks folder.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 3,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 10_000
    )

    Benchmark("Client: foreign card.edit delta + board update, 10,000 cards") { benchmark in
        var client = ClientFixture.live(pending: 0)
        var seq = client.seq + 1
        // The closure runs once per sample: the first delta copies the card table the fixture shares.
        blackHole(client.deliver(ClientFixture.foreignEdit(seq: seq)))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            seq += 1
            blackHole(client.deliver(ClientFixture.foreignEdit(seq: seq)))
        }
        // Freeing 10,000 cards is not part of a delta: stop the clock before the client goes.
        benchmark.stopMeasurement()
        blackHole(client)
    }

    Benchmark("Client: foreign card.edit delta + board update, 10,000 cards, the UI holding the last update") {
        benchmark in
        var client = ClientFixture.live(pending: 0)
        var seq = client.seq + 1
        // The closure runs once per sample: the first delta copies the card table the fixture shares.
        blackHole(client.deliver(ClientFixture.foreignEdit(seq: seq)))
        var shown: BoardUpdate?
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            seq += 1
            // A UI keeps the board it shows until the next update replaces it.
            if let update = client.deliver(ClientFixture.foreignEdit(seq: seq)) { shown = update }
        }
        benchmark.stopMeasurement()
        blackHole(shown)
        blackHole(client)
    }

    Benchmark("Client: foreign delta rebasing 100 pending ops + board update, 10,000 cards") { benchmark in
        var client = ClientFixture.live(pending: 100)
        var seq = client.seq + 1
        // The closure runs once per sample: the first delta copies the card table the fixture shares.
        blackHole(client.deliver(ClientFixture.foreignEdit(seq: seq)))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            seq += 1
            blackHole(client.deliver(ClientFixture.foreignEdit(seq: seq)))
        }
        // Freeing 10,000 cards is not part of a delta: stop the clock before the client goes.
        benchmark.stopMeasurement()
        blackHole(client)
    }

    Benchmark(
        "Client: reconnect catching up 1,000 missed deltas, 10,000 cards",
        configuration: .init(maxDuration: .seconds(5), maxIterations: 200)
    ) { benchmark in
        let missed = (1...1_000).map { ClientFixture.foreignEdit(seq: ClientFixture.board.seq + UInt64($0)) }
        for _ in benchmark.scaledIterations {
            benchmark.stopMeasurement()
            var client = ClientFixture.live(pending: 0)
            benchmark.startMeasurement()
            for delta in missed { blackHole(client.deliver(delta)) }
            benchmark.stopMeasurement()
            blackHole(client)
        }
    }

    // The heap bytes a replica of the board holds, as a client gets it: the `snapshot` line decoded and loaded.
    // `memoryLeakedBytes` is what was allocated and not freed between start and stop (the replica, alive at the
    // stop); the line's bytes and the decoder's scratch are freed by then. malloc's own overhead is not in it.
    Benchmark(
        "Client: memory of a replica of 10,000 cards (snapshot line decoded and loaded)",
        configuration: .init(
            metrics: [.memoryLeakedBytes, .mallocCountTotal, .wallClock], maxDuration: .seconds(10), maxIterations: 20)
    ) { benchmark in
        let coder = LineCoder()
        let line = coder.encode(
            ServerMessage.snapshot(
                ServerMessage.Snapshot(
                    req: .string("sub"), board: "main", seq: ClientFixture.board.seq, epoch: "e1", reason: .initial,
                    state: ClientFixture.board)))
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            var replica = Replica(board: "main", user: ClientFixture.me)
            if case .snapshot(let snapshot) = try coder.decodeServer(line) {
                _ = replica.load(snapshot.state, seq: snapshot.seq, epoch: snapshot.epoch)
            }
            benchmark.stopMeasurement()
            precondition(replica.view?.cards.count == ClientFixture.cardCount, "the snapshot did not load")
            blackHole(replica)
        }
    }
}
