import BoardClient
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The full-screen client's journal: the library's file of the client id, the mutation counter and the ops not yet
/// confirmed, so that edits made offline and still queued when the person quits are sent at the next start, once
/// each.
///
/// One journal per server, board and token, in `journals/` under the config directory (0700): another account on the
/// same board, or another board, has its own. While a full-screen `cork` runs it holds the journal's lock; a second
/// one on the same board and token runs without a journal (sharing one would mean sharing a client id, whose
/// mutation ids the server counts once), and says so.
public struct SessionJournal: Sendable {
    /// The journal file.
    public var file: URL
    /// The lock file beside it.
    public var lock: URL

    /// The journal for `target` in `directory`.
    public init(directory: ConfigDirectory, target: ConnectionTarget) {
        let folder = directory.url.appendingPathComponent("journals")
        let url = target.url
        let host = url.host.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }
        let name = "\(String(host))-\(url.port)-\(target.board)-\(SessionJournal.digest(url.token))"
        file = folder.appendingPathComponent(name + ".json")
        lock = folder.appendingPathComponent(name + ".lock")
    }

    /// A short, stable digest of the token for the file name (FNV-1a, 64 bits): the token itself is never in a name.
    static func digest(_ token: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in token.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// Takes the journal's lock for this process (held until it exits); false when another process holds it.
    public func acquire() throws(CorkFailure) -> Bool {
        let folder = file.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CorkFailure(.failure, "cannot create \(folder.path): \(error.localizedDescription)")
        }
        let flags: Int32 = O_RDWR | O_CREAT | O_CLOEXEC
        let mode: mode_t = 0o600
        let fd = open(lock.path, flags, mode)
        guard fd >= 0 else {
            throw CorkFailure(.failure, "cannot open \(lock.path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            return false
        }
        // Kept open on purpose: the lock lasts as long as the process.
        return true
    }
}
