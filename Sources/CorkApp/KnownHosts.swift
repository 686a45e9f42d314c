import BoardClient
import Foundation

/// Server certificate fingerprints by `host:port`, like SSH's `known_hosts`: the first fingerprint seen for an
/// address is remembered, and a URL with a different one for the same address is refused.
///
/// The file has one `host:port sha256:HEX` line per server; blank lines and lines starting with `#` are ignored.
public struct KnownHosts: Hashable, Sendable {
    /// Fingerprints (`sha256:HEX`, lower case) by `host:port`.
    public var fingerprints: [String: String]

    /// A map.
    public init(fingerprints: [String: String] = [:]) { self.fingerprints = fingerprints }

    /// What the map says about a URL.
    public enum Verdict: Hashable, Sendable {
        /// The address is not known yet (or the URL has no `fp`: CA verification).
        case unknown
        /// The URL's fingerprint is the one remembered.
        case matches
        /// The address is known with another fingerprint.
        case mismatch(known: String)
    }

    /// The key of an address: `host:port`, IPv6 hosts bracketed.
    public static func key(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host.lowercased())]:\(port)" : "\(host.lowercased()):\(port)"
    }

    /// The key of a URL's address.
    public static func key(_ url: InviteURL) -> String { key(host: url.host, port: url.port) }

    /// Checks `url`'s fingerprint against the one remembered for its address.
    public func check(_ url: InviteURL) -> Verdict {
        guard let fp = url.fingerprint?.lowercased(), let known = fingerprints[Self.key(url)] else { return .unknown }
        return fp == known ? .matches : .mismatch(known: known)
    }

    /// Remembers `url`'s fingerprint for its address; returns whether the map changed.
    @discardableResult
    public mutating func remember(_ url: InviteURL) -> Bool {
        guard let fp = url.fingerprint?.lowercased() else { return false }
        let key = Self.key(url)
        if fingerprints[key] == fp { return false }
        fingerprints[key] = fp
        return true
    }

    /// The message for a refused URL, naming the file to edit (like SSH's "REMOTE HOST IDENTIFICATION HAS CHANGED").
    public static func mismatchMessage(_ url: InviteURL, known: String, file: URL) -> String {
        "the server at \(key(url)) is known with fingerprint \(known), but this URL says \(url.fingerprint ?? "?"); "
            + "someone may be intercepting the connection, or the server's certificate changed. If you trust the new "
            + "URL, remove the line for \(key(url)) from \(file.path)"
    }

    /// Parses the file's text; malformed lines are skipped.
    public init(text: String) {
        var map: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2, InviteURL.isFingerprint(String(parts[1]).lowercased()) else { continue }
            map[String(parts[0]).lowercased()] = String(parts[1]).lowercased()
        }
        fingerprints = map
    }

    /// The file's text: one sorted `host:port fp` line per server.
    public var text: String {
        fingerprints.keys.sorted().map { "\($0) \(fingerprints[$0]!)\n" }.joined()
    }

    /// The map saved in `directory` (empty when there is no file).
    public static func load(from directory: ConfigDirectory) throws(CorkFailure) -> KnownHosts {
        guard let data = try directory.read(directory.knownHostsFile) else { return KnownHosts() }
        return KnownHosts(text: String(decoding: data, as: UTF8.self))
    }

    /// Saves the map in `directory` (mode 0600).
    public func save(in directory: ConfigDirectory) throws(CorkFailure) {
        try directory.write(Data(text.utf8), to: directory.knownHostsFile)
    }
}
