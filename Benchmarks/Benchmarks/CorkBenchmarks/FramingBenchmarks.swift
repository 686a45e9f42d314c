import Benchmark
import BoardTransport
import BoardWire
import NIOCore
import NIOEmbedded

/// How many `op` lines one inbound read holds in the framing benchmarks.
let linesPerRead = 1_000

/// `LineFramer` cutting one read of many `op` lines, alone and with `JSONPreScan` on every line; then the pre-scan
/// and `LineCoder.decodeClient` on one line.
func framingBenchmarks() {
    var read = ByteBuffer()
    for _ in 0..<linesPerRead { read.writeBytes(Fixtures.opLine) }
    let lineBytes = Fixtures.opLine.count - 1

    let oneRead = Benchmark.Configuration(scalingFactor: .one)
    Benchmark("Framing: LineFramer, \(linesPerRead) op lines of \(lineBytes) B in one read", configuration: oneRead) {
        benchmark in
        framing(read, benchmark: benchmark, preScan: nil)
    }

    Benchmark("Framing: LineFramer + JSONPreScan, \(linesPerRead) op lines in one read", configuration: oneRead) {
        benchmark in
        framing(read, benchmark: benchmark, preScan: LineCoder().preScan)
    }

    let line = Array(Fixtures.opLine.dropLast())
    Benchmark("Pre-scan: JSONPreScan.check, one op line") { benchmark in
        let scan = LineCoder().preScan
        for _ in benchmark.scaledIterations {
            blackHole(line.withUnsafeBufferPointer { scan.check(buffer: $0) })
        }
    }

    Benchmark("Decode: LineCoder.decodeClient, one op line (one pass: pre-scan tape, read field by field)") { benchmark in
        let coder = LineCoder()
        for _ in benchmark.scaledIterations {
            blackHole(try? coder.decodeClient(line))
        }
    }

    Benchmark("Decode: LineCoder.decodeClientReference, one op line (pre-scan + JSONDecoder)") { benchmark in
        let coder = LineCoder()
        for _ in benchmark.scaledIterations {
            blackHole(try? coder.decodeClientReference(line))
        }
    }

    Benchmark("Decode: LineCoder.decodeClient, one op line read in place from a ByteBuffer") { benchmark in
        let coder = LineCoder()
        let buffer = ByteBuffer(bytes: Fixtures.opLine)
        for _ in benchmark.scaledIterations {
            blackHole(try? coder.decodeClient(buffer.readableBytesView))
        }
    }
}

/// Feeds `read` through a framer on an `EmbeddedChannel` once per iteration; lines end in a `LineSink`.
private func framing(_ read: ByteBuffer, benchmark: Benchmark, preScan: JSONPreScan?) {
    let channel = EmbeddedChannel()
    let sink = LineSink(preScan: preScan)
    do {
        try channel.pipeline.syncOperations.addHandlers([
            LineFramer(preauthLineMax: 64 * 1024, lineMax: 64 * 1024, lineTimeout: nil), sink,
        ])
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            try channel.writeInbound(read)
        }
        benchmark.stopMeasurement()
        _ = try channel.finish()
    } catch {
        fatalError("framing failed: \(error)")
    }
    precondition(sink.lines == linesPerRead * benchmark.scaledIterations.count && sink.rejected == 0)
}

/// The end of the benchmark pipeline: counts lines and, when given a pre-scan, checks each one in place.
private final class LineSink: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let preScan: JSONPreScan?
    var lines = 0
    var rejected = 0

    init(preScan: JSONPreScan?) { self.preScan = preScan }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lines += 1
        guard let preScan else { return }
        let line = unwrapInboundIn(data)
        let problem = line.withUnsafeReadableBytes { raw in
            raw.withMemoryRebound(to: UInt8.self) { preScan.check(buffer: $0) }
        }
        if problem != nil { rejected += 1 }
    }
}
