import ArgumentParser
import BoardServer
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// On SIGHUP, reads the configuration again (file, environment and the command line corkd started with) and
/// applies what can change while serving: the log level, the op rate and burst, connections per user, and the
/// webhook settings. Says in the log what it changed and what needs a restart; a configuration with problems is
/// logged and changes nothing.
struct ConfigReloader: Service {
    /// The settings a running server takes.
    static let reloadable: Set<String> = Set(
        ["log_level", "limits.rate", "limits.burst", "limits.connections_per_user"]
            + ConfigKey.all.map(\.name).filter { $0.hasPrefix("hooks.") })

    let started: Serve
    let live: LiveSettings
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        var applied = started
        for await _ in signals.cancelOnGracefulShutdown() {
            if let next = reload(from: applied) { applied = next }
        }
    }

    /// Reads the configuration and applies it; the options now in force, or nil when nothing could be applied.
    func reload(from applied: Serve) -> Serve? {
        let environment = ProcessInfo.processInfo.environment
        let next: Serve
        var configuration = ServerConfiguration()
        do {
            var arguments = try ConfigArguments.compose(Array(CommandLine.arguments.dropFirst()), environment: environment)
            if arguments.first == "serve" { arguments.removeFirst() }
            next = try Serve.parse(arguments)
            try next.checkOptions(into: &configuration)
        } catch let error as ConfigError {
            logger.error(
                "SIGHUP: the configuration has problems; nothing was reloaded",
                metadata: ["problems": "\(error.problems.map(\.description).joined(separator: "; "))"])
            return nil
        } catch {
            logger.error("SIGHUP: the configuration cannot be used; nothing was reloaded", metadata: ["error": "\(Serve.message(for: error))"])
            return nil
        }
        var changed: [String] = []
        var needsRestart: [String] = []
        for key in ConfigKey.all {
            if Self.reloadable.contains(key.name) {
                let before = key.effective(applied), after = key.effective(next)
                if before != after { changed.append("\(key.name) \(Self.show(before, key)) → \(Self.show(after, key))") }
            } else {
                let before = key.effective(started), after = key.effective(next)
                if before != after { needsRestart.append("\(key.name) \(Self.show(before, key)) → \(Self.show(after, key))") }
            }
        }
        if let level = Logger.Level(rawValue: next.data.logLevel) { LogLevel.current = level }
        live.set(
            LiveSettings.Overrides(
                rateOpsPerS: configuration.limits.rateOpsPerS, rateBurst: configuration.limits.rateBurst,
                connectionsPerUser: configuration.limits.connectionsPerUser, hooks: configuration.hooks))
        logger.notice(
            "SIGHUP: reloaded the configuration",
            metadata: ["changed": "\(changed.isEmpty ? "nothing" : changed.joined(separator: ", "))"])
        if !needsRestart.isEmpty {
            logger.warning(
                "SIGHUP: not reloaded; restart corkd to apply", metadata: ["settings": "\(needsRestart.joined(separator: ", "))"])
        }
        return next
    }

    static func show(_ value: ConfigValue?, _ key: ConfigKey) -> String {
        guard let value else { return "(not set)" }
        return key.secret ? "(secret)" : value.toml
    }
}

/// How ServiceLifecycle names the reloader in its debug log: not the options it started with, which may hold a
/// database URL with its password.
extension ConfigReloader: CustomStringConvertible {
    var description: String { "ConfigReloader(SIGHUP)" }
}
