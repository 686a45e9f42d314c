import BoardCore
import BoardTesting
import Foundation
import Testing

@testable import BoardServer

/// Escalation by mail through a real local mail path: corkd pipes each digest to `msmtp` (the sendmail interface),
/// which delivers it over SMTP to an aiosmtpd sink on 127.0.0.1. Two mentions within the delay go out as one
/// message; an entry read in time never goes out; `mail off` stops it.
@Suite(
    .serialized, .enabled(if: SMTPSink.available, "needs msmtp and Python's aiosmtpd (.ci/run installs them)"),
    .startsProcesses(within: .minutes(2)))
struct MailDigestTests {
    @Test func unreadMentionsGoOutAsOneDigestAfterTheDelay() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let sink = try await SMTPSink(in: work)
        defer { sink.stop() }
        let mailbox = sink.mailbox
        let command = sink.command

        try await withTestServer(configure: {
            $0.mail.command = command
            $0.mail.from = "corkd@localhost"
            $0.mail.scanInterval = .milliseconds(100)
        }) { server in
            let owner = try await server.connect()
            // The delay is read at each scan: held at an hour while the mentions are made and read, so that a busy
            // machine cannot make one due early; then at a second, when every unread one is due at once.
            var req = 0
            func notify(_ fields: String) async throws -> [String: Any] {
                req += 1
                try await owner.send(#"{"type":"notify","req":\#(req),\#(fields)}"#)
                return try await InboxTests.next("notify", from: owner)
            }
            let settings = try await notify(#""email":"owner@example.com","delay_ms":3600000"#)
            #expect((settings["settings"] as? [String: Any])?["email"] as? String == "owner@example.com", "\(settings)")
            let bob = try await server.connect(token: try await server.invite("bob"))
            var mut = 0
            func say(_ text: String) async throws { _ = try await InboxTests.chat(text, from: bob, mut: &mut) }
            try await say("@owner the build is red")
            try await say("@owner and the deploy is stuck")
            // Both reach the inbox; neither is read.
            _ = try await InboxTests.next("inbox.entry", from: owner)
            _ = try await InboxTests.next("inbox.entry", from: owner)
            _ = try await notify(#""delay_ms":1000"#)

            let first = try await mailbox.waitForMail(count: 1)
            #expect(first.contains("X-Envelope-To: owner@example.com"), "\(first)")
            #expect(first.contains("Subject: [Corkboard] 2 unread: bob on main: @owner the build is red"), "\(first)")
            #expect(first.contains("@owner the build is red") && first.contains("@owner and the deploy is stuck"), "\(first)")
            #expect(first.contains("cork notify --mail off"))

            // A third mention, read before it is due: never mailed, also once a second has passed.
            _ = try await notify(#""delay_ms":3600000"#)
            try await say("@owner never mind")
            let third = try #require(try await InboxTests.next("inbox.entry", from: owner)["entry"] as? [String: Any])
            req += 1
            try await owner.send(#"{"type":"inbox.read","req":\#(req),"ids":[\#(try #require(third["id"] as? Int))]}"#)
            _ = try await InboxTests.next("ok", from: owner)
            _ = try await notify(#""delay_ms":1000"#)
            try await Task.sleep(for: .seconds(2))
            let afterRead = try mailbox.mails()
            #expect(afterRead.count == 1, "the read entry went out anyway: \(afterRead.dropFirst())")

            // Mail off: a fourth mention stays in the inbox only.
            _ = try await notify(#""email":"""#)
            try await say("@owner one more")
            try await Task.sleep(for: .seconds(2))
            let afterOff = try mailbox.mails()
            #expect(afterOff.count == 1, "mailed with mail off: \(afterOff.dropFirst())")
            for probe in [owner, bob] { await probe.close() }
        }
    }
}
