import Crypto
import Foundation

/// The web session cookie: the user's invite token, sealed (AES-GCM) with a key only this server has, so the token
/// itself never travels in a URL the browser keeps, a log or a `Referer` after the first exchange, and a page can
/// resume after a server restart. Whether the token still works is checked at each `hello`, so a revoked token ends
/// the web session at once.
///
/// Several nodes behind one proxy need the same key (`--web-key FILE` on each); a node with its own key makes its
/// own cookies and sends a page with another node's cookie back to its invite link.
public struct WebCookie: Sendable {
    /// The cookie's name.
    public static let name = "corkboard_session"
    /// The key file's name in the data directory.
    public static let keyFileName = "web-cookie.key"
    /// How long a browser keeps the cookie.
    public static let maxAgeSeconds = 30 * 24 * 3600

    /// The key's bytes (`SymmetricKey` is not `Sendable`; one is made for each use).
    let keyBytes: Data
    var key: SymmetricKey { SymmetricKey(data: keyBytes) }

    /// A cookie sealer with `key` (32 bytes).
    public init(key: Data) throws {
        guard key.count == 32 else { throw WebError("the web cookie key must be 32 bytes, not \(key.count)") }
        self.keyBytes = key
    }

    /// Reads the key at `url`, or makes one there (32 random bytes, mode 0600) when there is none.
    public static func loadOrCreate(at url: URL) throws -> WebCookie {
        if let data = FileManager.default.contents(atPath: url.path) {
            return try WebCookie(key: data)
        }
        let key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        guard FileManager.default.createFile(atPath: url.path, contents: key, attributes: [.posixPermissions: 0o600]) else {
            throw WebError("cannot write the web cookie key \(url.path)")
        }
        return try WebCookie(key: key)
    }

    /// The cookie's value for `token`, or nil if sealing failed (it does not with a 256-bit key and a fresh nonce;
    /// the caller answers with an error rather than trap).
    public func seal(_ token: String) -> String? {
        guard let box = try? AES.GCM.seal(Data(token.utf8), using: key), let combined = box.combined else { return nil }
        return Self.base64url(combined)
    }

    /// The token in a cookie's value, or nil when it was not sealed with this key (or was altered).
    public func open(_ value: String) -> String? {
        guard let data = Self.unbase64url(value), let box = try? AES.GCM.SealedBox(combined: data),
            let plain = try? AES.GCM.open(box, using: key)
        else { return nil }
        return String(data: plain, encoding: .utf8)
    }

    /// The `Set-Cookie` header's value for `token`: HttpOnly, SameSite=Strict, Secure when served over TLS; nil if
    /// the token could not be sealed.
    public func setCookie(_ token: String, secure: Bool) -> String? {
        guard let value = seal(token) else { return nil }
        return "\(Self.name)=\(value); Path=/; Max-Age=\(Self.maxAgeSeconds); HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that removes the cookie.
    public static func clearCookie(secure: Bool) -> String {
        "\(name)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The session cookie's value in a `Cookie` header, if any.
    public static func value(inCookieHeader header: String) -> String? {
        for pair in header.split(separator: ";") {
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            if trimmed[..<equals] == name { return String(trimmed[trimmed.index(after: equals)...]) }
        }
        return nil
    }

    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func unbase64url(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// A web listener's error (set-up, a bad key file).
public struct WebError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
