import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The data directory's protection: the directory itself 0700, everything in it readable by its owner only.
///
/// The store holds every board and every token hash, so nothing in the directory may be readable by other local
/// users. `corkd` sets its umask to 077 (new files come out 0600, SQLite's `-wal`/`-shm` included) and checks what
/// is already there at every start: a directory or file open to the group or others is narrowed, with a warning
/// naming it.
public enum DataDirectory {
    /// One permission that was too open, and what became of it.
    public struct Correction: Hashable, Sendable, CustomStringConvertible {
        /// The file or directory.
        public var path: String
        /// Its mode before (permission bits only).
        public var oldMode: mode_t
        /// The mode it was given.
        public var newMode: mode_t
        /// Why it could not be changed, or nil when it was.
        public var failure: String?

        public var description: String {
            let old = String(oldMode, radix: 8)
            let new = String(newMode, radix: 8)
            if let failure { return "\(path) is 0\(old) (readable by other users) and cannot be made 0\(new): \(failure)" }
            return "\(path) was 0\(old), readable by other users; made it 0\(new)"
        }
    }

    /// Narrows `directory` and everything under it so that only the owner has access (directories 0700, files
    /// 0600 or stricter); returns what was changed or could not be. Symbolic links are not followed.
    public static func secure(_ directory: URL) -> [Correction] {
        var corrections: [Correction] = []
        check(directory.path, into: &corrections)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.sorted() ?? []
        for name in entries {
            let path = directory.appendingPathComponent(name).path
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                corrections += secure(URL(fileURLWithPath: path))
            } else if info.st_mode & S_IFMT == S_IFREG {
                check(path, into: &corrections)
            }
        }
        return corrections
    }

    /// Why this process must not work in `directory`, or nil: root working in a directory that belongs to another
    /// user (the service's) would leave files only root can open (a store `-wal`, a lock), and the service could
    /// not start again. Nil when the directory does not exist yet.
    public static func ownershipProblem(_ directory: URL) -> String? {
        var info = stat()
        guard geteuid() == 0, stat(directory.path, &info) == 0, info.st_uid != 0 else { return nil }
        let name = userName(info.st_uid)
        return "\(directory.path) belongs to \(name); run corkd as that user (runuser -u \(name) -- corkd …, or "
            + "sudo -u \(name) corkd …), so that every file in it stays theirs"
    }

    /// Why this process cannot serve from `directory` although it may open the store in it, or nil: the directory is
    /// not writable (and searchable) by it. SQLite can write an existing database file in a read-only directory, so
    /// corkd would acknowledge ops while it cannot write `listen.json`, `owner.url` or remove its start marks.
    public static func writabilityProblem(_ directory: URL) -> String? {
        guard access(directory.path, W_OK | X_OK) != 0 else { return nil }
        let reason = String(cString: strerror(errno))
        return "the data directory \(directory.path) is not writable by this user (\(userName(geteuid()))): \(reason); "
            + "corkd writes listen.json, owner.url and its marks there (\(ownershipAdvice(directory.path)))"
    }

    /// The first of corkd's own files in `directory` this process cannot read and write, in words with what to do,
    /// or nil. Said before anything opens them: a store owned by root was "unable to open database file (SQLite
    /// error 14)", an unreadable certificate "failedToLoadCertificate".
    public static func fileAccessProblem(_ directory: URL, names: [String]) -> String? {
        for name in names {
            let path = directory.appendingPathComponent(name).path
            guard FileManager.default.fileExists(atPath: path), access(path, R_OK | W_OK) != 0 else { continue }
            let reason = String(cString: strerror(errno))
            return "\(path) cannot be read and written by this user (\(userName(geteuid()))): \(reason); \(ownershipAdvice(path))"
        }
        return nil
    }

    /// Why this process cannot enter `directory`, which exists, with what to do; nil when it can (or it is not
    /// there). Said before "no store": a store in a folder this user may not enter is hidden, not missing.
    public static func enterProblem(_ directory: URL) -> String? {
        guard FileManager.default.fileExists(atPath: directory.path) else { return nil }
        guard access(directory.path, X_OK) != 0 else { return nil }
        let reason = String(cString: strerror(errno))
        return "cannot open \(directory.path) as \(userName(geteuid())): \(reason); \(ownershipAdvice(directory.path))"
    }

    /// What to do about a path this process may not change: chown it when another user owns it, else chmod it.
    public static func ownershipAdvice(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "check that it exists" }
        let me = geteuid()
        guard info.st_uid != me else { return "chmod u+rw it" }
        let recursive = (info.st_mode & S_IFMT) == S_IFDIR ? "-R " : ""
        let chown = "it belongs to \(userName(info.st_uid)): chown \(recursive)\(userName(me)) \(path)"
        return info.st_uid == 0 ? chown : chown + ", or run corkd as \(userName(info.st_uid))"
    }

    /// The name of the user who owns `path` (the service user, for a data directory), or nil when it cannot be read.
    public static func ownerName(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return userName(info.st_uid)
    }

    /// A user's name, or `uid N` when it has none.
    public static func userName(_ uid: uid_t) -> String {
        getpwuid(uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(uid)"
    }

    /// Removes the group and other bits of `path` when any is set (a directory becomes 0700, a file 0600).
    private static func check(_ path: String, into corrections: inout [Correction]) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let mode = info.st_mode & 0o7777
        guard mode & 0o077 != 0 else { return }
        let isDirectory = info.st_mode & S_IFMT == S_IFDIR
        let wanted: mode_t = isDirectory ? 0o700 : 0o600
        var correction = Correction(path: path, oldMode: mode, newMode: wanted)
        if chmod(path, wanted) != 0 {
            correction.failure = String(cString: strerror(errno)) + (info.st_uid != geteuid() ? " (owned by uid \(info.st_uid))" : "")
        }
        corrections.append(correction)
    }
}
