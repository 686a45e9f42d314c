import ArgumentParser
import BoardCore
import BoardServer
import BoardStore
import Foundation

/// Options of the admin commands (`invite`, `revoke`, `board`).
struct AdminOptions: ParsableArguments {
    @Option(help: "Seconds to wait for a running server to apply the change before giving up (exit 1).")
    var wait: Int = 10

    @Flag(help: "Print JSON: one object per line.")
    var json = false

    /// Opens the data directory for admin work, or exits with the failure's code.
    func open(_ data: DataOptions) async throws -> Administration {
        let location = try data.storeLocation()
        // Run by the wrong user (root on a service user's directory): a usage error, nothing changed (exit 2).
        if let problem = DataDirectory.ownershipProblem(data.url) { throw CorkdExit.usage(problem) }
        do {
            return try await Administration.open(data.url, store: location, logger: data.logger("corkd"))
        } catch {
            throw CorkdExit.fail(error)
        }
    }

    /// Applies `commands`, each failure mapped to its exit code by the caller; a failure of the whole (a timeout,
    /// the store) exits here.
    func apply(_ commands: [AdminCommand], with administration: Administration) async throws -> [AdminFailure?] {
        do {
            return try await administration.apply(commands, wait: .seconds(max(wait, 0)), now: WallClock().now())
        } catch {
            await administration.close()
            throw CorkdExit.fail(error)
        }
    }
}

/// The exit codes of corkd's admin commands, for scripts.
enum CorkdExit {
    /// `corkd --help`'s table.
    static let helpText = """
        Exit codes of the admin commands (invite, revoke, board):
          0  done (with a server running: applied by it)
          1  something else failed: the store, output, or a running server did not apply the change within --wait
          2  usage: a bad option, argument or --users-file line (nothing was changed)
          3  refused: a board id in use, a limit (members_max), the last owner of a board
          5  not found: no such board, or it is archived
        """

    /// The exit code for a failure.
    static func code(_ failure: AdminFailure) -> Int32 {
        switch failure.code {
        case .notFound: 5
        case .refused: 3
        case .failed: 1
        }
    }

    /// Says `corkd: message` on stderr and returns the exit to throw.
    static func fail(_ failure: AdminFailure) -> ExitCode {
        Console.error("corkd: \(failure.message)\n")
        return ExitCode(code(failure))
    }

    /// A usage error (exit 2) with `message` on stderr.
    static func usage(_ message: String) -> ExitCode {
        Console.error("corkd: \(message)\n")
        return ExitCode(2)
    }

    /// The worst exit code of several failures (5 over 3 over 1), or nil when there are none.
    static func worst(_ failures: [AdminFailure?]) -> ExitCode? {
        let codes = failures.compactMap { $0.map(code) }
        guard !codes.isEmpty else { return nil }
        return ExitCode(codes.contains(5) ? 5 : codes.contains(3) ? 3 : 1)
    }
}
