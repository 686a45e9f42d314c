import BoardClientCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A journal on disk: written whole to a temporary file, synced and renamed over the old one, so a crash leaves
/// either the old or the new journal, never half of one. An exclusive lock (`flock` on `FILE.lock`) keeps a second
/// process from using the same client id at the same time.
final class JournalFile: Sendable {
    let url: URL
    private let lockDescriptor: Int32

    /// Opens (and locks) the journal at `url`; the directory is created (mode 0700) when missing.
    init(url: URL) throws(ClientError) {
        self.url = url
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ClientError(.journal, "cannot create \(directory.path): \(error.localizedDescription)")
        }
        let descriptor = open(url.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ClientError(.journal, "cannot open \(url.path).lock: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw ClientError(.journal, "\(url.path) is in use by another process (one journal per running client)")
        }
        lockDescriptor = descriptor
    }

    deinit {
        flock(lockDescriptor, LOCK_UN)
        close(lockDescriptor)
    }

    /// The journal, or an empty one when the file does not exist yet.
    func load() throws(ClientError) -> ClientJournal {
        guard FileManager.default.fileExists(atPath: url.path) else { return ClientJournal() }
        do {
            let data = try Data(contentsOf: url)
            return try JSONDecoder().decode(ClientJournal.self, from: data)
        } catch {
            throw ClientError(.journal, "cannot read the journal \(url.path): \(error)")
        }
    }

    /// Replaces the journal on disk, durably.
    func save(_ journal: ClientJournal) throws(ClientError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let temporary = url.path + ".tmp"
        do {
            let data = try encoder.encode(journal)
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw ClientError(.journal, "cannot write \(temporary)") }
            defer { close(descriptor) }
            let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == data.count, fsync(descriptor) == 0 else {
                throw ClientError(.journal, "cannot write \(temporary): \(String(cString: strerror(errno)))")
            }
            guard rename(temporary, url.path) == 0 else {
                throw ClientError(.journal, "cannot replace \(url.path): \(String(cString: strerror(errno)))")
            }
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError(.journal, "cannot encode the journal: \(error)")
        }
    }
}
