import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on `corkd.lock` in the data directory: a running server holds it for its lifetime, so
/// another server on the same directory refuses to start, and an admin command knows whether a server runs (it
/// cannot take the lock) or not (it takes the lock and applies its change to the store itself).
///
/// The lock belongs to the open file: closing it (when this object goes away, or the process ends, `kill -9`
/// included) releases it.
public final class DataDirectoryLock: Sendable {
    private let fd: Int32

    /// The lock file's name.
    public static let fileName = "corkd.lock"

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// Lets go of the lock now (the file stays open until this object goes away).
    public func unlock() { _ = flock(fd, LOCK_UN) }

    /// Takes the lock without waiting; nil when another process holds it.
    public static func tryAcquire(in directory: URL) throws(ServerError) -> DataDirectoryLock? {
        let path = directory.appendingPathComponent(fileName).path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ServerError(.configuration, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let failure = errno
            close(fd)
            if failure == EWOULDBLOCK { return nil }
            throw ServerError(.configuration, "cannot lock \(path): \(String(cString: strerror(failure)))")
        }
        return DataDirectoryLock(fd: fd)
    }

    /// Takes the lock, waiting up to `patience` for a holder to let go (an admin command holds it for a moment);
    /// `configuration` error if it is still held then: another server runs on this directory.
    public static func acquire(in directory: URL, patience: Duration) async throws -> DataDirectoryLock {
        let deadline = ContinuousClock.now + patience
        while true {
            if let lock = try tryAcquire(in: directory) { return lock }
            if ContinuousClock.now >= deadline {
                throw ServerError(
                    .configuration,
                    "another corkd is serving \(directory.path) (it holds \(fileName)); stop it first, or give this one "
                        + "its own --data-dir")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
