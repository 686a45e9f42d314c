// Thread CPU time, monotonic wall time and their formatting, shared by the harnesses in Benchmarks/ (each run.sh
// compiles this file beside its main.swift).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thread CPU time in nanoseconds.
func cpuNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Monotonic wall-clock time in nanoseconds.
func wallNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func format(_ nanos: Double) -> String {
    nanos >= 10_000 ? "\(Int((nanos / 1000).rounded())) µs" : "\(Double(Int(nanos / 10)) / 100) µs"
}

/// Per-run thread CPU time (ns) of `rounds` batches of `batch` runs of `body`, after one batch to warm up.
func batchSamples(rounds: Int, batch: Int, _ body: () -> Void) -> [Double] {
    for _ in 0..<batch { body() }
    var samples: [Double] = []
    for _ in 0..<rounds {
        let start = cpuNanos()
        for _ in 0..<batch { body() }
        samples.append(Double(cpuNanos() - start) / Double(batch))
    }
    return samples
}

/// The median per-run thread CPU time (ns) of `rounds` batches of `batch` runs of `body`.
func median(rounds: Int = 21, batch: Int, _ body: () -> Void) -> Double {
    let samples = batchSamples(rounds: rounds, batch: batch, body).sorted()
    return samples[samples.count / 2]
}
