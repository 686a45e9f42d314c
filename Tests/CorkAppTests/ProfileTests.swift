import BoardWire
import Foundation
import Testing

@testable import CorkApp

/// The profile and known-hosts files, and how a command picks its URL.
@Suite struct ProfileTests {
    static let fp1 = "sha256:" + String(repeating: "a", count: 64)
    static let fp2 = "sha256:" + String(repeating: "b", count: 64)
    static let url = "cork://127.0.0.1:7420/main?token=ck_secret&fp=\(fp1)"

    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cork-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func mode(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func theDirectoryFollowsXDGThenHome() {
        #expect(ConfigDirectory(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"])?.url.path == "/x/cork")
        #expect(ConfigDirectory(environment: ["HOME": "/h"])?.url.path == "/h/.config/cork")
        #expect(ConfigDirectory(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"])?.url.path == "/h/.config/cork")
        #expect(ConfigDirectory(environment: [:]) == nil)
    }

    @Test func theProfileIsPrivateAndRoundTrips() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = ConfigDirectory(environment: ["XDG_CONFIG_HOME": root.path])!
        #expect(try Profile.load(from: directory) == nil)
        try Profile(url: Self.url).save(in: directory)
        #expect(try Profile.load(from: directory) == Profile(url: Self.url))
        #expect(try mode(directory.profileFile) == 0o600)
        #expect(try mode(directory.url) == 0o700)
        // Saving again replaces it and keeps the mode.
        try Profile(url: Self.url + "x").save(in: directory)
        #expect(try Profile.load(from: directory)?.url == Self.url + "x")
        #expect(try mode(directory.profileFile) == 0o600)
        try Data("not json".utf8).write(to: directory.profileFile)
        #expect(throws: CorkFailure.self) { try Profile.load(from: directory) }
    }

    @Test func knownHostsRememberTheFirstFingerprintAndRefuseAnother() throws {
        let first = try #require(InviteURL(Self.url))
        var hosts = KnownHosts()
        #expect(hosts.check(first) == .unknown)
        let changed = hosts.remember(first)
        let changedAgain = hosts.remember(first)
        #expect(changed && !changedAgain)
        #expect(hosts.check(first) == .matches)
        var other = first
        other.fingerprint = Self.fp2
        #expect(hosts.check(other) == .mismatch(known: Self.fp1))
        other.port = 7421
        #expect(hosts.check(other) == .unknown)
        var unpinned = first
        unpinned.fingerprint = nil
        #expect(hosts.check(unpinned) == .unknown)
        #expect(KnownHosts.key(host: "::1", port: 7420) == "[::1]:7420")

        let text = "# comment\n\n\(hosts.text)garbage line\nhost:1 not-a-fingerprint\n"
        #expect(KnownHosts(text: text) == hosts)

        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = ConfigDirectory(url: root.appendingPathComponent("cork"))
        try hosts.save(in: directory)
        #expect(try KnownHosts.load(from: directory) == hosts)
        #expect(try mode(directory.knownHostsFile) == 0o600)
        let message = KnownHosts.mismatchMessage(other, known: Self.fp1, file: directory.knownHostsFile)
        #expect(message.contains(directory.knownHostsFile.path) && message.contains(Self.fp1))
    }

    @Test func theURLComesFromTheOptionThenTheEnvironmentThenTheProfile() throws {
        let env = "cork://env.example:7420/ops?token=t2"
        let saved = Profile(url: "cork://saved.example:7420?token=t3")
        var askedForProfile = false
        let profile: () throws(CorkFailure) -> Profile? = {
            askedForProfile = true
            return saved
        }
        let fromOption = try ConnectionTarget.resolve(
            option: Self.url, environment: ["CORK_URL": env], board: nil, profile: profile)
        #expect(fromOption.source == .option && fromOption.board == "main" && fromOption.url.host == "127.0.0.1")
        let fromEnvironment = try ConnectionTarget.resolve(
            option: nil, environment: ["CORK_URL": env], board: nil, profile: profile)
        #expect(fromEnvironment.source == .environment && fromEnvironment.board == "ops")
        #expect(!askedForProfile)
        let fromProfile = try ConnectionTarget.resolve(option: nil, environment: [:], board: "release", profile: profile)
        #expect(fromProfile.source == .profile && fromProfile.board == "release" && fromProfile.url.board == "release")
        // No board anywhere: main.
        let noBoard = try ConnectionTarget.resolve(option: nil, environment: [:], board: nil, profile: profile)
        #expect(noBoard.board == "main")

        let none: () throws(CorkFailure) -> Profile? = { nil }
        #expect(throws: CorkFailure.usage(
            "no server: pass --url cork://HOST:PORT/BOARD?token=…, set CORK_URL, or run cork join URL first")) {
            try ConnectionTarget.resolve(option: nil, environment: [:], board: nil, profile: none)
        }
        #expect(throws: CorkFailure.self) {
            try ConnectionTarget.resolve(option: "http://x", environment: [:], board: nil, profile: none)
        }
        #expect(throws: CorkFailure.self) {
            try ConnectionTarget.resolve(option: Self.url, environment: [:], board: "no spaces", profile: none)
        }
    }
}
