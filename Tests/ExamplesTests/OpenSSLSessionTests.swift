import BoardTesting
import Foundation
import Testing

/// `Examples/openssl-session.md` is what is tested: its client lines go through `openssl s_client` to a fresh
/// corkd, and every answer must be the documented one (up to ids, epochs and timestamps).
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct OpenSSLSessionTests {
    @Test func theDocumentedSessionIsWhatAFreshCorkdAnswers() async throws {
        let openssl = try SpawnedProcess.tool("openssl")
        let steps = try SessionDocument().steps
        let placeholder = #""token":"TOKEN""#
        try #require(steps.count >= 7, "openssl-session.md has \(steps.count) client blocks")
        try #require(steps[0].client.first?.contains(placeholder) == true, "the first client line is not hello with TOKEN")
        try #require(steps.last?.client == [#"{"type":"bye","reason":"client"}"#] && steps.last?.server == [])
        // A corkd as the reader starts it: its welcome shows the default deadlines.
        try await withCorkd(options: CorkdProcess.defaultDeadlines) { corkd in
            let client = try SpawnedProcess(
                executable: openssl,
                arguments: ["s_client", "-quiet", "-connect", "127.0.0.1:\(corkd.port)", "-servername", "localhost"],
                logDirectory: corkd.logDirectory, name: "s_client-openssl-session", withInput: true)
            defer { client.killAndReap() }
            // Like the reader pasting: each step's answers are in before the next step goes out.
            var expected: [String] = []
            for step in steps {
                for line in step.client {
                    try client.write(line.replacingOccurrences(of: placeholder, with: #""token":"\#(corkd.ownerToken)""#) + "\n")
                }
                expected += step.server
                let deadline = ContinuousClock.now + .seconds(30)
                while SessionDocument.jsonLines(client.standardOutput).count < expected.count, client.isRunning,
                    ContinuousClock.now < deadline
                {
                    try await Task.sleep(for: .milliseconds(20))
                }
                try #require(
                    SessionDocument.jsonLines(client.standardOutput).count >= expected.count,
                    "no answer to \(step.client.first?.prefix(60) ?? "")…; stdout: \(client.standardOutput.suffix(1500)); stderr: \(client.standardError.suffix(1500))")
            }
            // After bye the server closes the connection and s_client exits.
            let exit = await client.waitForExit(timeout: .seconds(30))
            #expect(exit != nil, "the server did not close the connection within 30 s of bye")

            let actual = SessionDocument.jsonLines(client.standardOutput)
            #expect(actual.count == expected.count, "documented \(expected.count) server lines, got \(actual.count)")
            for (documented, real) in zip(expected, actual) {
                #expect(
                    SessionDocument.canonical(real) == SessionDocument.canonical(documented),
                    "openssl-session.md says\n\(documented)\nbut corkd sent\n\(real)")
            }
        }
    }

    @Test func theDocumentedFingerprintCheckAndHelloLineWork() async throws {
        let shell = try SpawnedProcess.tool("sh")
        _ = try SpawnedProcess.tool("openssl")
        let document = try SessionDocument()
        try await withCorkd { corkd in
            let data = "'\(corkd.dataDirectory.path)'"
            let check = try document.shell(containing: "openssl x509")
                .replacingOccurrences(of: "DATA=corkd-data", with: "DATA=\(data)")
                .replacingOccurrences(of: "127.0.0.1:7420", with: "127.0.0.1:\(corkd.port)")
            let result = try await SpawnedProcess.run(
                shell, ["-c", check], timeout: .seconds(20), logDirectory: corkd.logDirectory, name: "fingerprint-check")
            #expect(result.exit.isSuccess, "\(result.exit): \(result.standardError)")
            #expect(result.standardOutput == "fingerprint ok: \(try corkd.pinned())\n", "\(result.standardOutput)")

            let printf = try document.shell(containing: "printf")
                .replacingOccurrences(of: "corkd-data/owner.url", with: "\(data)/owner.url")
            let hello = try await SpawnedProcess.run(
                shell, ["-c", printf], timeout: .seconds(20), logDirectory: corkd.logDirectory, name: "hello-line")
            #expect(
                hello.standardOutput
                    == #"{"type":"hello","version":1,"client":"openssl-by-hand","token":"\#(corkd.ownerToken)"}"# + "\n",
                "\(hello.standardOutput)")
        }
    }
}
