import Benchmark

/// The hot paths of corkd, measured on the main package's own code: the reducer, the delta encoder, line
/// framing with the pre-scan, and the snapshot diff. Run with `swift package benchmark` from this folder.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 100_000
    )
    reducerBenchmarks()
    encodeBenchmarks()
    framingBenchmarks()
    diffBenchmarks()
    commitBenchmarks()
}
