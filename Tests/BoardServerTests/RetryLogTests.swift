@testable import BoardServer
import Testing

/// A background loop that retries a store call every few seconds logs a database outage as its first failure, a
/// reminder about once a minute, and its end; not one warning per try.
@Suite struct RetryLogTests {
    @Test func anOutageIsItsFirstFailureAReminderAMinuteAndItsEnd() {
        let log = RetryLog("cannot read new inbox entries; trying again", recovered: "new inbox entries are read again")
        let start = ContinuousClock.now
        // A try every 5 s for 150 s.
        let lines = (0..<30).map { log.failedLine(now: start + .seconds($0 * 5)) }
        #expect(lines[0] == "cannot read new inbox entries; trying again")
        #expect(lines.compactMap { $0 } == [
            "cannot read new inbox entries; trying again",
            "cannot read new inbox entries; trying again (still failing: 13 tries in 60 s)",
            "cannot read new inbox entries; trying again (still failing: 25 tries in 120 s)",
        ])
        #expect(log.workedLine(now: start + .seconds(151)) == "new inbox entries are read again after 30 failed tries in 151 s")
        #expect(log.workedLine(now: start + .seconds(156)) == nil, "said once")
        // The next outage is a new one: its first failure is logged at once.
        #expect(log.failedLine(message: "admin outcomes not recorded; trying again", now: start + .seconds(200))
            == "admin outcomes not recorded; trying again")
    }

    @Test func aCallThatNeverFailedSaysNothingWhenItWorks() {
        let log = RetryLog("cannot take the hooks lease", recovered: "the hooks lease can be taken again")
        #expect(log.workedLine() == nil)
    }
}
