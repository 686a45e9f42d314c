import Foundation

/// How a user wants to be told by mail of inbox entries they have not read: an address, a level per board, and
/// how long an entry stays unread before it is mailed.
public struct NotifySettings: Hashable, Sendable, Codable {
    /// Which entries go out by mail (WeeChat's notify levels).
    public enum Level: String, Hashable, Sendable, Codable, CaseIterable {
        /// Every entry.
        case all
        /// Mentions, assignments and reminders (the default).
        case mentions
        /// None.
        case none
    }

    /// Where mail goes; nil: no mail.
    public var email: String?
    /// The level on every board without one of its own.
    public var level: Level
    /// Levels of single boards.
    public var boards: [BoardID: Level]
    /// How long an entry stays unread before it is mailed, in milliseconds (default 10 minutes).
    public var delayMs: Int64
    /// The secret in the mails' unsubscribe link (made when there is an address; never sent to a client).
    public var unsubscribeToken: String?

    /// The defaults: no address, `mentions`, 10 minutes.
    public init(email: String? = nil, level: Level = .mentions, boards: [BoardID: Level] = [:], delayMs: Int64 = 600_000) {
        self.email = email
        self.level = level
        self.boards = boards
        self.delayMs = delayMs
    }

    enum CodingKeys: String, CodingKey {
        case email, level, boards
        case delayMs = "delay_ms"
        case unsubscribeToken = "unsubscribe_token"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        level = try c.decodeIfPresent(Level.self, forKey: .level) ?? .mentions
        let raw = try c.decodeIfPresent([String: Level].self, forKey: .boards) ?? [:]
        boards = Dictionary(uniqueKeysWithValues: raw.map { (BoardID($0.key), $0.value) })
        delayMs = try c.decodeIfPresent(Int64.self, forKey: .delayMs) ?? 600_000
        unsubscribeToken = try c.decodeIfPresent(String.self, forKey: .unsubscribeToken)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encode(level, forKey: .level)
        try c.encode(Dictionary(uniqueKeysWithValues: boards.map { ($0.key.rawValue, $0.value) }), forKey: .boards)
        try c.encode(delayMs, forKey: .delayMs)
        try c.encodeIfPresent(unsubscribeToken, forKey: .unsubscribeToken)
    }

    /// These settings as a client is shown them: without the unsubscribe secret.
    public var shown: NotifySettings {
        var copy = self
        copy.unsubscribeToken = nil
        return copy
    }

    /// A new unsubscribe secret: 128 random bits as 32 hex digits.
    public static func newUnsubscribeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Whether `token` is this user's unsubscribe secret, compared in time that does not depend on where they differ.
    public func unsubscribes(with token: String) -> Bool {
        guard let secret = unsubscribeToken, secret.utf8.count == token.utf8.count else { return false }
        return zip(secret.utf8, token.utf8).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Shortest and longest delay, in milliseconds (1 s is for tests and the impatient; a day at most).
    public static let delayRange: ClosedRange<Int64> = 1_000...86_400_000

    /// Whether `entry` goes out by mail at this user's levels.
    public func mails(_ entry: InboxEntry) -> Bool {
        switch boards[entry.board] ?? level {
        case .all: true
        case .mentions: [.mention, .assigned, .dueSoon, .overdue].contains(entry.kind)
        case .none: false
        }
    }

    /// What is wrong with an address, or nil: one `@`, something on both sides, no spaces or control characters (C0,
    /// DEL or C1: a terminal or the mail command's `To:` would read them),
    /// at most 254 bytes.
    public static func addressProblem(_ address: String) -> String? {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, parts[1].contains("."), address.utf8.count <= 254,
            !address.unicodeScalars.contains(where: { $0.value <= 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "<" || $0 == ">" || $0 == "," })
        else { return "not a mail address: \(JSONEscaping.literal(address))" }
        return nil
    }
}

/// One digest mail of unread inbox entries, as the text a `sendmail -t` reads (headers, a blank line, the body).
public enum MailDigest {
    /// The message for `entries` (oldest first) to `address`.
    ///
    /// With `unsubscribeURL`, the message carries it as `List-Unsubscribe` with RFC 8058's one-click POST (mail
    /// programs show an "Unsubscribe" button) and in its last line.
    public static func message(
        to address: String, user: UserID, entries: [InboxEntry], from sender: String, webURL: String?,
        unsubscribeURL: String? = nil
    ) -> String {
        let count = entries.count
        let first = entries.first.map { "\($0.actor) on \($0.board): \($0.text)" } ?? ""
        let subject = count == 1 ? "[Corkboard] \(first)" : "[Corkboard] \(count) unread: \(first)"
        var lines = [
            "From: Corkboard <\(sender)>",
            "To: <\(address)>",
            "Subject: \(headerText(subject))",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
            "Auto-Submitted: auto-generated",
        ]
        if let unsubscribeURL {
            lines.append("List-Unsubscribe: <\(unsubscribeURL)>")
            lines.append("List-Unsubscribe-Post: List-Unsubscribe=One-Click")
        }
        lines += [
            "",
            "Hello \(user), you have \(count == 1 ? "an unread notification" : "\(count) unread notifications") on Corkboard:",
            "",
        ]
        for entry in entries {
            lines.append("  \(entry.board) · \(entry.kind) · \(entry.actor) · \(utc(entry.at))")
            lines.append("    \(entry.text)")
        }
        lines.append("")
        lines.append("Read them with `cork inbox`" + (webURL.map { " or at \($0)" } ?? "") + ".")
        lines.append("No more of these mails: `cork notify --mail off` (or `--level none --board BOARD` for one board).")
        if let unsubscribeURL { lines.append("Or open this link: \(unsubscribeURL)") }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A header value on one line, without control characters, at most 200 characters; RFC 2047 encoded when it
    /// is not ASCII.
    static func headerText(_ text: String) -> String {
        var line = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        if line.count > 200 { line = String(line.prefix(199)) + "…" }
        guard line.unicodeScalars.contains(where: { $0.value > 0x7E }) else { return line }
        return "=?UTF-8?B?" + Data(line.utf8).base64EncodedString() + "?="
    }

    static func utc(_ at: Timestamp) -> String {
        let day = at.day
        let ms = at.milliseconds - Int64(day.daysSinceEpoch) * 86_400_000
        let minutes = ms / 60_000
        return "\(day) \(format2(minutes / 60)):\(format2(minutes % 60)) UTC"
    }

    static func format2(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
