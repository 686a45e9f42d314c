import ArgumentParser
import BoardServer
import Foundation
import Logging

/// Options every subcommand shares.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The data directory (store, certificate, owner.url).")
    var dataDirectory: String = "corkd-data"

    @Option(name: .customLong("log-level"), help: "\(DataOptions.levels).")
    var logLevel: String = "info"

    @Option(
        name: .customLong("store"),
        help: "Where boards, users and tokens are: sqlite (corkd.sqlite in the data directory, the default) or postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=require], shared by several nodes (default: $CORKD_STORE; the password may come from $PGPASSWORD).")
    var store: String?

    @Option(
        name: .customLong("config"),
        help: "The configuration file (default: $CORKD_CONFIG, else /etc/corkd/corkd.toml when it exists; --config /dev/null reads none). `corkd config check` validates one.")
    var config: String?

    static let levels = "trace, debug, info, notice, warning, error or critical"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be \(Self.levels), not \(logLevel)")
        }
    }

    var url: URL { URL(fileURLWithPath: dataDirectory) }

    /// The store `--store` or `$CORKD_STORE` names (the data directory's SQLite when neither does); a bad URL is a
    /// usage error (exit 2) whose message never shows the password.
    func storeLocation() throws -> StoreLocation {
        let environment = ProcessInfo.processInfo.environment
        do {
            return try StoreLocation.parse(store ?? environment["CORKD_STORE"], environment: environment)
        } catch {
            throw CorkdExit.usage(error.message)
        }
    }

    func logger(_ label: String) -> Logger {
        // Every logger follows the level (a reload on SIGHUP changes it for all of them).
        LogLevel.current = Logger.Level(rawValue: logLevel) ?? .info
        return Logger(label: label)
    }
}
