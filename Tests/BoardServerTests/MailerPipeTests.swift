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
        // It reads the message first: a command that exits without reading makes the write a SIGPIPE, which corkd
        // ignores (Console.prepareProcess) but this test process does not.
        guard case .failure(let problem) = await Mailer.pipe("x", to: "cat > /dev/null; exit 3") else {
            Issue.record("a command that exits 3 succeeded")
            return
        }
        #expect(problem.description == "cat > /dev/null; exit 3 exited 3")
    }
}
