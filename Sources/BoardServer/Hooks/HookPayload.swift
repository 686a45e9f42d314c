import BoardCore
import BoardStore
import BoardWire
import Crypto
import Foundation

/// One delivery's body and headers: the JSON of one committed change (or of a test), signed with the hook's secret.
///
/// The body is `{"activity":…,"board":…,"delivery":…,"event":…,"hook":…,"seq":…,"timestamp":…}`; the signature is
/// HMAC-SHA256 over exactly these bytes, so `timestamp` (milliseconds, the attempt's time, also in
/// `X-Corkboard-Timestamp`) is signed too and a receiver can refuse a replayed delivery as too old.
struct HookPayload: Sendable {
    /// The bytes POSTed.
    let body: [UInt8]
    /// The event name (`card.move`, or `hook.test`).
    let event: String
    /// The delivery id: `<hook>.<seq>` for a change, the same for every attempt at it (receivers deduplicate on it).
    let delivery: String
    /// When this attempt was made (milliseconds since 1970).
    let timestamp: Int64
    /// `sha256=` and the lower-case hex HMAC-SHA256 of `body` keyed with the hook's secret.
    let signature: String

    /// The delivery of a committed change.
    init(hook: HookRecord, change: CommittedChange, now: Timestamp) {
        self.init(
            hook: hook, seq: change.seq, event: change.activity.kind, delivery: "\(hook.id).\(change.seq)",
            activity: LineWriter.activityJSON(change.activity), now: now)
    }

    /// A test delivery (`hook.test`) at the board's current seq, without an activity.
    static func test(hook: HookRecord, seq: UInt64, now: Timestamp, nonce: String) -> HookPayload {
        HookPayload(hook: hook, seq: seq, event: "hook.test", delivery: "\(hook.id).test-\(nonce)", activity: nil, now: now)
    }

    private init(hook: HookRecord, seq: UInt64, event: String, delivery: String, activity: String?, now: Timestamp) {
        var text = "{"
        if let activity { text += "\"activity\":" + activity + "," }
        text += "\"board\":"
        JSONEscaping.append(hook.board.rawValue, to: &text)
        text += ",\"delivery\":"
        JSONEscaping.append(delivery, to: &text)
        text += ",\"event\":"
        JSONEscaping.append(event, to: &text)
        text += ",\"hook\":"
        JSONEscaping.append(hook.id, to: &text)
        text += ",\"seq\":\(seq),\"timestamp\":\(now.milliseconds)}"
        body = Array(text.utf8)
        self.event = event
        self.delivery = delivery
        timestamp = now.milliseconds
        signature = Self.sign(body, secret: hook.secret)
    }

    /// `sha256=HEX` of HMAC-SHA256(`secret`, `body`).
    static func sign(_ body: [UInt8], secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Array(secret.utf8)))
        return "sha256=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// The headers sent with the body.
    var headers: [(String, String)] {
        [
            ("Content-Type", "application/json"),
            ("User-Agent", "corkd-hooks/0.1"),
            ("X-Corkboard-Event", event),
            ("X-Corkboard-Delivery", delivery),
            ("X-Corkboard-Timestamp", "\(timestamp)"),
            ("X-Corkboard-Signature", signature),
        ]
    }
}
