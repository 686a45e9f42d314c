import Foundation
import Testing

@testable import BoardCore

/// The mail settings' unsubscribe secret and the digest message that carries its link.
@Suite struct NotifySettingsTests {
    static let entry = InboxEntry(
        id: 1, user: "alice", board: "main", seq: 4, card: "c1", kind: .mention, actor: "bob",
        at: Timestamp(milliseconds: 1_767_261_700_000), text: "#1 Ship: @alice look")

    /// A mail address with a control character is refused, C1 too (U+009B is a terminal's CSI, U+0085 a line break
    /// to some readers): it is printed by `cork notify` and written into the mail's `To:`.
    @Test func anAddressWithAControlCharacterIsRefused() {
        #expect(NotifySettings.addressProblem("alice@example.com") == nil)
        for bad in ["a\u{1B}[31m@x.com", "a\u{7F}@x.com", "a\u{85}b@x.com", "a\u{9B}31m@x.com", "a b@x.com"] {
            #expect(NotifySettings.addressProblem(bad) != nil, "\(bad.debugDescription)")
        }
    }

    @Test func onlyTheExactSecretUnsubscribes() {
        var settings = NotifySettings(email: "alice@example.com")
        #expect(!settings.unsubscribes(with: ""), "no secret yet: nothing matches")
        let token = NotifySettings.newUnsubscribeToken()
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
        #expect(token != NotifySettings.newUnsubscribeToken())
        settings.unsubscribeToken = token
        #expect(settings.unsubscribes(with: token))
        #expect(!settings.unsubscribes(with: String(token.dropLast()) + (token.last == "0" ? "1" : "0")))
        #expect(!settings.unsubscribes(with: String(token.dropLast())))
        #expect(!settings.unsubscribes(with: token + "0"))
        #expect(settings.shown.unsubscribeToken == nil)
        #expect(settings.shown.email == settings.email)
    }

    @Test func theSecretIsStoredButNeverInTheShownForm() throws {
        var settings = NotifySettings(email: "alice@example.com")
        settings.unsubscribeToken = "00ff"
        let stored = try JSONDecoder().decode(NotifySettings.self, from: JSONEncoder().encode(settings))
        #expect(stored == settings)
        let shown = String(decoding: try JSONEncoder().encode(settings.shown), as: UTF8.self)
        #expect(!shown.contains("unsubscribe"))
    }

    @Test func aDigestCarriesItsUnsubscribeLinkInAHeaderAndItsText() {
        let link = "https://board.example.com/unsubscribe?user=alice&token=00ff"
        let message = MailDigest.message(
            to: "alice@example.com", user: "alice", entries: [Self.entry], from: "corkd@example.com",
            webURL: "https://board.example.com/", unsubscribeURL: link)
        let lines = message.components(separatedBy: "\r\n")
        let blank = lines.firstIndex(of: "") ?? lines.count
        #expect(lines[..<blank].contains("List-Unsubscribe: <\(link)>"), "a header, before the body")
        #expect(lines[..<blank].contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click"))
        #expect(lines[blank...].contains("Or open this link: \(link)"))
        let without = MailDigest.message(
            to: "alice@example.com", user: "alice", entries: [Self.entry], from: "corkd@example.com", webURL: nil)
        #expect(!without.contains("List-Unsubscribe"))
        #expect(without.contains("cork notify --mail off"))
    }
}
