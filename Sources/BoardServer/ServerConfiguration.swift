import BoardCore
import BoardWire
import Foundation

/// Everything `corkd` needs to run, as data: every field has a documented default (STYLE.md 9).
///
/// Only the `corkd` executable reads argv and the environment; it builds one of these.
public struct ServerConfiguration: Sendable {
    /// The address to listen on. Default `127.0.0.1`.
    public var host: String = "127.0.0.1"
    /// The host name or address invite URLs name, also put in a generated certificate's SANs; nil: `host`, or for a
    /// wildcard `host` (`0.0.0.0`, `::`) the machine's host name. Default nil.
    public var publicHost: String?
    /// The TCP port; 0 picks a free one (tests). Default 7420.
    public var port: Int = 7420
    /// The port invite URLs name when clients reach this node through another port (a load balancer such as
    /// HAProxy in front of several nodes on one machine); nil: the port the node listens on. Default nil.
    public var publicPort: Int?
    /// Where the store, the certificate and `owner.url` live. Default `./corkd-data`.
    public var dataDirectory: URL = URL(fileURLWithPath: "corkd-data")
    /// PEM certificate chain; nil means the self-signed certificate in the data directory (created on first start).
    public var certificatePath: String?
    /// PEM private key for `certificatePath`.
    public var keyPath: String?
    /// The host names and addresses put in a generated certificate's SANs (localhost, 127.0.0.1 and the host name).
    public var certificateHosts: [String] = ["localhost", "127.0.0.1", "::1"]
    /// The limits enforced and advertised in `welcome` (Protocol.md, "Limits").
    public var limits: WireLimits = WireLimits()
    /// A snapshot is stored every this many changes of a board, so start-up replays a short tail. Default 1,000.
    public var snapshotInterval: UInt64 = 1_000
    /// How often the admin queue (`corkd invite`, `revoke`, `board`) is polled (one indexed read); an admin command
    /// waits up to this long for the running server to pick it up. Default 50 ms.
    public var adminPollInterval: Duration = .milliseconds(50)
    /// How long the answer to a failed login waits once its address has failed more than 10 times in a minute
    /// (RELIABILITY.md A2). Default 1 s.
    public var failedLoginDelay: Duration = .seconds(1)
    /// PostgreSQL: how long a node waits before it opens its `LISTEN` connection again after losing it (and between
    /// failed attempts). While it is down the node's boards learn of other nodes' commits only when their own commit
    /// finds the head moved; once it is back every loaded board catches up by seq. Default 500 ms.
    public var listenRetryDelay: Duration = .milliseconds(500)
    /// PostgreSQL: how often a node tells the others it is alive, for presence across nodes. Default 2 s.
    public var presenceHeartbeat: Duration = .seconds(2)
    /// PostgreSQL: how long the people of a node that is not heard from (killed, or cut off from the database) stay
    /// in the other nodes' presence before they leave. Default 10 s.
    public var presenceNodeTTL: Duration = .seconds(10)
    /// Whether a board writes its queued presence lines by itself, after the flush window
    /// (`BoardActor.presenceFlushMs`). Only tests that call `flushPresence` themselves turn it off, so that a slow
    /// machine cannot flush in the middle of what they check.
    public var flushesPresence = true
    /// How long a drag position dropped by `presence_rate_per_s` is held before it is sent (unless a newer update of
    /// the session goes out first). nil, the default: until the rate allows the next update. Tests that count what
    /// gets through set it long, so that how fast the machine runs cannot add a held position to the count.
    public var presenceHoldMs: UInt64?
    /// The board created on first start. Default `main`.
    public var defaultBoard: BoardID = "main"
    /// The owner created on first start. Default `owner`.
    public var ownerName: UserID = "owner"
    /// The name the server gives in `welcome`.
    public var serverName: String = "corkd/\(ProductVersion.version)"
    /// Where to serve `GET /metrics` (Prometheus text) and `/health` over plain HTTP; nil: off. Default nil.
    /// `corkd serve --metrics` refuses an address other than loopback unless told otherwise.
    public var metricsAddress: AdminAddress?
    /// Where to serve `GET /health` alone (200 while serving, else 503), for a load balancer; nil: off. Default nil.
    public var healthAddress: AdminAddress?
    /// Where the server counts (a sink, not a setting): its own registry unless the caller passes one to read.
    public var metrics = ServerMetrics()
    /// Outgoing webhooks: allowed targets, timeouts, retries.
    public var hooks = HookSettings()
    /// What changes while the server runs (SIGHUP in `corkd`): read through ``currentLimits`` and ``currentHooks``.
    public let live = LiveSettings()
    /// How boards and sessions tell the webhook deliverer of commits and hook changes (a sink, not a setting).
    public var hookSignals = HookSignals()
    /// Which boards committed since the inbox deriver last looked (a fresh one per run of a server).
    public var inboxSignals = InboxSignals()
    /// How often due dates are checked for reminders (``ReminderRules``). Default 1 minute.
    public var reminderScanInterval: Duration = .seconds(60)
    /// How long before its due day a card is due soon. Default 24 h.
    public var reminderLead: Duration = .seconds(86_400)
    /// How unread inbox entries go out by mail. Default: no mail (`corkd serve` uses `/usr/sbin/sendmail -t`).
    public var mail = MailSettings()
    /// PostgreSQL: where boards drop their presence changes for the other nodes (a sink, not a setting; set by the
    /// server when its store is a ``PresenceBus``). Default nil: presence stays on this node.
    public var presenceOutbound: PresenceOutbound?

    /// The defaults.
    public init() {}

    /// Whether `host` is a wildcard address (every interface), which no client can connect to by that name.
    public var bindsEveryInterface: Bool { ["0.0.0.0", "::", "[::]", "", "*"].contains(host) }

    /// The host clients are told to connect to: `publicHost`, else `host` unless it is a wildcard address, else
    /// `machineHostName`.
    public func advertisedHost(machineHostName: String) -> String {
        if let publicHost, !publicHost.isEmpty { return publicHost }
        return bindsEveryInterface ? machineHostName : host
    }
}
