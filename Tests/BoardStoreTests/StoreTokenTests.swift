import BoardCore
import Foundation
import Testing

@testable import BoardStore

/// Users and bearer tokens.
@Suite("Store (SQLite and PostgreSQL) users and tokens")
struct StoreTokenTests {
    @Test("ensureUser creates once", arguments: StoreFixtures.kinds)
    func ensureUser(kind: StoreKind) async throws {
        try await StoreFixtures.withStore(kind) { store, _ in
            let created = try await store.ensureUser("alice", displayName: "Alice")
            let again = try await store.ensureUser("alice", displayName: "Someone else")
            let other = try await store.ensureUser("bob", displayName: "")
            #expect(created && !again && other)
        }
    }

    @Test("a token authenticates its user; a wrong, expired or revoked one does not", arguments: StoreFixtures.kinds)
    func tokens(kind: StoreKind) async throws {
        try await StoreFixtures.withStore(kind) { store, _ in
            let now = Timestamp(milliseconds: StoreFixtures.t0)
            let later = Timestamp(milliseconds: StoreFixtures.t0 + 3_600_000)
            _ = try await store.ensureUser("alice", displayName: "Alice")
            _ = try await store.ensureUser("bob", displayName: "Bob")

            let token = try await store.issueToken(for: "alice", expiresAt: nil, now: now)
            #expect(token.hasPrefix("ck_") && token.count == 46)
            #expect(token.dropFirst(3).allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            #expect(
                try await store.authenticate(token: token, now: now)
                    == TokenCheck(user: "alice", expired: false, revoked: false))
            #expect(try await store.authenticate(token: token, now: later)?.isValid == true)

            // Wrong: unknown, truncated, one character changed, empty.
            #expect(try await store.authenticate(token: "ck_nope", now: now) == nil)
            #expect(try await store.authenticate(token: String(token.dropLast()), now: now) == nil)
            let flipped = String(token.dropLast()) + (token.last == "A" ? "B" : "A")
            #expect(try await store.authenticate(token: flipped, now: now) == nil)
            #expect(try await store.authenticate(token: "", now: now) == nil)

            // Expired: valid before expiresAt, expired from it on.
            let expiring = try await store.issueToken(for: "bob", expiresAt: later, now: now)
            #expect(expiring != token)
            #expect(try await store.authenticate(token: expiring, now: now)?.expired == false)
            let expired = try #require(try await store.authenticate(token: expiring, now: later))
            #expect(expired.user == "bob" && expired.expired && !expired.revoked && !expired.isValid)

            // Revoked: every token of the user, once.
            let second = try await store.issueToken(for: "alice", expiresAt: nil, now: now)
            #expect(try await store.revokeTokens(of: "alice", now: later) == 2)
            #expect(try await store.revokeTokens(of: "alice", now: later) == 0)
            #expect(
                try await store.authenticate(token: token, now: later)
                    == TokenCheck(user: "alice", expired: false, revoked: true))
            #expect(try await store.authenticate(token: second, now: later)?.revoked == true)
            #expect(try await store.authenticate(token: expiring, now: now)?.revoked == false)
            await #expect(throws: StoreError.self) { try await store.revokeTokens(of: "nobody", now: later) }
        }
    }

    @Test("a token for an unknown user is notFound", arguments: StoreFixtures.kinds)
    func tokenForUnknownUser(kind: StoreKind) async throws {
        try await StoreFixtures.withStore(kind) { store, _ in
            let error = await #expect(throws: StoreError.self) {
                _ = try await store.issueToken(for: "ghost", expiresAt: nil, now: Timestamp(milliseconds: 0))
            }
            #expect(error?.code == .notFound)
        }
    }

    @Test("the token text is never stored: only its SHA-256 hash is in the database files")
    func tokenNotStored() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try await SQLiteStore.open(directory: directory, logger: StoreFixtures.logger)
            _ = try await store.ensureUser("alice", displayName: "Alice")
            let token = try await store.issueToken(for: "alice", expiresAt: nil, now: Timestamp(milliseconds: 1))
            let secret = Data(token.dropFirst(3).utf8)
            let hash = Token.hash(token)
            // While open (the row is in the WAL) and after a checkpointing close (it is in the main file).
            func scan() -> (secret: Bool, hash: Bool) {
                let all = StoreFixtures.databaseFiles(in: directory).map(StoreFixtures.bytes)
                return (all.contains { $0.range(of: secret) != nil }, all.contains { $0.range(of: hash) != nil })
            }
            let open = scan()
            #expect(!open.secret && open.hash)
            try await store.close()
            let closed = scan()
            #expect(!closed.secret && closed.hash)
        }
    }
}
