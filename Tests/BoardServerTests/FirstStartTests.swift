import BoardServer
import BoardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A first start is all or nothing (`FirstStart`): killed at any step, the next start makes it again and serves;
/// a directory damaged after its first start is still refused (exit 2).
@Suite(.serialized, .startsProcesses(within: .minutes(4))) struct FirstStartTests {
    /// What a first start killed at one step leaves behind, besides `first-start.pending`.
    enum Step: String, CaseIterable, CustomTestStringConvertible {
        case markOnly = "the mark only"
        case key = "the private key"
        case keyAndCertificate = "the key and the certificate"
        case emptyStore = "the key, the certificate and a 0-byte store"

        var files: [String: Data] {
            let pem = Data("-----BEGIN PRIVATE KEY-----\nhalf written\n".utf8)
            switch self {
            case .markOnly: return [:]
            case .key: return ["key.pem": pem]
            case .keyAndCertificate: return ["key.pem": pem, "cert.pem": Data("-----BEGIN CERTIFICATE-----\n".utf8)]
            case .emptyStore: return ["key.pem": pem, "cert.pem": Data(), "corkd.sqlite": Data()]
            }
        }

        var testDescription: String { rawValue }
    }

    /// Writes `files` and the mark into the fresh data directory, owned by the user corkd runs as.
    static func leave(_ files: [String: Data], mark: Bool, in corkd: CorkdProcess) throws {
        try FileManager.default.createDirectory(
            at: corkd.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var all = files
        if mark { all[FirstStart.markFileName] = Data() }
        for (name, bytes) in all {
            let url = corkd.dataDirectory.appendingPathComponent(name)
            try #require(FileManager.default.createFile(atPath: url.path, contents: bytes, attributes: [.posixPermissions: 0o600]))
        }
        try Unprivileged.handOver(corkd.root)
    }

    /// The server serves its owner: the owner URL it wrote lets the owner in.
    static func expectServing(_ corkd: CorkdProcess) async throws {
        let probe = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken, expectUser: "owner")
        try await probe.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"first words"}}"#)
        _ = try await probe.expect(type: "ack")
        await probe.close()
        let mark = corkd.dataDirectory.appendingPathComponent(FirstStart.markFileName)
        #expect(!FileManager.default.fileExists(atPath: mark.path), "the mark is gone once the first start is done")
    }

    @Test(arguments: Step.allCases)
    func aFirstStartStoppedAtAnyStepIsMadeAgain(_ step: Step) async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        try Self.leave(step.files, mark: true, in: corkd)
        try await corkd.start()
        #expect(corkd.standardError.contains("an earlier first start was stopped before it finished"), "\(corkd.standardError.suffix(2000))")
        try await Self.expectServing(corkd)
    }

    /// The same files without the mark are damage done after a first start that finished: refused, untouched.
    @Test func withoutTheMarkAHalfDirectoryIsRefusedWithExitTwo() async throws {
        for step in [Step.key, .emptyStore] {
            let corkd = try CorkdProcess()
            defer { corkd.cleanup() }
            try Self.leave(step.files, mark: false, in: corkd)
            let (exit, stderr) = try await corkd.startExpectingExit(timeout: .seconds(60))
            #expect(exit.reason == .exit && exit.status == 2, "\(step.rawValue): \(exit); \(stderr.suffix(2000))")
            let names = try FileManager.default.contentsOfDirectory(atPath: corkd.dataDirectory.path)
            for name in step.files.keys { #expect(names.contains(name), "\(step.rawValue): \(name) was left in place") }
        }
    }

    /// A directory that served once and lost its certificate is damage: refused with exit 2, as before.
    @Test func aServedDirectoryMissingItsCertificateIsRefused() async throws {
        try await withCorkd { corkd in
            _ = try await corkd.terminate()
            try FileManager.default.removeItem(at: corkd.dataDirectory.appendingPathComponent("cert.pem"))
            let (exit, stderr) = try await corkd.startExpectingExit(timeout: .seconds(60))
            #expect(exit.reason == .exit && exit.status == 2, "\(exit); \(stderr.suffix(2000))")
            #expect(stderr.contains("missing while its partner exists"), "\(stderr.suffix(2000))")
        }
    }

    /// A directory that served once and lost its store (a restore that stopped half way, a file removed) is damage
    /// too: refused with exit 2, naming what shows it served. It had started a new, empty server in its place, with
    /// a new owner token, and every user's token was unknown.
    @Test func aServedDirectoryMissingItsStoreIsRefused() async throws {
        try await withCorkd { corkd in
            _ = try await corkd.terminate()
            let owner = try String(contentsOf: corkd.dataDirectory.appendingPathComponent("owner.url"), encoding: .utf8)
            try FileManager.default.removeItem(at: corkd.dataDirectory.appendingPathComponent("corkd.sqlite"))
            let (exit, stderr) = try await corkd.startExpectingExit(timeout: .seconds(60))
            #expect(exit.reason == .exit && exit.status == 2, "\(exit); \(stderr.suffix(2000))")
            #expect(stderr.contains("corkd.sqlite is missing") && stderr.contains("owner.url"), "\(stderr.suffix(2000))")
            let names = try FileManager.default.contentsOfDirectory(atPath: corkd.dataDirectory.path)
            #expect(!names.contains("corkd.sqlite"), "no new store was made: \(names)")
            let after = try String(contentsOf: corkd.dataDirectory.appendingPathComponent("owner.url"), encoding: .utf8)
            #expect(after == owner, "owner.url was rewritten")
            // An admin command says the same, not "start corkd there once first" (which serve refuses).
            let invite = try await corkd.admin(["invite", "--user", "alice"])
            #expect(invite.exit.status != 0 && invite.standardError.contains("which served before"), "\(invite.standardError)")
        }
    }

    /// corkd's own files that its user cannot read and write (a store root made, a certificate made unreadable) are
    /// named with what to do, before anything opens them: they were "unable to open database file (SQLite error
    /// 14)" and "failedToLoadCertificate".
    @Test func filesTheServiceUserCannotOpenAreNamed() async throws {
        try await withCorkd { corkd in
            _ = try await corkd.terminate()
            let store = corkd.dataDirectory.appendingPathComponent("corkd.sqlite").path
            #expect(chown(store, 0, 0) == 0)
            let (exit, stderr) = try await corkd.startExpectingExit(timeout: .seconds(60))
            #expect(exit.reason == .exit && exit.status == 2, "\(exit); \(stderr.suffix(2000))")
            #expect(stderr.contains("\(store) cannot be read and written by this user"), "\(stderr.suffix(2000))")
            #expect(stderr.contains("it belongs to root: chown"), "\(stderr.suffix(2000))")
            #expect(!stderr.contains("SQLite error"), "\(stderr.suffix(2000))")
        }
    }

    /// The real thing: `kill -9` at moments spread over a first start, then a start that must serve.
    @Test func killedAnywhereInAFirstStartTheNextStartServes() async throws {
        for delay in [0, 15, 30, 50, 75, 100, 150, 200, 300, 450, 700] {
            let corkd = try CorkdProcess()
            defer { corkd.cleanup() }
            try Unprivileged.handOver(corkd.root)
            let first = try SpawnedProcess(
                executable: CorkdProcess.executable,
                arguments: ["serve", "--data-dir", corkd.dataDirectory.path, "--port", "0", "--host", "127.0.0.1"],
                logDirectory: corkd.logDirectory, name: "killed-first-start-\(delay)", unprivileged: true)
            try await Task.sleep(for: .milliseconds(delay))
            first.send(signal: SIGKILL)
            _ = await first.waitForExit(timeout: .seconds(10))
            do {
                try await corkd.start()
            } catch {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: corkd.dataDirectory.path)) ?? []
                Issue.record("killed \(delay) ms into a first start, the next start failed: \(error); the directory held \(names.sorted())")
                continue
            }
            try await Self.expectServing(corkd)
        }
    }
}
