import BoardTesting
import BoardTransport
import Foundation
import NIOSSL
import SwiftASN1
import Testing
import X509

@Suite("Certificates and fingerprints")
struct CertificateTests {
    @Test("a generated certificate parses, carries every SAN and the server-only extensions")
    func generatedCertificate() throws {
        let hosts = ["localhost", "127.0.0.1", "::1", "corkd.example.org"]
        let generated = try SelfSignedCertificate.generate(hosts: hosts, now: Date(), validityDays: 30)
        _ = try NIOSSLCertificate(bytes: Array(generated.certificatePEM.utf8), format: .pem)
        _ = try NIOSSLPrivateKey(bytes: Array(generated.privateKeyPEM.utf8), format: .pem)
        #expect(generated.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))

        let certificate = try Certificate(pemEncoded: generated.certificatePEM)
        #expect(certificate.subject.description == "CN=corkd")
        #expect(certificate.issuer == certificate.subject)
        #expect(certificate.publicKey.description == "P256.PublicKey")
        #expect(certificate.signatureAlgorithm == .ecdsaWithSHA256)
        #expect(certificate.serialNumber.bytes.count >= 8)

        let sans = try #require(try certificate.extensions.subjectAlternativeNames)
        #expect(sans.contains(.dnsName("localhost")))
        #expect(sans.contains(.dnsName("corkd.example.org")))
        #expect(sans.contains(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))))
        #expect(sans.contains(.ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1])))))
        #expect(sans.count == 4)

        #expect(try certificate.extensions.basicConstraints == .notCertificateAuthority)
        let keyUsage = try #require(try certificate.extensions.keyUsage)
        #expect(keyUsage.digitalSignature)
        #expect(!keyUsage.keyCertSign)
        let eku = try #require(try certificate.extensions.extendedKeyUsage)
        #expect(Array(eku) == [.serverAuth])

        let lifetime = certificate.notValidAfter.timeIntervalSince(certificate.notValidBefore)
        #expect(abs(lifetime - (30 * 86_400 + 3600)) < 2)
    }

    @Test("the fingerprint is stable and equals openssl's SHA-256 fingerprint of the PEM", .startsProcesses(within: .minutes(1)))
    func fingerprintMatchesOpenSSL() async throws {
        let generated = try SelfSignedCertificate.generate(hosts: ["localhost"])
        let certificate = try NIOSSLCertificate(bytes: Array(generated.certificatePEM.utf8), format: .pem)
        #expect(try Fingerprint(certificate: certificate) == generated.fingerprint)
        #expect(try Fingerprint(certificate: certificate) == Fingerprint(derBytes: certificate.toDERBytes()))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fp-\(UUID().uuidString).pem")
        try Data(generated.certificatePEM.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await runProcess(
            "/usr/bin/openssl", ["x509", "-noout", "-fingerprint", "-sha256", "-in", file.path], timeout: 10)
        #expect(result.status == 0, "\(result.output)")
        // "sha256 Fingerprint=AB:CD:…" (the label's case differs between OpenSSL versions).
        let value = try #require(result.output.split(separator: "=").last)
        let normalised = value.replacingOccurrences(of: ":", with: "").lowercased()
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect("sha256:" + normalised == generated.fingerprint.description)
        #expect(Fingerprint("sha256:" + value.trimmingCharacters(in: .whitespacesAndNewlines)) == generated.fingerprint)
        // corkd prints the same fingerprint in openssl's own form too, character for character.
        #expect(generated.fingerprint.opensslForm == value.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("fingerprints print as sha256:<64 lowercase hex> and parse back; malformed ones are refused")
    func fingerprintText() throws {
        let fingerprint = Fingerprint(derBytes: [1, 2, 3])
        let text = fingerprint.description
        #expect(text.hasPrefix("sha256:"))
        #expect(text.count == 7 + 64)
        #expect(text == text.lowercased())
        #expect(Fingerprint(text) == fingerprint)
        #expect(try Fingerprint.parse(text.uppercased()) == fingerprint)
        #expect(fingerprint.hex == "039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81")
        for bad in ["", "sha256:", "sha1:" + fingerprint.hex, fingerprint.hex, text + "00", String(text.dropLast()),
            "sha256:" + String(repeating: "g", count: 64)]
        {
            #expect(Fingerprint(bad) == nil, "\(bad)")
            #expect(throws: TransportError.self) { try Fingerprint.parse(bad) }
        }
    }

    @Test("a host that is neither a DNS name nor an IP address is refused")
    func badHost() {
        #expect(throws: TransportError.self) { try SelfSignedCertificate.generate(hosts: []) }
        #expect(throws: TransportError.self) { try SelfSignedCertificate.generate(hosts: ["bad host"]) }
    }

    @Test("loadOrCreate writes cert.pem and key.pem (0600) once, then loads the same certificate")
    func loadOrCreate() throws {
        try withTemporaryDirectory { root in
            let directory = root.appendingPathComponent("data")
            let first = try SelfSignedCertificate.loadOrCreate(in: directory, hosts: ["localhost", "127.0.0.1"])
            #expect(first.created)
            #expect(first.chain.count == 1)
            let keyPath = directory.appendingPathComponent("key.pem").path
            let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(try Fingerprint(certificate: first.chain[0]) == first.fingerprint)
            _ = try TLSSetup.serverContext(certificateChain: first.chain, privateKey: first.key)

            let second = try SelfSignedCertificate.loadOrCreate(in: directory, hosts: ["localhost"])
            #expect(!second.created)
            #expect(second.fingerprint == first.fingerprint)

            try FileManager.default.removeItem(atPath: keyPath)
            #expect(throws: TransportError.self) {
                try SelfSignedCertificate.loadOrCreate(in: directory, hosts: ["localhost"])
            }
            #expect(!FileManager.default.fileExists(atPath: keyPath), "nothing is silently regenerated")
        }
    }
}
