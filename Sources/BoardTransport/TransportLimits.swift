import BoardWire
import NIOCore

/// The bounds the transport pipeline enforces on one connection, each with a documented default.
///
/// The server's defaults are Protocol.md's, "Limits"; `init(wire:)` derives them from the `WireLimits` the server
/// advertises in `welcome`, so the advertised and the enforced numbers cannot drift apart. A client uses
/// ``client`` (or ``client(wire:)``): it reads server lines up to `server_line_max` and has no pre-auth cap.
public struct TransportLimits: Hashable, Sendable {
    /// Longest inbound line before authentication, terminator excluded (`preauth_line_max`, default 4096 bytes).
    public var preauthLineMax: Int
    /// Longest inbound line after `FramingCommand.authenticated`, terminator excluded (`line_max`, default 65536).
    public var lineMax: Int
    /// Time from a line's first byte to its newline (`line_timeout_ms`, default 30 s); `nil` disables the deadline.
    public var lineTimeout: TimeAmount?
    /// Time allowed for the TLS handshake from TCP connect (`handshake_timeout_ms`, default 5 s).
    public var handshakeTimeout: TimeAmount
    /// Most bytes queued for the peer before authentication (`preauth_output_bytes`, default 64 KiB).
    public var preauthOutboxBytes: Int
    /// Most bytes queued for the peer after authentication (`outbox_bytes`, default 1 MiB).
    public var outboxBytes: Int
    /// Longest time queued bytes may wait without any write completing (`write_timeout_ms`, default 10 s).
    public var writeTimeout: TimeAmount
    /// How often the server sends `ping` (`heartbeat_ms`, default 30 s); a connection silent for two intervals is
    /// closed. `nil` (the client's default) sends no pings and closes nothing.
    public var heartbeat: TimeAmount?

    /// Makes limits from explicit values; every parameter defaults to the server's default.
    public init(
        preauthLineMax: Int = 4 * 1024,
        lineMax: Int = 64 * 1024,
        lineTimeout: TimeAmount? = .seconds(30),
        handshakeTimeout: TimeAmount = .seconds(5),
        preauthOutboxBytes: Int = 64 * 1024,
        outboxBytes: Int = 1024 * 1024,
        writeTimeout: TimeAmount = .seconds(10),
        heartbeat: TimeAmount? = .seconds(30)
    ) {
        self.preauthLineMax = preauthLineMax
        self.lineMax = lineMax
        self.lineTimeout = lineTimeout
        self.handshakeTimeout = handshakeTimeout
        self.preauthOutboxBytes = preauthOutboxBytes
        self.outboxBytes = outboxBytes
        self.writeTimeout = writeTimeout
        self.heartbeat = heartbeat
    }

    /// The server-side limits that enforce the given wire limits.
    public init(wire: WireLimits) {
        self.init(
            preauthLineMax: wire.preauthLineMax,
            lineMax: wire.lineMax,
            lineTimeout: .milliseconds(Int64(wire.lineTimeoutMs)),
            handshakeTimeout: .milliseconds(Int64(wire.handshakeTimeoutMs)),
            preauthOutboxBytes: wire.preauthOutputBytes,
            outboxBytes: wire.outboxBytes,
            writeTimeout: .milliseconds(Int64(wire.writeTimeoutMs)),
            heartbeat: .milliseconds(Int64(wire.heartbeatMs)))
    }

    /// The server's defaults (Protocol.md, "Limits").
    public static let server = TransportLimits()

    /// The client's defaults: see ``client(wire:)``.
    public static let client = TransportLimits.client(wire: WireLimits())

    /// Client-side limits for a server that advertises `wire`.
    ///
    /// Server lines may be up to `server_line_max` (64 MiB: a snapshot holds a whole board) from the first line on,
    /// so there is no pre-auth line cap. There is no per-line deadline either: a large snapshot on a slow link may
    /// legitimately take longer than `line_timeout_ms`; liveness is the heartbeat's job. The outbox keeps the
    /// server's size and write deadline, so a server that stops reading is detected.
    public static func client(wire: WireLimits) -> TransportLimits {
        TransportLimits(
            preauthLineMax: wire.serverLineMax,
            lineMax: wire.serverLineMax,
            lineTimeout: nil,
            handshakeTimeout: .milliseconds(Int64(wire.handshakeTimeoutMs)),
            preauthOutboxBytes: wire.outboxBytes,
            outboxBytes: wire.outboxBytes,
            writeTimeout: .milliseconds(Int64(wire.writeTimeoutMs)),
            heartbeat: nil)
    }
}
