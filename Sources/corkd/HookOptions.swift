import ArgumentParser
import BoardServer

/// `corkd serve`'s webhook options: which targets hooks may POST to, and their retry pace.
struct HookOptions: ParsableArguments {
    @Flag(
        name: .customLong("hooks-allow-http-loopback"),
        help: "Let webhooks use http:// to 127.0.0.1, ::1 or localhost, and loopback targets at all (receivers on this machine). Off: https:// only, loopback refused.")
    var allowHTTPLoopback = false

    @Flag(
        name: .customLong("hooks-allow-private"),
        help: "Let https:// webhooks reach private, loopback and carrier-grade NAT addresses (receivers on an internal network). Off: refused, against SSRF.")
    var allowPrivate = false

    @Option(
        name: .customLong("hooks-retry-initial-ms"),
        help: "The first retry's delay after a failed delivery, in ms; each further failure doubles it (with jitter).")
    var retryInitialMs: Int64 = 1_000

    @Option(name: .customLong("hooks-retry-max-ms"), help: "The longest delay between delivery attempts, in ms (also the pace of a failing hook).")
    var retryMaxMs: Int64 = 3_600_000

    @Option(
        name: .customLong("hooks-retry-window-ms"),
        help: "How long a webhook may fail without a success before it is marked failing, in ms (default 24 h).")
    var retryWindowMs: Int64 = 86_400_000

    @Option(name: .customLong("hooks-timeout-ms"), help: "How long one delivery may take, connecting included, in ms.")
    var timeoutMs: Int64 = 10_000

    /// Puts the options in the configuration; a usage error for a value out of range.
    func apply(to configuration: inout ServerConfiguration) throws {
        guard retryInitialMs >= 1, retryMaxMs >= retryInitialMs, retryWindowMs >= 0, timeoutMs >= 100 else {
            throw CorkdExit.usage(
                "--hooks-retry-initial-ms must be at least 1, --hooks-retry-max-ms at least that, --hooks-retry-window-ms at least 0 and --hooks-timeout-ms at least 100")
        }
        configuration.hooks.allowHTTPLoopback = allowHTTPLoopback
        configuration.hooks.allowPrivateTargets = allowPrivate
        configuration.hooks.retry.initial = .milliseconds(retryInitialMs)
        configuration.hooks.retry.maximum = .milliseconds(retryMaxMs)
        configuration.hooks.retry.window = .milliseconds(retryWindowMs)
        configuration.hooks.requestTimeout = .milliseconds(timeoutMs)
    }
}
