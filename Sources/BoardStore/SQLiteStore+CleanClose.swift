import Foundation

/// The clean-close mark: `corkd.sqlite.clean`, written by `close()` after the last checkpoint, holding the file's
/// inode, size and modification time. An open that finds it matching the file (and an empty or no `-wal`: nothing
/// was written after the close, nor by a crashed run) skips `PRAGMA quick_check`, which reads the whole file (about
/// 5 s for 1 M events here, issue 14 defect 7); any other open checks as before. An open that goes on removes the
/// mark before anything is written, so a run that crashes leaves none; one that refuses the file leaves the data
/// directory as it was. A file changed while corkd was stopped (a page overwritten, truncated, a
/// restored copy) no longer matches and is checked.
extension SQLiteStore {
    /// Where the mark of the store at `path` lives.
    static func cleanMarkPath(_ path: String) -> String { path + ".clean" }

    /// The file's identity and last change, or nil when it cannot be read.
    static func fileSignature(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return "\(status.st_ino) \(status.st_size) \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)\n"
    }

    /// Writes the mark for the closed store at `path` (best effort: without it the next open checks the file).
    ///
    /// The file's modification time is first set 2 s back, to a whole second: file times advance in coarse ticks
    /// (a few ms), so a write right after the close could otherwise leave the time as it was; any later write now
    /// moves it.
    static func markClean(_ path: String) {
        var times = [timespec(tv_sec: time(nil) - 2, tv_nsec: 0), timespec(tv_sec: time(nil) - 2, tv_nsec: 0)]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0, let signature = fileSignature(path) else { return }
        let mark = cleanMarkPath(path)
        guard FileManager.default.createFile(atPath: mark + ".tmp", contents: Data(signature.utf8), attributes: [.posixPermissions: 0o600])
        else { return }
        if rename(mark + ".tmp", mark) != 0 { unlink(mark + ".tmp") }
    }

    /// Whether the mark is there and matches the file as it is now.
    static func isMarkedClean(_ path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: cleanMarkPath(path)) else { return false }
        return String(decoding: data, as: UTF8.self) == fileSignature(path)
    }

    /// Removes the mark (before the store writes anything).
    static func removeCleanMark(_ path: String) { unlink(cleanMarkPath(path)) }
}
