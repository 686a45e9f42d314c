import BoardTesting
import BoardTransport
import BoardWire
import Foundation
import NIOSSL
import Testing

/// What invite URLs name and pin: the host clients can reach (`--public-host`, or the machine's host name
/// for a wildcard bind, never `0.0.0.0`) and the certificate the server actually serves (`--cert` included).
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct AdvertisedAddressTests {
    /// The subject alternative names of a PEM certificate, as `openssl x509` prints them.
    static func subjectAltNames(_ file: URL, _ corkd: CorkdProcess) async throws -> String {
        let result = try await SpawnedProcess.run(
            try SpawnedProcess.tool("openssl"), ["x509", "-in", file.path, "-noout", "-ext", "subjectAltName"],
            logDirectory: corkd.logDirectory, name: "openssl-x509")
        return result.standardOutput
    }

    @Test func aWildcardBindAdvertisesTheMachinesHostNameAndSaysSo() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start(options: ["--host", "0.0.0.0"])
        let name = ProcessInfo.processInfo.hostName
        let owner = try #require(InviteURL(corkd.ownerURL))
        #expect(owner.host == name, "owner.url: \(corkd.ownerURL)")
        #expect(corkd.standardOutput.contains("invite URLs name \(name), this machine's host name (--public-host NAME to choose)"), "\(corkd.standardOutput)")
        let invite = try await corkd.invite("alice")
        #expect(invite.host == name && invite.port == corkd.port, "\(invite)")
        #expect(!corkd.standardOutput.contains("cork://0.0.0.0"), "\(corkd.standardOutput)")
        // Reachable on loopback through the wildcard, pinned.
        let probe = try await ProcessLifecycleTests.hello(corkd, token: invite.token, expectUser: "alice")
        await probe.close()
    }

    @Test func publicHostIsNamedInEveryURLAndInTheNewCertificate() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start(options: ["--public-host", "board.example.test"])
        let owner = try #require(InviteURL(corkd.ownerURL))
        #expect(owner.host == "board.example.test" && owner.port == corkd.port, "\(corkd.ownerURL)")
        let invite = try await corkd.invite("bob")
        #expect(invite.host == "board.example.test" && invite.port == corkd.port, "\(invite)")
        let names = try await Self.subjectAltNames(corkd.dataDirectory.appendingPathComponent("cert.pem"), corkd)
        #expect(names.contains("DNS:board.example.test"), "\(names)")

        // A later start under another public name points owner.url there too (same owner token).
        #expect(try await corkd.terminate().isSuccess)
        try await corkd.start(options: ["--public-host", "corkboard.example.test"])
        let text = try String(contentsOf: corkd.dataDirectory.appendingPathComponent("owner.url"), encoding: .utf8)
        let moved = try #require(InviteURL(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(moved.host == "corkboard.example.test" && moved.port == corkd.port && moved.token == owner.token, "\(text)")
    }

    /// Behind HAProxy on one machine a node cannot listen on the port clients use (HAProxy has it): `--public-port`
    /// puts that port in owner.url and every invite, while listen.json keeps the port the node listens on.
    @Test func publicPortIsNamedInEveryURLWhileTheNodeListensElsewhere() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try await corkd.start(options: ["--public-host", "board.example.test", "--public-port", "7420"])
        #expect(corkd.port != 7420)
        let owner = try #require(InviteURL(corkd.ownerURL))
        #expect(owner.host == "board.example.test" && owner.port == 7420, "\(corkd.ownerURL)")
        #expect(corkd.standardOutput.contains("invite URLs name port 7420 (server.public_port, --public-port)"), "\(corkd.standardOutput)")
        let invite = try await corkd.invite("bob")
        #expect(invite.host == "board.example.test" && invite.port == 7420, "\(invite)")
    }

    @Test func invitesPinTheCertificateGivenWithCertAndNeverMakeOne() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let certificate = corkd.root.appendingPathComponent("chain.pem")
        let key = corkd.root.appendingPathComponent("key.pem")
        let made = try await SpawnedProcess.run(
            try Unprivileged.tool("openssl"),
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout", key.path, "-out",
                certificate.path,
            ],
            logDirectory: corkd.logDirectory, name: "openssl-req", unprivileged: true)  // the key is the server's: nobody's
        try #require(made.exit.isSuccess, "openssl req: \(made.standardError)")
        let served = try Fingerprint(certificate: try #require(try NIOSSLCertificate.fromPEMFile(certificate.path).first))

        try await corkd.start(options: ["--cert", certificate.path, "--key", key.path])
        #expect(try corkd.pinned() == served, "owner.url pins the certificate given with --cert")
        let selfSigned = corkd.dataDirectory.appendingPathComponent("cert.pem")

        // The operator repeats the server's flags …
        let withFlags = try await corkd.admin(["invite", "--user", "carol", "--cert", certificate.path, "--key", key.path])
        #expect(withFlags.exit.isSuccess, "\(withFlags.standardError)")
        let carol = try #require(InviteURL(withFlags.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(carol.fingerprint.flatMap(Fingerprint.init) == served, "\(carol)")
        // … or does not: the fingerprint the server recorded is used.
        let dave = try await corkd.invite("dave")
        #expect(dave.fingerprint.flatMap(Fingerprint.init) == served, "\(dave)")
        #expect(!FileManager.default.fileExists(atPath: selfSigned.path), "an invite made a certificate nobody serves")

        // A client pinning the printed URL reaches the real server.
        let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try #require(dave.fingerprint.flatMap(Fingerprint.init)))
        try await probe.send(#"{"type":"hello","version":1,"client":"test","token":"\#(dave.token)"}"#)
        #expect(try await probe.expect(type: "welcome")["user"] as? String == "dave")
        await probe.close()
    }
}
