import Logging
import NIOCore
import NIOHTTP1

extension BoardServer {
    /// Binds the admin listeners the configuration asks for (`metricsAddress`, `healthAddress`) and records their
    /// ports in the metrics; throws a `network` error naming the one that cannot listen.
    static func bindAdminListeners(
        _ configuration: ServerConfiguration, group: any EventLoopGroup, logger: Logger,
        sample: @escaping @Sendable () async -> ServerMetrics.Sample
    ) async throws -> [AdminListener] {
        let metrics = configuration.metrics
        let answer: @Sendable (AdminListener.Role, HTTPRequestHead) async -> AdminListener.Response = { role, head in
            await metrics.answer(role, head, sample: sample)
        }
        var listeners: [AdminListener] = []
        for (role, address) in [(AdminListener.Role.metrics, configuration.metricsAddress), (.health, configuration.healthAddress)] {
            guard let address else { continue }
            do {
                let listener = try await AdminListener.bind(role, at: address, group: group, logger: logger, answer: answer)
                listeners.append(listener)
                metrics.bound(role, port: listener.localAddress?.port ?? address.port)
                logger.info("\(role.rawValue) listening", metadata: ["address": "\(listener.localAddress?.description ?? "?")"])
            } catch {
                for listener in listeners { listener.close() }
                throw ServerError(.network, "cannot listen for \(role.rawValue) on \(address): \(error)")
            }
        }
        return listeners
    }
}

extension ServerMetrics {
    /// The answer to a `GET` on an admin listener.
    func answer(
        _ role: AdminListener.Role, _ head: HTTPRequestHead, sample: @Sendable () async -> Sample
    ) async -> AdminListener.Response {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        switch (role, path) {
        case (.metrics, "/metrics"):
            return AdminListener.Response(
                status: .ok, contentType: "text/plain; version=0.0.4; charset=utf-8", body: exposition(after: await sample()))
        case (_, "/health"), (.health, "/"):
            let verdict = health.verdict
            return AdminListener.Response(status: verdict == .serving ? .ok : .serviceUnavailable, body: verdict.text + "\n")
        default:
            return AdminListener.Response(status: .notFound, body: "not found; try /health\(role == .metrics ? " or /metrics" : "")\n")
        }
    }
}
