import ArgumentParser
import BoardCore
import BoardServer
import BoardStore

/// `corkd revoke`: revokes a user's tokens.
struct Revoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Revoke every token of a user; returns once a running server has closed their sessions.")

    @OptionGroup var data: DataOptions
    @OptionGroup var admin: AdminOptions

    @Option(help: "The user name.")
    var user: String

    /// What `--json` prints.
    struct Printed: Encodable {
        var user: String
        var revoked: Int
    }

    func run() async throws {
        guard let user = UserID(validating: self.user) else { throw CorkdExit.usage("--user \(self.user) is not a user name") }
        let administration = try await admin.open(data)
        let count: Int
        do {
            count = try await administration.store.revokeTokens(of: user, now: WallClock().now())
        } catch where error.code == .notFound {
            // A misspelt name must not pass for a revoke done (an offboarding script goes on as if it were).
            await administration.close()
            throw CorkdExit.fail(AdminFailure(.notFound, "no user \(user) on this server: nothing was revoked"))
        } catch {
            await administration.close()
            throw CorkdExit.fail(AdminFailure(.failed, "the store: \(error.message)"))
        }
        let failures = try await admin.apply([.revoke(user: user)], with: administration)
        await administration.close()
        if let exit = CorkdExit.worst(failures) { throw exit }
        if count == 0 {
            // Nothing to revoke is not a failure: revoking twice is safe.
            Console.error("corkd: \(user) had no token left to revoke: revoked already\n")
        }
        try Console.result(admin.json ? CorkdJSON.line(Printed(user: user.rawValue, revoked: count)) : "revoked \(count) token(s) of \(user)\n")
    }
}
