#if canImport(Glibc)
import Glibc
import Testing
@testable import BoardServer

/// corkd maps blocks of 16 KiB and more instead of taking them from the heap (issue 14, defect 5: NIOSSL's two
/// per-connection buffers then cost only the pages written, and go back to the system when freed).
@Suite struct MmapThresholdTests {
    @Test func aBlockOfTheThresholdIsMappedOnceApplied() throws {
        #expect(MmapThreshold.apply())
        let block = try #require(malloc(Int(MmapThreshold.bytes)))
        defer { free(block) }
        // glibc's chunk header, the word before the block: its size with flag bits, 0x2 being IS_MMAPPED.
        let header = block.load(fromByteOffset: -MemoryLayout<Int>.size, as: Int.self)
        #expect(header & 0x2 != 0, "a \(MmapThreshold.bytes)-byte block came from the heap (chunk header \(header))")
    }
}
#endif
