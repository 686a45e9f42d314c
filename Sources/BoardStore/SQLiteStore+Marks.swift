import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The two marks that let an open skip `PRAGMA quick_check`, which reads the whole file (0.4 s for 1 M events with
/// the file in the page cache, 6–15 s from a cold disk; issue 14 defect 7). Each holds the database file's device,
/// inode, size, modification time and status-change time (ctime) as this store last left them. An open that finds
/// the file different checks it as before: a file changed while corkd was stopped (a page overwritten, truncated, a
/// copy restored, even in place with its old times: no tool can set the ctime back) is always checked.
///
/// - `corkd.sqlite.clean`: written by `close()` after the last checkpoint. Trusted only with an empty or no `-wal`
///   (nothing was written after the close).
/// - `corkd.sqlite.checked`: the file as the running store left it, and the boot it ran in. Written once the open
///   has checked (or created) the file, and again after each of the writer's checkpoints that wrote to it: in WAL
///   mode a checkpoint is the only write to the main file, and the store runs SQLite's auto-checkpoint itself (see
///   `CheckpointMarker`). A run that stops without closing (`kill -9`, an OOM kill) leaves a mark that matches unless
///   something else wrote the file afterwards. What it left in the `-wal` is SQLite's to recover (its frames are
///   checksummed; crash safety is SQLite's contract, the check is for damage from outside). Trusted only with the
///   `-wal` there and in the same boot: after a reboot (a power cut, a kernel crash, when writes the disk said were
///   done may be lost) the file is checked. `close()` removes it before the connections close.
///
/// Only the store that owns the file keeps marks; a guest (`Configuration.guest`: an admin command or a backup
/// while the server runs) neither writes nor removes them and never checkpoints. An open that goes on removes the
/// clean mark before anything is written, so a run that crashes leaves none; one that refuses the file leaves the
/// data directory as it was.
extension SQLiteStore {
    /// How an open decided the existing file was sound.
    public enum OpenCheck: String, Sendable {
        /// There was no file: the store created it.
        case created
        /// It was closed cleanly and is unchanged since (`corkd.sqlite.clean`).
        case cleanMark
        /// A run that stopped without closing left it unchanged since its last checkpoint (`corkd.sqlite.checked`).
        case checkpointMark
        /// `PRAGMA quick_check` read the whole file.
        case quickCheck

        /// What the server's start-up log says.
        public var logDescription: String {
            switch self {
            case .created: "new file"
            case .cleanMark: "closed cleanly and unchanged since, not read again"
            case .checkpointMark: "stopped without closing, unchanged since its last checkpoint, not read again"
            case .quickCheck: "PRAGMA quick_check passed"
            }
        }
    }

    /// Where the clean-close mark of the store at `path` lives.
    static func cleanMarkPath(_ path: String) -> String { path + ".clean" }

    /// Where the running store's mark of the store at `path` lives.
    static func checkedMarkPath(_ path: String) -> String { path + ".checked" }

    /// The file's identity and last change, or nil when it cannot be read: device, inode, size, modification
    /// time and status-change time.
    static func fileSignature(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return "\(status.st_dev) \(status.st_ino) \(status.st_size) \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec) "
            + "\(status.st_ctim.tv_sec).\(status.st_ctim.tv_nsec)\n"
    }

    /// This boot's id (Linux: `/proc/sys/kernel/random/boot_id`), or "" where there is none.
    static let bootID: String = {
        guard let data = FileManager.default.contents(atPath: "/proc/sys/kernel/random/boot_id") else { return "" }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    /// What the running store's mark holds for the file at `path`: the boot, then the file's signature.
    static func checkedSignature(_ path: String) -> String? {
        fileSignature(path).map { "boot \(bootID)\n" + $0 }
    }

    /// Writes the mark at `mark` for the file at `path` (best effort: without it the next open checks the file).
    ///
    /// The file's modification time is first set 2 s back, to a whole second: file times advance in coarse ticks
    /// (a few ms), so a write right after the mark could otherwise leave the times as they were; any later write
    /// now moves the modification time.
    static func stamp(_ mark: String, for path: String, signature: (String) -> String? = fileSignature) {
        var times = [timespec(tv_sec: time(nil) - 2, tv_nsec: 0), timespec(tv_sec: time(nil) - 2, tv_nsec: 0)]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0, let signature = signature(path) else {
            unlink(mark)
            return
        }
        guard FileManager.default.createFile(atPath: mark + ".tmp", contents: Data(signature.utf8), attributes: [.posixPermissions: 0o600])
        else {
            unlink(mark)
            return
        }
        if rename(mark + ".tmp", mark) != 0 {
            unlink(mark + ".tmp")
            unlink(mark)
        }
    }

    /// Writes the clean-close mark for the closed store at `path`.
    static func markClean(_ path: String) { stamp(cleanMarkPath(path), for: path) }

    /// Writes the running store's mark for the store at `path`, on the writer's queue (this store's own writes to
    /// the file are then done; another process's would change the signature after it).
    static func markChecked(_ path: String) { stamp(checkedMarkPath(path), for: path, signature: checkedSignature) }

    /// Whether the mark at `mark` is there and holds `signature` (nil: the file cannot be read, no match).
    static func matches(_ mark: String, _ signature: String?) -> Bool {
        guard let signature, let data = FileManager.default.contents(atPath: mark) else { return false }
        return String(decoding: data, as: UTF8.self) == signature
    }

    /// Whether the clean-close mark matches the file at `path` as it is now.
    static func isMarkedClean(_ path: String) -> Bool { matches(cleanMarkPath(path), fileSignature(path)) }

    /// Whether the running store's mark matches the file at `path` as it is now, in this boot.
    static func isMarkedChecked(_ path: String) -> Bool { matches(checkedMarkPath(path), checkedSignature(path)) }

    /// Removes the clean-close mark (before the store writes anything).
    static func removeCleanMark(_ path: String) { unlink(cleanMarkPath(path)) }

    /// Removes the running store's mark (before a clean close).
    static func removeCheckedMark(_ path: String) { unlink(checkedMarkPath(path)) }
}

/// Replaces SQLite's auto-checkpoint on the owner's writer connection with the same checkpoint (PASSIVE, once the
/// log holds `pages` frames), followed by a new `corkd.sqlite.checked` mark when it wrote to the file.
///
/// Installed with `sqlite3_wal_hook`, which SQLite calls on the committing thread (the writer's) after each commit,
/// with the write lock released; its own auto-checkpoint is a hook of the same kind, which this one takes the place
/// of. A failed checkpoint leaves the mark as it was: the file then no longer matches it and the next open checks.
/// While a long reader keeps a checkpoint from finishing, later commits try again (as SQLite's own would), and the
/// mark is written again only when more frames reached the file.
final class CheckpointMarker: Sendable {
    /// The database file.
    let path: String
    /// The log size (frames) at which a commit checkpoints; SQLite's default is 1,000.
    let pages: Int32
    /// The log's size after the last commit, and the frames the last checkpoint had backfilled in this log (only
    /// the writer's thread touches it).
    private let last = Mutex((frames: Int32(0), checkpointed: Int32(0)))
    /// Whether `release()` has let go of the hook's reference.
    private let released = Atomic(false)

    init(path: String, pages: Int) {
        self.path = path
        self.pages = Int32(clamping: max(1, pages))
    }

    /// Installs the hook on `connection`; the marker is retained until `release()`.
    func install(on connection: OpaquePointer) {
        let context = Unmanaged.passRetained(self).toOpaque()
        _ = sqlite3_wal_hook(connection, checkpointMarkerHook, context)
    }

    /// Lets go of the reference `install` took (after the connection is closed); later calls do nothing.
    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Unmanaged.passUnretained(self).release()
    }

    /// The hook's work: checkpoint when the log is long enough, then stamp the mark if frames reached the file.
    func committed(_ connection: OpaquePointer?, database: UnsafePointer<CChar>?, frames: Int32) {
        // Every commit adds frames to the log, so a log no longer than after the last commit has restarted from its
        // start: its backfill count starts over. (Taking a restart for more of the same log only stamps once more.)
        last.withLock { last in
            if frames <= last.frames { last.checkpointed = 0 }
            last.frames = frames
        }
        guard frames >= pages else { return }
        var logFrames: Int32 = 0
        var checkpointed: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(connection, database, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &checkpointed)
        guard code == SQLITE_OK else { return }
        let wrote = last.withLock { last in
            defer { last.checkpointed = checkpointed }
            return checkpointed > last.checkpointed
        }
        if wrote { SQLiteStore.markChecked(path) }
    }
}

/// The C entry point of `CheckpointMarker`'s hook.
private let checkpointMarkerHook:
    @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = {
        context, connection, database, frames in
        guard let context else { return SQLITE_OK }
        Unmanaged<CheckpointMarker>.fromOpaque(context).takeUnretainedValue()
            .committed(connection, database: database, frames: frames)
        return SQLITE_OK
    }
