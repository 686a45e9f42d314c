@testable import BoardServer
import Testing

/// A LISTEN connection that cannot be made again is retried every 500 ms: the log says so once, then about once a
/// minute, not once per retry (a 20 s database restart had written some 80 lines per node for each channel).
@Suite struct ListenLossLogTests {
    @Test func theFirstLossIsLoggedThenAboutOnceAMinute() {
        let lines = (1...360).map { BoardServer.listenLossLine(attempt: $0, "LISTEN lost", what: "LISTEN") }
        #expect(lines[0] == "LISTEN lost")
        #expect(lines.compactMap { $0 }.count == 4, "\(lines.compactMap { $0 })")
        #expect(lines[119] == "LISTEN still lost after 120 attempts: the database cannot be reached")
        #expect(lines[1..<119].allSatisfy { $0 == nil })
    }
}
