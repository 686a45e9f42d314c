#if canImport(Glibc)
import Glibc
import Testing
@testable import BoardServer

/// corkd maps blocks of 16 KiB and more instead of taking them from the heap (issue 14, defect 5: NIOSSL's two
/// per-connection buffers then cost only the pages written, and go back to the system when freed). What that saves
/// is measured by `bench/idle-connections.py` (README, "Idle connections"); this checks the setting itself.
///
/// Not in a child process: an exit test (`#expect(processExitsWith:)`) starts a thread that waits for any child of
/// the test process, and with it the suites that spawn corkd, postgres or tmux waited for ever for children it had
/// reaped. Nor with corkd's 16 KiB in this process, where it would change every other suite's allocations: glibc's
/// own default threshold (128 KiB) is set instead, which only turns its dynamic threshold off.
@Suite struct MmapThresholdTests {
    @Test func glibcTakesTheThresholdThroughMallopt() {
        #expect(MmapThreshold.mallopt != nil, "mallopt found at run time")
        #expect(MmapThreshold.apply(128 * 1024), "M_MMAP_THRESHOLD accepted")
    }
}
#endif
