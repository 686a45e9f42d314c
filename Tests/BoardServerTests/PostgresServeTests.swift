import BoardCore
import BoardServer
import BoardStore
import BoardTesting
import BoardWire
import Foundation
import Logging
import Testing

/// `corkd --store postgres://…`: the real binary serving from PostgreSQL, its admin commands on the same database,
/// and two nodes starting at once on a fresh one.
@Suite(.serialized, .enabled(if: PostgresTestDatabase.isEnabled), .startsProcesses(within: .minutes(2)))
struct PostgresServeTests {
    @Test("corkd --store serves a client from PostgreSQL; corkd invite --store works with it running and stopped")
    func serveAndInvite() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            let store = PostgresServeTests.url(location)
            let corkd = try CorkdProcess()
            defer { corkd.cleanup() }
            // At debug level too: ServiceLifecycle's debug lines name each service, which must not print the options.
            try await corkd.start(options: ["--store", store, "--log-level", "debug"])
            #expect(!FileManager.default.fileExists(atPath: corkd.storeFile.path), "the boards are in PostgreSQL, not SQLite")
            let owner = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken)
            _ = try await ProcessLifecycleTests.subscribeWhenMember(owner, within: .seconds(30))
            await owner.close()

            // With the node running, the invite is queued in the database and applied by the node.
            let invite = try await corkd.admin(["invite", "--user", "dave", "--store", store])
            let daveURL = try #require(InviteURL(try OperatorSupport.url(invite)))
            let dave = try await ProcessLifecycleTests.hello(corkd, token: daveURL.token, expectUser: "dave")
            _ = try await ProcessLifecycleTests.subscribeWhenMember(dave, within: .seconds(30))
            try await dave.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"d1","title":"from dave"}}"#)
            #expect(try await dave.expect(type: "ack")["mut"] as? Int == 1)
            await dave.close()

            // With no node serving, the tool takes the database's serving lock and applies the invite itself.
            #expect(try await corkd.terminate().isSuccess)
            let offline = try await corkd.admin(["invite", "--user", "erin", "--store", store])
            let erinURL = try #require(InviteURL(try OperatorSupport.url(offline)))
            try await corkd.restart(options: ["--store", store, "--log-level", "debug"])
            let erin = try await ProcessLifecycleTests.hello(corkd, token: erinURL.token, expectUser: "erin")
            let snapshot = try await ProcessLifecycleTests.subscribeWhenMember(erin, within: .seconds(30))
            #expect(Set(OperatorSupport.members(snapshot)).isSuperset(of: ["dave", "erin"]))
            await erin.close()
            #expect(try await corkd.terminate().isSuccess)

            let password = try #require(location.password)
            #expect(!corkd.standardError.contains(password), "the password is never logged")
            #expect(!offline.standardError.contains(password))
        }
    }

    @Test("two nodes starting at once on a fresh database: one first start, both serve the same board main")
    func twoNodesOnAFreshDatabase() async throws {
        try await PostgresTestDatabase.withDatabase { location in
            var logger = Logger(label: "corkd-test")
            logger.logLevel = .critical
            let directories = (0..<2).map { _ in
                FileManager.default.temporaryDirectory.appendingPathComponent("corkd-node-\(UUID().uuidString)")
            }
            defer { for directory in directories { try? FileManager.default.removeItem(at: directory) } }
            let configurations = directories.map { directory in
                var configuration = ServerConfiguration()
                configuration.dataDirectory = directory
                return configuration
            }
            async let first = ServerSetup.prepare(configurations[0], store: .postgres(location), logger: logger)
            async let second = ServerSetup.prepare(configurations[1], store: .postgres(location), logger: logger)
            let setups = try await [first, second]
            #expect(setups.filter(\.firstStart).count == 1, "exactly one node made the first start")
            #expect(setups.compactMap(\.ownerToken).count == 1, "one owner token, shown by the node that made it")
            for setup in setups {
                #expect(try await setup.store.boards().map(\.id) == ["main"])
                await setup.release()
            }
        }
    }

    /// The store URL with its password (what an operator passes to `--store`).
    static func url(_ location: PostgresLocation) -> String {
        let password = location.password.map { ":\($0)" } ?? ""
        return "postgres://\(location.user)\(password)@\(location.host):\(location.port)/\(location.database)"
    }
}
