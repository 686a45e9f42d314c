import ArgumentParser
import BoardCore
import BoardServer
import BoardStore
import Foundation
import Logging

/// `corkd migrate-store`: copies a data directory's SQLite store into an empty PostgreSQL database.
struct MigrateStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-store",
        abstract: "Copy a data directory's SQLite store into an empty PostgreSQL database, then check every board matches.",
        discussion: """
            Stop the corkd serving DATA_DIR first (the copy refuses while it runs), and start no node on the target \
            until the copy is done. Boards keep their epochs and every event, so clients resume by seq; users, \
            memberships and tokens come across, so every invite URL keeps working. Exit 0 when every board's content \
            hash matches in both stores, 1 when something failed (the target may then hold part of the copy: drop \
            and recreate the database before trying again), 2 for a bad option or a target that is not empty.
            """)

    @Option(help: "The data directory whose store (corkd.sqlite) is copied.")
    var from: String

    @Option(help: "The PostgreSQL database to fill: postgres://USER[:PASSWORD]@HOST[:PORT]/DB (the password may come from $PGPASSWORD).")
    var to: String

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    func run() async throws {
        var logger = Logger(label: "corkd")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let location: StoreLocation
        do {
            location = try StoreLocation.parse(to, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw CorkdExit.usage(error.message)
        }
        guard case .postgres(let target) = location else { throw CorkdExit.usage("--to must be a postgres:// URL") }
        let directory = URL(fileURLWithPath: from)
        if let problem = DataDirectory.enterProblem(directory) { throw CorkdExit.usage(problem) }
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(SQLiteStore.fileName).path) else {
            throw CorkdExit.usage("no store in \(directory.path) (\(SQLiteStore.fileName) is missing)")
        }
        if let problem = DataDirectory.ownershipProblem(directory) { throw CorkdExit.usage(problem) }
        let report: StoreMigration.Report
        do {
            report = try await StoreMigration.copy(fromDirectory: directory, to: target, now: WallClock().now(), logger: logger)
        } catch {
            Console.error("corkd: \(error.message)\n")
            throw ExitCode(error.code == .configuration ? 2 : 1)
        }
        try Console.result(
            "copied \(report.boards) board(s), \(report.events) event(s), \(report.users) user(s), \(report.tokens) token(s), \(report.hooks) webhook(s) "
                + "into \(target); every board's content hash matches\n")
    }
}
