import Benchmark
import BoardClientCore
import BoardCore
import BoardWire


/// The client core on a 10,000-card board (issue 16): a foreign delta applied and its board update published, the
/// same with 100 pending ops to rebase, a reconnect that catches up 1,000 missed deltas, and the memory a replica
/// keeps. Run with `swift package benchmark --target ClientBenchmarks` from the Benchmarks folder.
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
        var seq = client.seq
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            seq += 1
            blackHole(client.deliver(ClientFixture.foreignEdit(seq: seq)))
        }
    }

    Benchmark("Client: foreign card.edit delta + board update, 10,000 cards, the UI holding the last update") {
        benchmark in
        var client = ClientFixture.live(pending: 0)
        var seq = client.seq
        var shown: BoardUpdate?
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            seq += 1
            // A UI keeps the board it shows until the next update replaces it.
            if let update = client.deliver(ClientFixture.foreignEdit(seq: seq)) { shown = update }
        }
        blackHole(shown)
    }

    Benchmark("Client: foreign delta rebasing 100 pending ops + board update, 10,000 cards") { benchmark in
        var client = ClientFixture.live(pending: 100)
        var seq = client.seq
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            seq += 1
            blackHole(client.deliver(ClientFixture.foreignEdit(seq: seq)))
        }
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
        }
    }

    Benchmark(
        "Client: memory a live replica keeps, 10,000 cards (snapshot decoded, loaded, shown)",
        configuration: .init(
            metrics: [.custom("retained bytes", polarity: .prefersSmaller, useScalingFactor: false)],
            maxDuration: .seconds(5), maxIterations: 5)
    ) { benchmark in
        let json = try ClientFixture.boardJSON()
        for _ in benchmark.scaledIterations {
            let before = ClientFixture.heapInUse()
            let board = try ClientFixture.decode(json)
            var client = ClientFixture.Client(board: board)
            blackHole(client.deliver(ClientFixture.foreignEdit(seq: board.seq + 1)))
            let after = ClientFixture.heapInUse()
            benchmark.measurement(.custom("retained bytes", polarity: .prefersSmaller, useScalingFactor: false), after - before)
            blackHole(client)
        }
    }
}
