import BoardClient
import BoardCore
import BoardTesting
import Foundation
import Testing

/// The unsubscribe link of a digest mail, followed as a person (and a mail program) would: a real corkd mails
/// through msmtp to an SMTP sink, the link in the mail is opened, and its button stops the mail.
@Suite(
    .serialized, .enabled(if: SMTPSink.available, "needs msmtp and Python's aiosmtpd (.ci/run installs them)"),
    .startsProcesses(within: .minutes(3)))
struct MailUnsubscribeTests {
    @Test func theMailsOwnLinkStopsTheMail() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("unsub-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let sink = try await SMTPSink(in: work)
        defer { sink.stop() }
        let mailbox = sink.mailbox
        try await withCorkd(options: ["--mail-command", sink.command, "--mail-scan-interval-ms", "1000"]) { corkd in
            let port = try #require(corkd.webPort)
            var owner = try ClientConfiguration(invite: try #require(InviteURL(corkd.ownerURL)))
            owner.announcesPresence = false
            var tess = try ClientConfiguration(invite: try await corkd.invite("tess"))
            tess.announcesPresence = false
            try await withClient(owner) { alice in
                let settings = try await alice.notifySettings(email: "owner@example.com", delayMs: 1_000)
                #expect(settings.email == "owner@example.com")
                #expect(settings.unsubscribeToken == nil, "the secret stays on the server")
                try await withClient(tess) { tess in
                    _ = try await tess.perform(.chat(text: "@owner the build is red"))
                    let mail = try await mailbox.waitForMail(count: 1)
                    let header = try #require(mail.split(separator: "\r\n").first { $0.hasPrefix("List-Unsubscribe: <") })
                    #expect(mail.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"), "\(mail)")
                    let link = String(header.dropFirst("List-Unsubscribe: <".count).dropLast())
                    #expect(link.hasPrefix("http://127.0.0.1:\(port)/unsubscribe?user=owner&token="), "\(link)")
                    #expect(mail.contains("Or open this link: \(link)"))
                    let target = String(link.dropFirst("http://127.0.0.1:\(port)".count))

                    // Opening the link changes nothing: a mail scanner or a link preview opens links too.
                    let page = try await HTTPProbe.get(target, port: port)
                    #expect(page.status == 200)
                    #expect(page.body.contains("<form method=\"post\""), "\(page.body)")
                    #expect(try await alice.notifySettings().email == "owner@example.com")

                    // A wrong secret is refused and changes nothing.
                    let forged = try await HTTPProbe.get(
                        String(target.dropLast(4)) + "0000", port: port, method: "POST")
                    #expect(forged.status == 403)
                    #expect(try await alice.notifySettings().email == "owner@example.com")

                    // The button (the same POST a mail program's one-click unsubscribe sends).
                    let done = try await HTTPProbe.get(target, port: port, method: "POST")
                    #expect(done.status == 200)
                    #expect(done.body.contains("Corkboard mails nothing more to o…@example.com"), "\(done.body)")
                    // The command it gives to turn mail back on is one cork takes (`--email`, as `cork notify --help` says).
                    #expect(done.body.contains("<code>cork notify --email ADDRESS</code>"), "\(done.body)")
                    #expect(!done.body.contains("owner@example.com"), "whoever holds the link does not learn the address")
                    #expect(try await alice.notifySettings().email == nil)

                    // Another mention stays in the inbox only.
                    _ = try await tess.perform(.chat(text: "@owner one more"))
                    try await Task.sleep(for: .seconds(3))
                    #expect(try mailbox.mails().count == 1)
                    #expect(try await alice.inbox(unread: true).unread == 2)

                    // A new address gets a new secret: the old mail's link no longer works.
                    _ = try await alice.notifySettings(email: "owner@elsewhere.example")
                    let stale = try await HTTPProbe.get(target, port: port, method: "POST")
                    #expect(stale.status == 403)
                    #expect(try await alice.notifySettings().email == "owner@elsewhere.example")
                }
            }
        }
    }
}
