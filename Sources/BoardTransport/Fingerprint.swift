import Crypto
import NIOSSL

/// The SHA-256 fingerprint of a certificate's DER encoding, written `sha256:` plus 64 lowercase hex digits.
///
/// Clients pin a server's certificate by it (the `fp` of an invite URL). It equals what
/// `openssl x509 -noout -fingerprint -sha256` prints, without the colons and in lowercase.
public struct Fingerprint: Hashable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// The 32 digest bytes.
    public let bytes: [UInt8]

    /// The fingerprint of a certificate given as DER bytes.
    public init(derBytes: some Sequence<UInt8>) {
        bytes = Array(SHA256.hash(data: Array(derBytes)))
    }

    /// The fingerprint of a certificate.
    public init(certificate: NIOSSLCertificate) throws {
        self.init(derBytes: try certificate.toDERBytes())
    }

    /// Parses `sha256:` followed by 64 hex digits; upper case and colons between digit pairs (OpenSSL's form) are
    /// accepted too. Returns `nil` for anything else.
    public init?(_ description: String) {
        guard let parsed = try? Fingerprint.parse(description) else { return nil }
        self = parsed
    }

    /// Parses `sha256:` followed by 64 hex digits (case-insensitive, colons between pairs allowed).
    public static func parse(_ text: String) throws(TransportError) -> Fingerprint {
        let invalid = TransportError(
            .invalidFingerprint, "a fingerprint is `sha256:` followed by 64 hex digits")
        var utf8 = Substring(text).utf8
        let prefix = "sha256:".utf8
        guard utf8.count > prefix.count,
            zip(utf8.prefix(prefix.count), prefix).allSatisfy({ $0 | 0x20 == $1 | 0x20 })
        else { throw invalid }
        utf8 = utf8.dropFirst(prefix.count)
        var digits: [UInt8] = []
        digits.reserveCapacity(64)
        for byte in utf8 where byte != UInt8(ascii: ":") {
            guard let value = Fingerprint.hexValue(byte) else { throw invalid }
            digits.append(value)
        }
        guard digits.count == 64 else { throw invalid }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) { bytes.append(digits[index] << 4 | digits[index + 1]) }
        return Fingerprint(bytes: bytes)
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// The 64 lowercase hex digits without the `sha256:` prefix.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `sha256:` followed by 64 lowercase hex digits.
    public var description: String { "sha256:" + hex }

    /// The form `openssl x509 -noout -fingerprint -sha256` prints: uppercase hex pairs joined by colons
    /// (`5A:C7:8F:…`), so an operator can compare the two without reading one against the other by eye.
    public var opensslForm: String {
        let upper = hex.uppercased()
        var pairs: [Substring] = []
        var index = upper.startIndex
        while index < upper.endIndex {
            let next = upper.index(index, offsetBy: 2)
            pairs.append(upper[index..<next])
            index = next
        }
        return pairs.joined(separator: ":")
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
