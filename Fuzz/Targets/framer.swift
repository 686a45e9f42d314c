// Fuzz target: the line framer (BoardTransport/LineFramer.swift) fed the same bytes whole, split at every boundary
// (inputs up to 128 bytes) and in random chunks; every split must give the same lines and the same failure as a
// reference splitter, and the framer never buffers more than its cap + 1.
import NIOCore
import NIOEmbedded

/// What a framer made of a stream: its lines and whether it failed with `line_too_long`.
struct Outcome: Equatable {
    var lines: [[UInt8]] = []
    var failed = false
}

/// The reference: cut at `\n`, drop one `\r` before it, skip empty lines; a line (or the unfinished tail) whose
/// content passes `cap` fails, and nothing after it counts.
func reference(_ stream: [UInt8], cap: Int) -> Outcome {
    var outcome = Outcome()
    var start = 0
    func content(_ slice: ArraySlice<UInt8>) -> ArraySlice<UInt8> { slice.last == 0x0D ? slice.dropLast() : slice }
    while let newline = stream[start...].firstIndex(of: 0x0A) {
        let line = content(stream[start..<newline])
        if line.count > cap { outcome.failed = true; return outcome }
        if !line.isEmpty { outcome.lines.append(Array(line)) }
        start = newline + 1
    }
    if content(stream[start...]).count > cap { outcome.failed = true }
    return outcome
}

func run(_ chunks: [ArraySlice<UInt8>], cap: Int) -> Outcome {
    let channel = EmbeddedChannel()
    let framer = LineFramer(preauthLineMax: cap, lineMax: cap, lineTimeout: nil)
    do {
        try channel.pipeline.syncOperations.addHandler(framer)
    } catch {
        fatalError("cannot add the framer: \(error)")
    }
    var outcome = Outcome()
    for chunk in chunks where !outcome.failed {
        var buffer = channel.allocator.buffer(capacity: chunk.count)
        buffer.writeBytes(chunk)
        do {
            try channel.writeInbound(buffer)
        } catch {
            require(error is TransportError, "unexpected error \(error)")
            outcome.failed = true
        }
        while let line = try? channel.readInbound(as: ByteBuffer.self) {
            outcome.lines.append(Array(line.readableBytesView))
        }
        require(framer.bufferedBytes <= cap + 1, "buffered \(framer.bufferedBytes) > cap \(cap) + 1")
    }
    _ = try? channel.finish()
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let input = bytes(data, size)
    // The first byte picks the cap (1…64, or 4096 for long inputs), the second the random split.
    let cap = input[0] == 0xFF ? 4096 : 1 + Int(input[0] % 64)
    let stream = Array(input[2...])
    let expected = reference(stream, cap: cap)
    let whole = run([stream[...]], cap: cap)
    require(whole == expected, "whole: \(whole) != reference \(expected) (cap \(cap))")
    if stream.count <= 128 {
        for split in 0...stream.count {
            let two = run([stream[..<split], stream[split...]], cap: cap)
            require(two == expected, "split at \(split): \(two) != \(expected) (cap \(cap))")
        }
    }
    var chunks: [ArraySlice<UInt8>] = []
    var at = 0
    for length in chunkLengths(count: stream.count, seed: UInt64(input[1]) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(size)) {
        chunks.append(stream[at..<at + length])
        at += length
    }
    let random = run(chunks, cap: cap)
    require(random == expected, "random chunks \(chunks.map(\.count)): \(random) != \(expected)")
    return 0
}
