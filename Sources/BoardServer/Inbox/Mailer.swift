import BoardCore
import BoardStore
import Foundation
import Logging

/// How unread inbox entries go out by mail: the machine's `sendmail` interface, which Debian's exim, postfix and
/// msmtp all provide (`sendmail -t` reads the recipients from the message's headers).
public struct MailSettings: Sendable {
    /// The command a message is piped to (run by `/bin/sh -c`); nil: no mail. `corkd` defaults to
    /// `/usr/sbin/sendmail -t`.
    public var command: String?
    /// The sender's address.
    public var from: String = "corkd@localhost"
    /// How often unread entries are looked at. Default 30 s.
    public var scanInterval: Duration = .seconds(30)
    /// How the web page's address is found when a mail is written (nil: none, and the mail names neither the page
    /// nor an unsubscribe link). A function because the address is known only once the page listens.
    public var webURL: @Sendable () async -> String? = { nil }

    /// No mail.
    public init() {}
}

/// Sends digests: for each user with an address, the unread entries their levels mail, once the oldest of them
/// has waited the user's delay: all of them in one message, never one mail per entry. An entry their levels do not
/// mail is marked so it is never looked at again; an entry read in time is never mailed.
struct Mailer {
    let store: any BoardStore
    /// A board as it is now (nil: not served here), to leave out entries that stopped being true.
    let board: @Sendable (BoardID) async -> Board?
    let settings: MailSettings
    let clock: any ServerClock
    let logger: Logger
    /// A database outage is logged when it starts, about once a minute, and when it ends, not at every look.
    let readLog = RetryLog("cannot read mail settings; trying again", recovered: "mail settings are read again")
    let mailLog = RetryLog("cannot mail unread entries; trying again", recovered: "unread entries are mailed again")

    /// One look at every recipient; the number of mails sent.
    func sendDue() async -> Int {
        guard let command = settings.command else { return 0 }
        let recipients: [(user: UserID, settings: NotifySettings)]
        do {
            recipients = try await store.mailRecipients()
            readLog.worked(logger)
        } catch {
            readLog.failed(error, logger)
            return 0
        }
        var sent = 0
        for (user, notify) in recipients {
            guard let address = notify.email else { continue }
            do {
                let entries = try await store.unmailedEntries(user: user)
                let skipped = entries.filter { !notify.mails($0) }.map(\.id)
                try await store.markMailed(skipped, at: clock.now())
                mailLog.worked(logger)
                var due = entries.filter { notify.mails($0) }
                // Entries no longer true (an assignment undone, a date moved) are not mailed, and not looked at again.
                var boards: [BoardID: Board] = [:]
                var stale: [Int64] = []
                for entry in due where InboxRules.mayGoStale.contains(entry.kind) {
                    if boards[entry.board] == nil, let now = await board(entry.board) { boards[entry.board] = now }
                    if let now = boards[entry.board], InboxRules.isStale(entry, on: now, today: clock.now().day) {
                        stale.append(entry.id)
                    }
                }
                if !stale.isEmpty {
                    try await store.markMailed(stale, at: clock.now())
                    due.removeAll { stale.contains($0.id) }
                }
                guard let oldest = due.first, clock.now().milliseconds - oldest.at.milliseconds >= notify.delayMs else { continue }
                let web = await settings.webURL().map(MailUnsubscribe.base)
                var unsubscribe: String?
                if let web { unsubscribe = MailUnsubscribe.link(base: web, user: user, token: try await unsubscribeToken(of: user, notify)) }
                let message = MailDigest.message(
                    to: address, user: user, entries: due, from: settings.from, webURL: web, unsubscribeURL: unsubscribe)
                switch await Self.pipe(message, to: command) {
                case .success:
                    try await store.markMailed(due.map(\.id), at: clock.now())
                    sent += 1
                    logger.info("mailed a digest", metadata: ["user": "\(user)", "entries": "\(due.count)"])
                case .failure(let problem):
                    logger.warning("the mail command failed; trying again", metadata: ["user": "\(user)", "error": "\(problem)"])
                }
            } catch {
                mailLog.failed(error, logger, metadata: ["user": "\(user)"])
            }
        }
        return sent
    }

    /// The user's unsubscribe secret, made and stored now for settings saved without one.
    private func unsubscribeToken(of user: UserID, _ notify: NotifySettings) async throws(StoreError) -> String {
        if let token = notify.unsubscribeToken { return token }
        var fresh = try await store.notifySettings(user: user) ?? notify
        if let token = fresh.unsubscribeToken { return token }
        let token = NotifySettings.newUnsubscribeToken()
        fresh.unsubscribeToken = token
        try await store.setNotifySettings(fresh, user: user)
        return token
    }

    /// Why a message could not be handed over.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `command` with `/bin/sh -c`, the message on its standard input; success when it exits 0 within a minute.
    static func pipe(_ message: String, to command: String) async -> Result<Void, Problem> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let finished = AsyncStream<Int32>.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(1))
        process.terminationHandler = { process in
            finished.continuation.yield(process.terminationStatus)
            finished.continuation.finish()
        }
        do {
            try process.run()
        } catch {
            return .failure(Problem(description: "cannot run \(command): \(error)"))
        }
        // Written from a thread of its own: a command that does not read its input must not block this task.
        let data = Data(message.utf8)
        Thread.detachNewThread {
            try? input.fileHandleForWriting.write(contentsOf: data)
            try? input.fileHandleForWriting.close()
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(60))
            if process.isRunning { process.terminate() }
        }
        defer { timeout.cancel() }
        var status: Int32 = -1
        for await code in finished.stream { status = code }
        guard status == 0 else {
            // One log record stays one line: the command's own line breaks (its last one most of all) become " / ".
            let said = String(decoding: output.fileHandleForReading.availableData.prefix(500), as: UTF8.self)
                .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                .joined(separator: " / ")
            return .failure(Problem(description: "\(command) exited \(status)\(said.isEmpty ? "" : ": " + said)"))
        }
        return .success(())
    }
}
