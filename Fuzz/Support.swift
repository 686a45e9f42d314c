// Shared by every fuzz target (compiled into each one by scripts/fuzz; not a SwiftPM target).

/// Stops the run with a crash libFuzzer records (with the input that caused it) when `condition` is false.
@inline(__always)
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz property failed: \(message())") }
}

/// A deterministic split of `count` bytes into chunks, driven by `seed`: chunk lengths 1…16, sometimes 0…255.
func chunkLengths(count: Int, seed: UInt64) -> [Int] {
    var state = seed | 1
    var lengths: [Int] = []
    var left = count
    while left > 0 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        let big = state & 0x100 != 0
        let length = min(left, big ? Int(state >> 24 & 0xFF) : 1 + Int(state >> 24 & 0x0F))
        lengths.append(length)
        left -= length
    }
    return lengths
}

/// The raw input as an array.
func bytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}
