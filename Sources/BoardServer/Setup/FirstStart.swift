import BoardWire
import BoardStore
import BoardTransport
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes a first start all or nothing: a start killed half way through making a fresh data directory is made again
/// by the next start instead of being taken for damage.
///
/// A first start writes several files one after the other (the private key, the certificate, the SQLite store and its
/// log) in about 150 ms; a `kill -9` between two of them leaves a directory that looks damaged although nothing in it
/// was ever served. So before a fresh directory gets its first file, `first-start.pending` is written (and made durable); it is
/// removed once the store holds the first board and the owner's token, before corkd listens. A start that finds it
/// knows the last one never finished, removes what that start made, and starts over. A directory without the mark
/// that is missing a file was damaged later, and is still refused.
public enum FirstStart {
    /// The mark's file name in the data directory.
    public static let markFileName = "first-start.pending"

    /// The files a first start makes in the data directory; the store's only when the store lives there.
    public static func madeFiles(storeInDirectory: Bool) -> [String] {
        var names: [String] = [
            SelfSignedCertificate.privateKeyFileName, SelfSignedCertificate.certificateFileName,
            ServerSetup.ownerURLFileName, ListenRecord.fileName,
        ]
        if storeInDirectory {
            let store: String = SQLiteStore.fileName
            let suffixes: [String] = ["", "-wal", "-shm", "-journal", ".clean", ".checked"]
            names.append(contentsOf: suffixes.map { (suffix: String) -> String in store + suffix })
        }
        return names
    }

    /// Called with the data directory locked, before anything is made in it. Clears away what an unfinished first
    /// start left, then, when the directory holds none of the files a first start makes, writes the mark. Returns
    /// whether it did (then ``finish(in:)`` is called once the first start has made the store).
    public static func begin(in directory: URL, storeInDirectory: Bool, logger: Logger) throws(ServerError) -> Bool {
        let files = FileManager.default
        let mark = directory.appendingPathComponent(markFileName)
        let made = madeFiles(storeInDirectory: storeInDirectory)
        if files.fileExists(atPath: mark.path) {
            let left: [String] = made.filter { (name: String) -> Bool in
                files.fileExists(atPath: directory.appendingPathComponent(name).path)
            }
            for name in left {
                do {
                    try files.removeItem(at: directory.appendingPathComponent(name))
                } catch {
                    throw ServerError(
                        .configuration, "an earlier first start did not finish, and \(name) it left cannot be removed: \(error.localizedDescription)")
                }
            }
            logger.notice(
                "an earlier first start was stopped before it finished; making it again",
                metadata: ["removed": "\(left.joined(separator: ", "))"])
            try syncDirectory(directory)
            return true
        }
        if storeInDirectory, let problem = missingStore(in: directory) { throw ServerError(.damaged, problem) }
        for name in made where files.fileExists(atPath: directory.appendingPathComponent(name).path) { return false }
        let flags: Int32 = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
        let mode: mode_t = 0o600
        let fd = open(mark.path, flags, mode)
        guard fd >= 0 else {
            throw ServerError(.configuration, "cannot write \(mark.path): \(String(cString: strerror(errno)))")
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced else { throw ServerError(.configuration, "cannot write \(mark.path): \(String(cString: strerror(errno)))") }
        try syncDirectory(directory)
        return true
    }

    /// Why `directory` is damaged when its store is gone, or nil: files only a start that made the store leaves
    /// (the store was there and is gone: a restore that did not finish, a file removed), where a fresh store would
    /// quietly stand in for every board and token. Nil while `corkd.sqlite` is there, or nothing shows it served.
    public static func missingStore(in directory: URL) -> String? {
        let files = FileManager.default
        let store: String = SQLiteStore.fileName
        guard !files.fileExists(atPath: directory.appendingPathComponent(store).path) else { return nil }
        let traces: [String] = [ServerSetup.ownerURLFileName, ListenRecord.fileName, store + "-wal", store + ".clean", store + ".checked"]
        let found: [String] = traces.filter { (name: String) -> Bool in
            files.fileExists(atPath: directory.appendingPathComponent(name).path)
        }
        guard !found.isEmpty else { return nil }
        return "\(store) is missing from \(directory.path), which served before (it has \(found.joined(separator: ", "))): "
            + "put the store back (a backup: deploy/README.md, \"Shutdown, crashes, backups\"); to start afresh, use an empty directory. "
            + "(Was this node meant to use PostgreSQL? Then give --store.)"
    }

    /// The first start has made the store (the board and the owner's token are committed): removes the mark.
    public static func finish(in directory: URL) throws(ServerError) {
        let mark = directory.appendingPathComponent(markFileName)
        guard unlink(mark.path) == 0 || errno == ENOENT else {
            throw ServerError(.configuration, "cannot remove \(mark.path): \(String(cString: strerror(errno)))")
        }
        try syncDirectory(directory)
    }

    /// Makes the directory's entries (a file made or removed) durable.
    private static func syncDirectory(_ directory: URL) throws(ServerError) {
        let flags: Int32 = O_RDONLY | O_DIRECTORY | O_CLOEXEC
        let fd = open(directory.path, flags)
        guard fd >= 0 else { throw ServerError(.configuration, "cannot open \(directory.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            throw ServerError(.configuration, "cannot sync \(directory.path): \(String(cString: strerror(errno)))")
        }
    }
}
