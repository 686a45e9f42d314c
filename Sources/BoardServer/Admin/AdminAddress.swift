import NIOCore

/// Where an admin listener (metrics, health) binds: `HOST:PORT`, with an IPv6 host in brackets (`[::1]:9420`).
public struct AdminAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host or address to bind.
    public var host: String
    /// The TCP port; 0 picks a free one.
    public var port: Int

    /// Makes an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` or `[IPV6]:PORT`; nil when either part is missing or the port is not 0–65535.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains("[") else { return nil }
        self.init(host: host, port: port)
    }

    /// Whether the host is a loopback address (127.0.0.0/8, ::1) or `localhost`: only this machine can connect.
    public var isLoopback: Bool {
        if host == "localhost" { return true }
        guard let address = try? SocketAddress(ipAddress: host, port: 0) else { return false }
        switch address {
        case .v4(let v4): return UInt32(bigEndian: v4.address.sin_addr.s_addr) >> 24 == 127
        case .v6: return host == "::1" || host.lowercased() == "0:0:0:0:0:0:0:1"
        default: return false
        }
    }

    /// `HOST:PORT`, with an IPv6 host in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
