import Foundation

/// A real local mail path for tests: Python's aiosmtpd listening on 127.0.0.1 (`Tests/Mail/smtp_sink.py`), each
/// message it receives written to a file, and the `msmtp` command line (the sendmail interface) that delivers to it.
public final class SMTPSink {
    /// Where the received messages are written (`*.eml`).
    public let directory: URL
    /// The sink's SMTP port.
    public let port: Int
    let process: SpawnedProcess

    /// Whether the mail path can run here: msmtp and aiosmtpd, or CI (where it must, and a missing tool fails).
    public static var available: Bool {
        if ProcessInfo.processInfo.environment["CI"].map({ !$0.isEmpty && $0 != "false" }) == true { return true }
        guard (try? SpawnedProcess.tool("msmtp")) != nil, let python = try? SpawnedProcess.tool("python3") else { return false }
        let probe = Process()
        probe.executableURL = python
        probe.arguments = ["-c", "import aiosmtpd"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    /// Starts a sink writing into `work/sink`.
    public init(in work: URL) async throws {
        directory = work.appendingPathComponent("sink")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        process = try SpawnedProcess(
            executable: try SpawnedProcess.tool("python3"),
            arguments: [CorkdProcess.packageRoot.appendingPathComponent("Tests/Mail/smtp_sink.py").path, directory.path],
            logDirectory: work, name: "smtp-sink", withInput: true)
        guard await process.waitForOutput(containing: "listening ", timeout: .seconds(20)),
            let port = process.standardOutput.split(separator: " ").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        else {
            process.killAndReap()
            throw TestFailure("the SMTP sink did not start: \(process.standardError)")
        }
        self.port = port
    }

    /// The sendmail-style command that delivers to this sink.
    public var command: String {
        "msmtp -C /dev/null --host=127.0.0.1 --port=\(port) --auth=off --tls=off --from=corkd@localhost -t"
    }

    /// The messages it received.
    public var mailbox: SMTPMailbox { SMTPMailbox(directory: directory) }

    /// Stops the sink.
    public func stop() {
        process.closeInput()
        process.killAndReap()
    }
}

/// The messages an ``SMTPSink`` received, as files in its directory.
public struct SMTPMailbox: Sendable {
    /// Where the sink writes them (`*.eml`).
    public let directory: URL

    /// The messages received so far, oldest first.
    public func mails() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil).filter { $0.pathExtension == "eml" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The text of the `count`th message, waiting up to 20 s for it.
    public func waitForMail(count: Int) async throws -> String {
        for _ in 0..<200 {
            let found = try mails()
            if found.count >= count { return try String(contentsOf: found[count - 1], encoding: .utf8) }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("no mail \(count) within 20 s")
    }
}
