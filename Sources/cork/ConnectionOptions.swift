import ArgumentParser
import BoardCore
import CorkApp
import Foundation

/// `--url` and `--board`, shared by every command that talks to a server.
struct ConnectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The invite URL (default: $CORK_URL, else the profile saved by cork join).", valueName: "cork://HOST:PORT/BOARD?token=…&fp=sha256:…"))
    var url: String?

    @Option(help: "The board (default: the URL's board, else main).")
    var board: String?

    /// The environment the process was started with.
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// `$XDG_CONFIG_HOME/cork` (or `~/.config/cork`).
    static var directory: ConfigDirectory? { ConfigDirectory(environment: environment) }

    /// The session for the chosen URL and board.
    func session() throws(CorkFailure) -> CorkSession {
        let directory = Self.directory
        let target = try ConnectionTarget.resolve(option: url, environment: Self.environment, board: board) { () throws(CorkFailure) in
            guard let directory else { return nil }
            return try Profile.load(from: directory)
        }
        return CorkSession(target: target, directory: directory)
    }
}

/// Today in UTC, for overdue marks and `due:` queries.
var today: Day { CardOps.utcToday }
