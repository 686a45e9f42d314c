import ArgumentParser
import BoardServer
import BoardStore
import Foundation

/// `corkd backup`: a consistent copy of the SQLite store, made while the server runs.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a consistent copy of the data directory's SQLite store to FILE, also while the server runs.",
        discussion: """
            The copy is one read transaction's snapshot (VACUUM INTO), written under a temporary name and renamed into \
            place, so FILE is never partial; an existing FILE is refused (exit 1), and so is a directory that does not exist \
            (exit 2: make it first, owned by corkd's user). To restore: stop corkd, put the copy \
            in place as DATA_DIR/corkd.sqlite (removing corkd.sqlite-wal and corkd.sqlite-shm), start corkd; every \
            board gets a new epoch, so clients resynchronise. For PostgreSQL use pg_dump (deploy/postgres/README.md).
            """)

    @OptionGroup var data: DataOptions

    @Option(help: "The file to write (must not exist).")
    var to: String

    func run() async throws {
        guard try data.storeLocation() == .dataDirectory else {
            throw CorkdExit.usage("corkd backup copies the SQLite store; back a PostgreSQL store up with pg_dump (deploy/postgres/README.md)")
        }
        let directory = data.url
        if let problem = DataDirectory.enterProblem(directory) { throw CorkdExit.usage(problem) }
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(SQLiteStore.fileName).path) else {
            throw CorkdExit.usage("no store in \(directory.path) (\(SQLiteStore.fileName) is missing)")
        }
        if let problem = DataDirectory.ownershipProblem(directory) { throw CorkdExit.usage(problem) }
        let target = URL(fileURLWithPath: to)
        // SQLite would say only "unable to open database (SQLite error 14)": name the directory that is missing.
        let folder = target.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CorkdExit.usage(
                "the backup's directory \(folder.path) does not exist; make it first (install -d -o \(DataDirectory.ownerName(of: directory.path) ?? "corkd") -m 0700 \(folder.path))")
        }
        guard FileManager.default.isWritableFile(atPath: folder.path) else {
            throw CorkdExit.usage(
                "this user cannot write in the backup's directory \(folder.path); choose one it can (/var/backups/corkd with the package)")
        }
        let store: SQLiteStore
        do {
            // A guest: the server may be running, and its marks and checkpoints are its own.
            store = try await SQLiteStore.open(
                directory: directory, configuration: SQLiteStore.Configuration(guest: true), logger: data.logger("corkd"))
        } catch {
            Console.error("corkd: cannot open the store in \(directory.path): \(error.message)\n")
            throw ExitCode(1)
        }
        do {
            try await store.backup(to: target)
            try? await store.close()
        } catch {
            try? await store.close()
            Console.error("corkd: backup to \(target.path) failed: \(error.message)\n")
            throw ExitCode(1)
        }
        try Console.result("wrote a consistent copy of \(directory.appendingPathComponent(SQLiteStore.fileName).path) to \(target.path)\n")
    }
}
