import Crypto
import Foundation

/// Bearer tokens: how they are made and how they are stored.
///
/// A token is `ck_` followed by 32 random bytes in base64url without padding (43 characters). The store keeps
/// only its SHA-256 hash, so a copy of the database does not hand out working tokens.
enum Token {
    /// The prefix that marks a Corkboard token (helps secret scanners and people recognise one).
    static let prefix = "ck_"
    /// Random bytes per token (256 bits).
    static let randomByteCount = 32

    /// A new random token, from the system's cryptographically secure generator.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: randomByteCount)
        for i in bytes.indices { bytes[i] = generator.next() }
        return prefix + base64URL(bytes)
    }

    /// The SHA-256 hash of the token's UTF-8 bytes: what the store keeps and looks tokens up by.
    static func hash(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }

    /// Base64url without padding (RFC 4648 §5).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
