import BoardServer
import BoardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The data directory holds every board and token hash: the real `corkd` keeps it 0700 with every file 0600, and
/// narrows what it finds open at start, naming each file.
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct DataDirectoryTests {
    /// The permission bits of `path` (not following a symbolic link).
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & 0o7777
    }

    /// Every regular file and directory in the data directory (and the directory itself) with its mode.
    static func modes(_ corkd: CorkdProcess) throws -> [String: mode_t] {
        var modes = [corkd.dataDirectory.path: mode(corkd.dataDirectory.path)]
        for name in try FileManager.default.contentsOfDirectory(atPath: corkd.dataDirectory.path) {
            let path = corkd.dataDirectory.appendingPathComponent(name).path
            modes[path] = mode(path)
        }
        return modes
    }

    @Test func everyFileAFreshServerAndAnInviteCreateIsPrivate() async throws {
        // A permissive umask, as a login shell has it: corkd must not depend on it.
        let saved = umask(0o022)
        defer { umask(saved) }
        try await withCorkd { corkd in
            _ = try await corkd.invite("alice")
            let probe = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken)
            try await probe.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"a write"}}"#)
            _ = try await probe.expect(type: "ack")
            await probe.close()
            let modes = try Self.modes(corkd)
            for suffix in ["corkd.sqlite", "corkd.sqlite-wal", "corkd.sqlite-shm", "owner.url", "listen.json", "cert.pem", "key.pem"] {
                #expect(modes.keys.contains { $0.hasSuffix("/" + suffix) }, "\(suffix) exists: \(modes.keys.sorted())")
            }
            for (path, mode) in modes {
                #expect(mode & 0o077 == 0, "\(path) is 0\(String(mode, radix: 8)), readable by other users")
            }
            #expect(modes[corkd.dataDirectory.path] == 0o700)
        }
    }

    @Test func aDirectoryAndFilesOpenToOthersAreNarrowedAtStartWithAWarningNamingEach() async throws {
        try await withCorkd { corkd in
            #expect(try await corkd.terminate().isSuccess)
            // As an older corkd or a careless copy left them.
            #expect(chmod(corkd.dataDirectory.path, 0o755) == 0)
            let opened = ["corkd.sqlite", "owner.url", "key.pem", "cert.pem"]
            for name in opened {
                #expect(chmod(corkd.dataDirectory.appendingPathComponent(name).path, 0o644) == 0)
            }
            try await corkd.restart()
            let warnings = corkd.standardError
            #expect(warnings.contains("\(corkd.dataDirectory.path) was 0755"), "\(warnings)")
            for name in opened {
                #expect(warnings.contains("\(corkd.dataDirectory.appendingPathComponent(name).path) was 0644"), "\(warnings)")
            }
            for (path, mode) in try Self.modes(corkd) {
                #expect(mode & 0o077 == 0, "\(path) is still 0\(String(mode, radix: 8))")
            }
            #expect(Self.mode(corkd.dataDirectory.path) == 0o700)
            // And the server serves.
            let probe = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken)
            await probe.close()
        }
    }
}
