import BoardCore
import BoardTesting
import BoardWire
import CorkApp
import Foundation
import Testing

/// `cork board create NAME [--id ID]` over the wire's `board.create`, and the id it makes from a name.
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct BoardCreateCommandTests {
    @Test func theIdIsMadeFromTheName() {
        #expect(BoardSlug.id(for: "Release 2026") == "release-2026")
        #expect(BoardSlug.id(for: "  Ops — rota (EU) ") == "ops-rota-eu")
        #expect(BoardSlug.id(for: "Équipe") == "quipe")
        #expect(BoardSlug.id(for: "—") == nil)
        #expect(BoardSlug.id(for: String(repeating: "ab ", count: 50))?.rawValue.utf8.count == Limits.idMaxLength)
    }

    @Test func aUserCreatesABoardTheyOwnAndTheExitCodesAreTheDocumentedOnes() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            let created = try await cork.json(["board", "create", "Release 2026"])
            #expect(created["board"] as? String == "release-2026" && created["name"] as? String == "Release 2026", "\(created)")
            let boards = try #require(try await cork.json(["boards"])["boards"] as? [[String: Any]])
            #expect(boards.contains { $0["board"] as? String == "release-2026" && $0["role"] as? String == "owner" }, "\(boards)")
            #expect(try await cork.ok(["board", "create", "Ops", "--id", "ops-eu"]).contains("created board ops-eu (Ops)"))
            // corkd's shape works too: the id, then --name.
            #expect(try await cork.ok(["board", "create", "ops-us", "--name", "Ops US"]).contains("created board ops-us (Ops US)"))
            try await cork.fails(["board", "create", "ops-x", "--name", "X", "--id", "ops-y"], with: 2)
            // The card commands work on it.
            #expect(try await cork.json(["add", "First", "--board", "ops-eu"])["board"] as? String == "ops-eu")

            let taken = try await cork.fails(["board", "create", "Release 2026"], with: 3)
            #expect(taken.contains("bad_request") && taken.contains("taken"), "\(taken)")
            try await cork.fails(["board", "create", "x", "--id", "not an id"], with: 2)
            try await cork.fails(["board", "create", "—"], with: 2)

            // A server that is gone: exit 4.
            var dead = try #require(InviteURL(corkd.ownerURL))
            dead.port = try CorkProcess.closedPort()
            try await cork.fails(["board", "create", "Nowhere"], with: 4, url: .some(dead.description))
        }
    }
}
