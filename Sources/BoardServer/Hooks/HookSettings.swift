/// How `corkd` delivers outgoing webhooks: what targets are allowed, timeouts, retries (Protocol.md, "Hooks";
/// every field has a default, STYLE.md 9).
public struct HookSettings: Hashable, Sendable {
    /// Allow `http://` URLs whose host is loopback (`127.0.0.1`, `::1`, `localhost`), and loopback targets at all
    /// (`corkd serve --hooks-allow-http-loopback`; for receivers on the same machine, and tests). Default false.
    public var allowHTTPLoopback = false
    /// Allow `https://` targets that resolve to private, carrier-grade NAT, unique-local or loopback addresses
    /// (`--hooks-allow-private`; for receivers on an internal network). Default false: refused (SSRF).
    public var allowPrivateTargets = false
    /// Most hooks per board. Default 20.
    public var perBoardMax = 20
    /// How long one delivery may take, connecting included; a slower receiver counts as failed. Default 10 s.
    public var requestTimeout: Duration = .seconds(10)
    /// Backoff and the failing window.
    public var retry = HookRetryPolicy()
    /// How often an idle hook looks for changes it was not rung for (other nodes' commits, a lost signal).
    /// Default 5 s.
    public var idlePoll: Duration = .seconds(5)
    /// Changes read from the log per read. Default 100.
    public var batch = 100

    /// The defaults.
    public init() {}
}
