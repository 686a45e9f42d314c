import Testing

@testable import BoardServer

/// `Mailer.pipe`: what a failing mail command said becomes one line of the log record, not a record broken in two
/// by the command's own line breaks.
@Suite struct MailerPipeTests {
    @Test func aFailingCommandsWordsAreOneLine() async {
        let result = await Mailer.pipe("Subject: x\n\nbody\n", to: "cat > /dev/null; printf 'smtp relay down\\n  try later \\n' >&2; exit 75")
        guard case .failure(let problem) = result else {
            Issue.record("a command that exits 75 succeeded")
            return
        }
        #expect(problem.description.hasSuffix("exited 75: smtp relay down / try later"), "\(problem.description)")
        #expect(!problem.description.contains("\n"))
    }

    @Test func aSilentFailureSaysOnlyItsStatus() async {
        guard case .failure(let problem) = await Mailer.pipe("x", to: "exit 3") else {
            Issue.record("a command that exits 3 succeeded")
            return
        }
        #expect(problem.description == "exit 3 exited 3")
    }
}
