import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates the server's self-signed certificate, and keeps it in the data directory.
///
/// The certificate has an ECDSA P-256 key (it signs about 12 times faster than RSA-2048), subject `CN=corkd`, a
/// random serial, a SAN for every host (`dNSName`, or `iPAddress` for an IP literal), `basicConstraints` CA false,
/// `keyUsage` digitalSignature and `extendedKeyUsage` serverAuth. Clients pin it by its ``Fingerprint``.
public enum SelfSignedCertificate {
    /// The file name of the certificate in a data directory.
    public static let certificateFileName = "cert.pem"
    /// The file name of the private key in a data directory (mode 0600).
    public static let privateKeyFileName = "key.pem"
    /// The default validity of a generated certificate, in days.
    public static let defaultValidityDays = 3650

    /// Generates a certificate valid for `hosts` from one hour before `now` (tolerating small clock skew) until
    /// `validityDays` after `now`. Returns the PEM of the certificate and of the PKCS#8 private key, and the
    /// certificate's fingerprint.
    public static func generate(
        hosts: [String], now: Date = Date(), validityDays: Int = defaultValidityDays
    ) throws -> (certificatePEM: String, privateKeyPEM: String, fingerprint: Fingerprint) {
        guard !hosts.isEmpty else { throw TransportError(.invalidHost, "a certificate needs at least one host") }
        let names = try hosts.map(generalName(for:))
        let key = P256.Signing.PrivateKey()
        let signingKey = Certificate.PrivateKey(key)
        let subject = try DistinguishedName { CommonName("corkd") }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(names)
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: signingKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(TimeInterval(validityDays) * 86_400),
            issuer: subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: signingKey)
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return (
            certificatePEM: try certificate.serializeAsPEM().pemString,
            privateKeyPEM: key.pemRepresentation,
            fingerprint: Fingerprint(derBytes: serializer.serializedBytes)
        )
    }

    /// Loads `cert.pem` and `key.pem` from `directory`, or generates them for `hosts` when both are absent.
    ///
    /// The directory is created (mode 0700) if needed; the key is written with mode 0600 and never overwritten.
    /// Only one of the two files present is an error: the other is not silently replaced.
    public static func loadOrCreate(
        in directory: URL, hosts: [String]
    ) throws -> (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey, fingerprint: Fingerprint, created: Bool) {
        let certificateURL = directory.appendingPathComponent(certificateFileName)
        let keyURL = directory.appendingPathComponent(privateKeyFileName)
        let files = FileManager.default
        let hasCertificate = files.fileExists(atPath: certificateURL.path)
        let hasKey = files.fileExists(atPath: keyURL.path)

        var created = false
        switch (hasCertificate, hasKey) {
        case (true, true):
            break
        case (false, false):
            try files.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let generated = try generate(hosts: hosts)
            try writeExclusively(Array(generated.privateKeyPEM.utf8), to: keyURL.path, mode: 0o600)
            try Data(generated.certificatePEM.utf8).write(to: certificateURL, options: .atomic)
            created = true
        case (true, false), (false, true):
            let missing = hasCertificate ? keyURL.path : certificateURL.path
            throw TransportError(
                .certificateFiles,
                "\(missing) is missing while its partner exists; restore it, or remove both files to generate a new certificate"
            )
        }

        let chain = try NIOSSLCertificate.fromPEMFile(certificateURL.path)
        guard let leaf = chain.first else {
            throw TransportError(.certificateFiles, "\(certificateURL.path) holds no certificate")
        }
        let key = try NIOSSLPrivateKey(file: keyURL.path, format: .pem)
        return (chain, key, try Fingerprint(certificate: leaf), created)
    }

    // MARK: Internals

    /// A SAN entry: `iPAddress` for an IPv4 or IPv6 literal, `dNSName` otherwise.
    static func generalName(for host: String) throws -> GeneralName {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return .ipAddress(ASN1OctetString(contentBytes: withUnsafeBytes(of: &v4) { ArraySlice($0) }))
        }
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return .ipAddress(ASN1OctetString(contentBytes: withUnsafeBytes(of: &v6) { ArraySlice($0) }))
        }
        let valid = !host.isEmpty && host.utf8.count <= 253
            && host.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "*"):
                    true
                default: false
                }
            }
        guard valid else { throw TransportError(.invalidHost, "\(host) is neither a DNS name nor an IP address") }
        return .dnsName(host)
    }

    /// Creates `path` with `mode` and writes `bytes`, failing if the file exists (no window with wider permissions).
    private static func writeExclusively(_ bytes: [UInt8], to path: String, mode: mode_t) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw posixError(path) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw posixError(path)
            }
            offset += written
        }
        guard fsync(fd) == 0 else { throw posixError(path) }
    }

    private static func posixError(_ path: String) -> any Error {
        TransportError(.certificateFiles, "\(path): \(String(cString: strerror(errno)))")
    }
}
