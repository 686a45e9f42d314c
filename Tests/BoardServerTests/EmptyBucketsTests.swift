import BoardCore
import BoardWire
import Testing
@testable import BoardServer

/// A session refuses an op itself only while the board's `rate_limited` answer says no token can exist, and only
/// for muts the board could not answer with an ack.
@Suite struct EmptyBucketsTests {
    @Test func refusesNewMutsUntilATokenCanExist() {
        var buckets = EmptyBuckets()
        #expect(buckets.refusal("main", mut: 10, nowMs: 0) == nil)
        buckets.limited("main", nowMs: 1_000, retryAfterMs: 50, highestMut: 7)
        #expect(buckets.refusal("main", mut: 8, nowMs: 1_010) == 40)
        #expect(buckets.refusal("main", mut: 8, nowMs: 1_050) == nil, "a token may exist now: ask the board")
        #expect(buckets.refusal("other", mut: 8, nowMs: 1_010) == nil, "another board has its own bucket")
    }

    @Test func aResendAtOrBelowTheHighestMutAlwaysGoesToTheBoard() {
        var buckets = EmptyBuckets()
        buckets.limited("main", nowMs: 0, retryAfterMs: 50, highestMut: 7)
        #expect(buckets.refusal("main", mut: 7, nowMs: 1) == nil)
        #expect(buckets.refusal("main", mut: 1, nowMs: 1) == nil)
    }

    @Test func aLongWaitIsReusedOnlyBrieflySoTheBoardSeesTheRunAndClosesIt() {
        var buckets = EmptyBuckets(maxWindowMs: 250)
        buckets.limited("main", nowMs: 0, retryAfterMs: 2_000, highestMut: 0)
        #expect(buckets.refusal("main", mut: 1, nowMs: 100) == 1_900, "retry_after_ms still tells the truth")
        #expect(buckets.refusal("main", mut: 1, nowMs: 250) == nil)
    }

    @Test func anyOtherAnswerForgetsTheBoard() {
        var buckets = EmptyBuckets()
        buckets.limited("main", nowMs: 0, retryAfterMs: 50, highestMut: 0)
        buckets.forget("main")
        #expect(buckets.refusal("main", mut: 1, nowMs: 1) == nil)
    }
}
