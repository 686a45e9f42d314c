import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `cork` keeps its files: `$XDG_CONFIG_HOME/cork/`, by default `~/.config/cork/`.
///
/// The directory is created with mode 0700 and every file in it is written with mode 0600, because the profile
/// holds a token. Files are replaced atomically (written next to the target, then renamed).
public struct ConfigDirectory: Hashable, Sendable {
    /// The directory (`…/cork`).
    public var url: URL

    /// The directory `url`.
    public init(url: URL) { self.url = url }

    /// The directory for `environment`: `$XDG_CONFIG_HOME/cork` when set to an absolute path, else
    /// `$HOME/.config/cork`; nil when neither is usable.
    public init?(environment: [String: String]) {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            url = URL(fileURLWithPath: xdg).appendingPathComponent("cork")
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            url = URL(fileURLWithPath: home).appendingPathComponent(".config").appendingPathComponent("cork")
        } else {
            return nil
        }
    }

    /// The saved connection (`cork join`).
    public var profileFile: URL { url.appendingPathComponent("profile.json") }
    /// Server fingerprints by `host:port`.
    public var knownHostsFile: URL { url.appendingPathComponent("known_hosts") }

    /// The contents of `file`, or nil when it does not exist.
    public func read(_ file: URL) throws(CorkFailure) -> Data? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            return try Data(contentsOf: file)
        } catch {
            throw CorkFailure(.failure, "cannot read \(file.path): \(error.localizedDescription)")
        }
    }

    /// Writes `data` to `file` with mode 0600, creating the directory with mode 0700 first.
    public func write(_ data: Data, to file: URL) throws(CorkFailure) {
        let manager = FileManager.default
        do {
            if !manager.fileExists(atPath: url.path) {
                try manager.createDirectory(
                    at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
        } catch {
            throw CorkFailure(.failure, "cannot create \(url.path): \(error.localizedDescription)")
        }
        let temporary = url.appendingPathComponent(".\(file.lastPathComponent).\(getpid()).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw CorkFailure(.failure, "cannot write \(temporary.path): errno \(errno)") }
        let written = data.withUnsafeBytes { buffer -> Int in
            var offset = 0
            while offset < buffer.count {
                let n = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 { return -1 }
                offset += n
            }
            return offset
        }
        _ = fchmod(fd, 0o600)
        let closed = close(fd)
        guard written == data.count, closed == 0, rename(temporary.path, file.path) == 0 else {
            unlink(temporary.path)
            throw CorkFailure(.failure, "cannot write \(file.path): errno \(errno)")
        }
    }
}
