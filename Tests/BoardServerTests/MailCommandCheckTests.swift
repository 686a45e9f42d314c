import BoardTesting
import Foundation
import Testing

/// A mail command that is not installed is said at start, once: otherwise inbox digests would silently go nowhere.
@Suite(.serialized, .startsProcesses(within: .minutes(1)))
struct MailCommandCheckTests {
    @Test func aMailCommandThatIsNotInstalledIsSaidAtStart() async throws {
        try await withCorkd(options: ["--mail-command", "/nonexistent/sendmail -t"]) { corkd in
            let said = "the mail command's /nonexistent/sendmail is not installed"
            let deadline = ContinuousClock.now + .seconds(30)
            while !corkd.standardError.contains(said), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(corkd.standardError.contains(said), "\(corkd.standardError.suffix(2000))")
        }
        try await withCorkd(options: ["--mail-command", "/nonexistent/sendmail -t", "--no-mail"]) { corkd in
            #expect(!corkd.standardError.contains("not installed"), "\(corkd.standardError.suffix(2000))")
        }
    }
}
