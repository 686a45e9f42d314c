import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The two marks that let an open skip `PRAGMA quick_check`, which reads the whole file (0.4 s for 1 M events with
/// the file in the page cache, 6–15 s from a cold disk). Each holds the database file's device,
/// inode, size, modification time and status-change time (ctime) as this store last left them. An open that finds
/// the file different checks it as before: a file changed while corkd was stopped (a page overwritten, truncated, a
/// copy restored, even in place with its old times: no tool can set the ctime back) is always checked.
///
/// - `corkd.sqlite.clean`: written by `close()` after the last checkpoint. Trusted only with an empty or no `-wal`
///   (nothing was written after the close).
/// - `corkd.sqlite.checked`: the file as the running store left it, and the boot it ran in. Written once the open
///   has checked (or created) the file, and again after each of the store's checkpoints that wrote to it: in WAL
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
/// log holds `pages` frames), run on a thread and a connection of its own, followed by a new `corkd.sqlite.checked`
/// mark when it wrote to the file.
///
/// The hook is installed with `sqlite3_wal_hook`, which SQLite calls on the committing thread (the writer's) after
/// each commit; SQLite's own auto-checkpoint is a hook of the same kind, which this one takes the place of. SQLite's
/// runs the checkpoint right there, so the writer — and every board's next commit — waited for it: about 4 MB written
/// to the file and an `fsync`, tens of milliseconds once every thousand pages, which was most of corkd's p99 at light
/// load. Here the hook only asks the checkpointer's queue, which checkpoints through its own connection
/// while the writer goes on committing (WAL lets a checkpoint run beside a writer; it copies the frames committed
/// when it starts), and the writer's next commit copies what is left, so that the log starts over (see `committed`).
/// A failed checkpoint leaves the mark as it was: the file then no longer matches it and the next open checks. `stop()` ends the checkpoints before the store
/// closes.
final class CheckpointMarker: Sendable {
    /// The database file.
    let path: String
    /// The log size (frames) at which a commit asks for a checkpoint; SQLite's default is 1,000.
    let pages: Int32
    /// The log's size after the last commit, and the frames the last checkpoint had backfilled in this log.
    private let last = Mutex((frames: Int32(0), checkpointed: Int32(0)))
    /// Whether `release()` has let go of the hook's reference.
    private let released = Atomic(false)
    /// Checkpoints that copied frames into the file (`checkpointsThatWrote`).
    private let writes = Atomic(0)
    /// Whether a checkpoint is queued or running, whether one has run since the writer last finished the log, and
    /// whether `stop()` was called. The writer's checkpoints and the checkpointer's never overlap: the writer
    /// checkpoints only once the checkpointer's pass is over, and only the writer starts one.
    private let runs = Mutex((scheduled: false, ran: false, stopped: false))
    /// The checkpointer's own connection (GRDB's `DatabaseQueue` on the same file), opened on first use; only the
    /// queue touches it.
    private let connection = Mutex<DatabaseQueue?>(nil)
    /// Where checkpoints run. A checkpoint is a blocking C call that waits on the disk for tens of milliseconds, so
    /// it must stay off Swift's cooperative pool and the event loops: a serial dispatch queue gives it a thread of
    /// its own, as `StoreThreads` gives the writer one.
    private let queue = DispatchQueue(label: "corkd.checkpoint")

    /// The file the store opened: the mark vouches only for it.
    let opened: FileIdentity?

    init(path: String, opened: FileIdentity?, pages: Int) {
        self.path = path
        self.opened = opened
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

    /// Ends the checkpoints: waits for one under way, then closes the checkpointer's connection. Requests made after
    /// are ignored (the store is closing: its own last checkpoint follows).
    func stop() {
        runs.withLock { $0.stopped = true }
        queue.sync {
            connection.withLock { connection in
                try? connection?.close()
                connection = nil
            }
        }
    }

    /// Testing only: holds the checkpointer's queue (a checkpoint asked for meanwhile waits), and lets it go.
    func pause() { queue.suspend() }
    func resume() { queue.resume() }

    /// The log's size (frames) after the last commit.
    var logFrames: Int32 { last.withLock { $0.frames } }

    /// Checkpoints (the checkpointer's or the writer's) that copied frames into the file, since the open (tests
    /// and diagnostics).
    var checkpointsThatWrote: Int { writes.load(ordering: .relaxed) }

    /// Testing only: whether a pass of the checkpointer has run since the writer last finished a log, so that the
    /// writer's next commit past the threshold checkpoints the rest itself.
    var writerFinishesNext: Bool { runs.withLock { $0.ran } }

    /// Returns once no checkpoint of the checkpointer's is queued or running (tests: the mark is then as the last
    /// checkpoint left it).
    func idle() { queue.sync {} }

    /// The hook's work, on the writer's thread, between two transactions: note the log's size, and when it is long
    /// enough, ask the checkpointer for a checkpoint — or, once the checkpointer has copied the bulk of it, finish it
    /// here.
    ///
    /// Why the writer finishes: a log starts over only when a write begins with every frame in the file, and the
    /// checkpointer never gets there while the writer goes on committing (under sustained load the log grew by 7 MB
    /// a second). On the writer's thread, between its own transactions, a checkpoint copies whatever the last
    /// background one left (the frames committed while it ran), and the next transaction restarts the log. That
    /// stall is short: a few frames and one `fsync` of the file, instead of a thousand.
    func committed(_ connection: OpaquePointer?, database: UnsafePointer<CChar>?, frames: Int32) {
        // Every commit adds frames to the log, so a log no longer than after the last commit has restarted from its
        // start: its backfill count starts over. (Taking a restart for more of the same log only stamps once more.)
        last.withLock { last in
            if frames <= last.frames { last.checkpointed = 0 }
            last.frames = frames
        }
        guard frames >= pages else { return }
        enum Next { case nothing, background, here }
        let next = runs.withLock { runs -> Next in
            guard !runs.stopped else { return .nothing }
            if runs.scheduled { return .nothing }
            if runs.ran {
                runs.ran = false
                return .here
            }
            runs.scheduled = true
            return .background
        }
        switch next {
        case .nothing: return
        case .background: queue.async { self.run() }
        case .here:
            var logFrames: Int32 = 0
            var checkpointed: Int32 = 0
            let code = sqlite3_wal_checkpoint_v2(connection, database, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &checkpointed)
            if code == SQLITE_OK { wrote(checkpointed) }
        }
    }

    /// Stamps the mark when a checkpoint copied frames to the file. Within one log the backfill count only grows:
    /// any other count is frames newly written to the file (or a new log).
    private func wrote(_ checkpointed: Int32) {
        let wrote = last.withLock { last in
            defer { last.checkpointed = checkpointed }
            return checkpointed > 0 && checkpointed != last.checkpointed
        }
        if wrote {
            writes.add(1, ordering: .relaxed)
            if let opened, FileIdentity(path) != opened {
                SQLiteStore.removeCheckedMark(path)  // another file is there now: the next open checks it
            } else {
                SQLiteStore.markChecked(path)
            }
        }
    }

    /// Checkpoints until no request came in meanwhile, stamping the mark after each that wrote frames to the file.
    /// The checkpointer's pass: one checkpoint, then the writer finishes the log at its next commit.
    private func run() {
        guard runs.withLock({ !$0.stopped }) else { return }
        checkpoint()
        runs.withLock { runs in
            runs.ran = true
            runs.scheduled = false
        }
    }

    private func checkpoint() {
        connection.withLock { connection in
            if connection == nil {
                // A first read opens the log on this connection (before that it checkpoints nothing).
                // (A checkpoint never waits; the busy timeout is for that read, should it meet a lock.)
                var configuration = Configuration()
                configuration.busyMode = .timeout(1)
                configuration.label = "corkd.checkpoint"
                guard let opened = try? DatabaseQueue(path: path, configuration: configuration),
                    (try? opened.writeWithoutTransaction({ try Int.fetchOne($0, sql: "PRAGMA schema_version") })) != nil
                else { return }
                connection = opened
            }
            guard let done = try? connection?.writeWithoutTransaction({ try $0.checkpoint(.passive) }) else { return }
            wrote(Int32(clamping: done.checkpointedFrameCount))
        }
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

/// A file's identity: its device and inode (a file put in its place has another).
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path`, or nil when there is none.
    init?(_ path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
