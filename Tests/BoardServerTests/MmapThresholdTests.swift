#if canImport(Glibc)
import Glibc
import Testing
@testable import BoardServer

/// corkd maps blocks of 16 KiB and more instead of taking them from the heap (issue 14, defect 5: NIOSSL's two
/// per-connection buffers then cost only the pages written, and go back to the system when freed).
///
/// Checked in a fresh child process (an exit test): in the test process the threshold would change every other
/// suite's allocations, and a block could come from a free chunk left by earlier tests whatever the threshold.
@Suite struct MmapThresholdTests {
    @Test func aBlockOfTheThresholdIsMappedOnceApplied() async {
        await #expect(processExitsWith: .success) {
            guard MmapThreshold.apply() else { exit(1) }
            // glibc still carves a big block from the heap's free top while it lasts; the threshold decides what
            // happens once the top is used up (mapped, instead of growing the heap). 4 MiB of blocks use it up.
            var blocks: [UnsafeMutableRawPointer] = []
            for _ in 0..<256 {
                guard let block = malloc(Int(MmapThreshold.bytes)) else { exit(1) }
                blocks.append(block)
            }
            // glibc's chunk header, the word before the block: its size with flag bits, 0x2 being IS_MMAPPED.
            let header = blocks[blocks.count - 1].load(fromByteOffset: -MemoryLayout<Int>.size, as: Int.self)
            exit(header & 0x2 != 0 ? 0 : 2)
        }
    }
}
#endif
