import ArgumentParser
import BoardServer

/// `corkd serve`'s admin listeners: Prometheus metrics and the health port, both off by default.
struct OperatorOptions: ParsableArguments {
    @Option(
        name: .customLong("metrics"),
        help: "Serve Prometheus metrics on http://HOST:PORT/metrics (and /health), e.g. 127.0.0.1:9420. Off by default; loopback only unless --metrics-allow-remote.")
    var metrics: String?

    @Flag(
        name: .customLong("metrics-allow-remote"),
        help: "Let --metrics bind an address other than loopback (the endpoint has no authentication: firewall it).")
    var metricsAllowRemote = false

    @Option(
        name: .customLong("health"),
        help: "Answer GET /health on HOST:PORT with 200 while serving, 503 when the store cannot commit or the node is stopping (for HAProxy). Off by default.")
    var health: String?

    /// Puts the listeners in the configuration; throws a usage error for a malformed or refused address.
    func apply(to configuration: inout ServerConfiguration) throws {
        if let metrics {
            guard let address = AdminAddress(metrics) else { throw CorkdExit.usage("--metrics takes HOST:PORT, e.g. 127.0.0.1:9420") }
            guard address.isLoopback || metricsAllowRemote else {
                throw CorkdExit.usage(
                    "--metrics (metrics.listen) \(metrics) is not a loopback address; metrics have no authentication. Add --metrics-allow-remote (metrics.allow_remote = true) to bind it anyway")
            }
            configuration.metricsAddress = address
        }
        if let health {
            guard let address = AdminAddress(health) else { throw CorkdExit.usage("--health takes HOST:PORT, e.g. 127.0.0.1:9421") }
            configuration.healthAddress = address
        }
    }

    /// The banner's lines for the listeners that are on (their bound ports).
    static func banner(_ configuration: ServerConfiguration) -> [String] {
        var lines: [String] = []
        if let address = configuration.metricsAddress, let port = configuration.metrics.metricsPort {
            lines.append("metrics on http://\(AdminAddress(host: address.host, port: port))/metrics")
        }
        if let address = configuration.healthAddress, let port = configuration.metrics.healthPort {
            lines.append("health on http://\(AdminAddress(host: address.host, port: port))/health")
        }
        return lines
    }
}
