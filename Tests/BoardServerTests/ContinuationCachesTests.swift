import BoardServer
import Testing

/// `ContinuationCaches.prime` (issue 14, defect 5): every job runs, and the threads that ran them got their share
/// before any took more. What priming does to memory is measured, not tested: `bench/idle-connections.py`.
@Suite("ContinuationCaches")
struct ContinuationCachesTests {
    @Test("priming runs every job, and at least one thread runs its whole share")
    func primeRunsEveryShare() async {
        let counts = await ContinuationCaches.prime(threads: 2)
        #expect(counts.reduce(0, +) == 2 * ContinuationCaches.perThread + 64)
        #expect(counts.first.map { $0 >= ContinuationCaches.perThread } == true, "counts \(counts)")
    }
}
