import BoardTesting
import Foundation
import Logging
import Testing

@testable import BoardServer

/// A first start that fails before it listens (its port taken) has made the store and the owner but written no
/// `owner.url`: on one SQLite node nobody has the owner's token. The next start makes one (found by a newcomer run:
/// the server said "none here (the node that made the first start has it)" and the token was lost).
@Suite(.serialized, .timeLimit(.minutes(1))) struct OwnerURLRecoveryTests {
    static func prepare(_ directory: URL) async throws -> ServerSetup {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = directory
        var logger = Logger(label: "corkd-test")
        logger.logLevel = .critical
        return try await ServerSetup.prepare(configuration, logger: logger)
    }

    @Test func aStartWithoutOwnerURLMakesANewOwnerTokenAndOneWithItDoesNot() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corkd-owner-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }

        let first = try await Self.prepare(directory)
        let firstToken = try #require(first.ownerToken)
        #expect(first.firstStart)
        await first.release()  // stopped before it listened: no owner.url

        let second = try await Self.prepare(directory)
        #expect(!second.firstStart)
        let secondToken = try #require(second.ownerToken, "no owner token although no owner.url holds one")
        #expect(secondToken != firstToken)
        let check = try #require(try await second.store.authenticate(token: secondToken, now: WallClock().now()))
        #expect(check.isValid)
        #expect(check.user == ServerConfiguration().ownerName)
        // What Serve does once listening.
        try ServerSetup.writeOwnerURL(
            .init(host: "127.0.0.1", port: 7420, board: "main", token: secondToken, fingerprint: nil), in: directory)
        await second.release()

        let third = try await Self.prepare(directory)
        #expect(third.ownerToken == nil, "owner.url holds the token: no new one")
        await third.release()
    }
}
