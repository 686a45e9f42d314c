import BoardCore

/// An invite URL: `cork://HOST:PORT/BOARD?token=TOKEN&fp=sha256:HEX` (Protocol.md, "Invite URLs").
///
/// Everything a client needs to connect securely: where, which board, the secret for `hello`, and the pinned
/// certificate fingerprint (without it the client verifies a CA chain and the host name).
public struct InviteURL: Hashable, Sendable, CustomStringConvertible {
    /// The file in corkd's data directory that holds the owner's invite URL (`owner.url`, written at the first start).
    public static let ownerFileName = "owner.url"

    /// The host name or address (IPv6 without brackets).
    public var host: String
    /// The port (7420 when the URL omits it).
    public var port: Int
    /// The board to open first.
    public var board: BoardID?
    /// The secret for `hello.token`.
    public var token: String
    /// `sha256:` and 64 lower-case hex digits, or nil for CA verification.
    public var fingerprint: String?

    /// The default port.
    public static let defaultPort = 7420

    /// Makes a URL.
    public init(host: String, port: Int = InviteURL.defaultPort, board: BoardID?, token: String, fingerprint: String?) {
        self.host = host
        self.port = port
        self.board = board
        self.token = token
        self.fingerprint = fingerprint
    }

    /// Parses a URL; nil when it is not a well-formed `cork://` invite (``parse(_:)`` says why).
    public init?(_ text: String) {
        guard case .success(let url) = Self.parse(text) else { return nil }
        self = url
    }

    /// Why a text is not an invite URL, in words a person who pasted it can act on.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Parses a URL, or says what is wrong with it (a URL cut short by a terminal's line wrap is the usual case).
    public static func parse(_ text: String) -> Result<InviteURL, Problem> {
        func problem(_ text: String) -> Result<InviteURL, Problem> { .failure(Problem(description: text)) }
        guard text.hasPrefix("cork://") else { return problem("it does not start with cork://") }
        var rest = Substring(text.dropFirst("cork://".count))
        var query = Substring("")
        if let q = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: q)...]
            rest = rest[..<q]
        }
        var path = Substring("")
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return problem("its IPv6 address has no closing ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                return problem("something follows its IPv6 address's ] that is not :PORT")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { return problem("it names no host") }
        var port = InviteURL.defaultPort
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else {
                return problem("its port \"\(portText)\" is not a number from 1 to 65535")
            }
            port = p
        }
        var board: BoardID?
        if !path.isEmpty {
            guard let id = BoardID(validating: String(path)) else {
                return problem("its board \"\(path)\" is not a board id (1–64 characters of A–Z a–z 0–9 _ . -)")
            }
            board = id
        }
        var token: String?
        var fingerprint: String?
        for pair in query.split(separator: "&") {
            // An empty value is kept, so that a URL cut right after `fp=` is refused rather than read as no fp.
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "token": token = String(parts[1])
            case "fp":
                let fp = String(parts[1]).lowercased()
                guard InviteURL.isFingerprint(fp) else {
                    return problem("its fp is not sha256: and 64 hex digits (was the URL cut short?)")
                }
                fingerprint = fp
            default: continue
            }
        }
        guard let token, !token.isEmpty else { return problem("it has no token=") }
        guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "&") && $0 != UInt8(ascii: "#") })
        else { return problem("its token has a character a token never has") }
        return .success(InviteURL(host: String(host), port: port, board: board, token: token, fingerprint: fingerprint))
    }

    /// The URL text.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        var text = "cork://\(shownHost):\(port)/\(board?.rawValue ?? "")?token=\(token)"
        if let fingerprint { text += "&fp=\(fingerprint)" }
        return text
    }

    /// Whether `text` is `sha256:` followed by 64 lower-case hex digits.
    public static func isFingerprint(_ text: String) -> Bool {
        guard text.hasPrefix("sha256:") else { return false }
        let hex = text.utf8.dropFirst(7)
        return hex.count == 64 && hex.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

extension InviteURL {
    /// The same invite for a browser: the web page at `base` with the token and board in the URL's fragment, which a
    /// browser never sends to a server (nor in a `Referer`); the page trades it for a session cookie at once.
    public func webLink(base: String) -> String {
        let root = base.hasSuffix("/") ? base : base + "/"
        var fragment = "token=" + token
        if let board { fragment += "&board=" + board.rawValue }
        return root + "#" + fragment
    }
}
