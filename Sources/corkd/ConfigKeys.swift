import BoardCore
import BoardServer
import BoardWire
import Foundation
import Logging

/// One setting of corkd.toml: the option it stands for, what type its value has and which values are possible.
///
/// The file, the environment and the command line all end up as `corkd serve`'s own options, so a setting means
/// exactly what its flag means and is checked by the same code.
struct ConfigKey: Sendable {
    enum Kind: Sendable {
        case string
        /// An integer in a range.
        case integer(ClosedRange<Int64>)
        /// A switch: the flag to pass when the value is true, or when it is false (the other is the default).
        case flag(whenTrue: String?, whenFalse: String?)
        /// A list of strings, one option per element.
        case strings

        var typeName: String {
            switch self {
            case .string: "a string"
            case .integer: "an integer"
            case .flag: "true or false"
            case .strings: "an array of strings"
            }
        }
    }

    /// Which commands take the setting: every command with a data directory, or `corkd serve` only.
    enum Scope: Sendable { case everyCommand, serve }

    /// The dotted name: `port` in `[server]` is `server.port`.
    let name: String
    /// The long option it stands for (`--port`); for a flag, the flags are in `kind`.
    let option: String
    let kind: Kind
    let scope: Scope
    /// A password may be in it: `config check` masks it.
    var secret = false
    /// What is wrong with a string value, or nil when it is possible.
    var check: (@Sendable (String) -> String?)? = nil
    /// The value `corkd serve` runs with, from its parsed options (nil: not set).
    let effective: @Sendable (Serve) -> ConfigValue?

    /// The environment variable that sets it: `CORKD_` and the name in capitals, dots as underscores.
    var environmentName: String {
        "CORKD_" + name.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    /// The table it is in (`server`), or nil at the top level.
    var table: String? { name.contains(".") ? String(name.split(separator: ".")[0]) : nil }

    /// Every option the command line could set it with.
    var options: [String] {
        switch kind {
        case .flag(let whenTrue, let whenFalse): [whenTrue, whenFalse].compactMap { $0 }
        default: [option]
        }
    }

    /// The command-line arguments that give it `value`.
    func arguments(for value: ConfigValue) -> [String] {
        switch (kind, value) {
        case (.flag(let whenTrue, let whenFalse), .bool(let on)): (on ? whenTrue : whenFalse).map { [$0] } ?? []
        case (.strings, .strings(let list)): list.flatMap { [option, $0] }
        case (_, .integer(let number)): [option, String(number)]
        case (_, .string(let text)): [option, text]
        default: []
        }
    }
}

/// A setting's value, once its type is known to be right.
enum ConfigValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case strings([String])

    /// As TOML writes it.
    var toml: String {
        switch self {
        case .string(let text): Self.quoted(text)
        case .integer(let number): String(number)
        case .bool(let on): on ? "true" : "false"
        case .strings(let list): "[" + list.map(Self.quoted).joined(separator: ", ") + "]"
        }
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += String(format: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

extension ConfigKey {
    /// Every setting corkd.toml may hold, in the order `corkd config check` prints them.
    static let all: [ConfigKey] = [
        ConfigKey(
            name: "data_dir", option: "--data-dir", kind: .string, scope: .everyCommand, effective: { .string($0.data.dataDirectory) }),
        ConfigKey(
            name: "store", option: "--store", kind: .string, scope: .everyCommand, secret: true,
            check: { text in
                do {
                    _ = try StoreLocation.parse(text, environment: [:])
                    return nil
                } catch let error as ServerError {
                    return error.message
                } catch {
                    return "\(error)"
                }
            },
            effective: { .string($0.data.store ?? "sqlite") }),
        ConfigKey(
            name: "log_level", option: "--log-level", kind: .string, scope: .everyCommand,
            check: { Logger.Level(rawValue: $0) == nil ? "must be one of \(DataOptions.levels)" : nil },
            effective: { .string($0.data.logLevel) }),

        ConfigKey(name: "server.host", option: "--host", kind: .string, scope: .serve, effective: { .string($0.host) }),
        ConfigKey(
            name: "server.public_host", option: "--public-host", kind: .string, scope: .serve,
            effective: { $0.publicHost.map(ConfigValue.string) }),
        ConfigKey(name: "server.port", option: "--port", kind: .integer(0...65535), scope: .serve, effective: { .integer(Int64($0.port)) }),
        ConfigKey(
            name: "server.public_port", option: "--public-port", kind: .integer(1...65535), scope: .serve,
            effective: { $0.publicPort.map { .integer(Int64($0)) } }),
        ConfigKey(name: "server.cert", option: "--cert", kind: .string, scope: .serve, effective: { $0.cert.map(ConfigValue.string) }),
        ConfigKey(name: "server.key", option: "--key", kind: .string, scope: .serve, effective: { $0.key.map(ConfigValue.string) }),

        ConfigKey(
            name: "limits.rate", option: "--rate", kind: .integer(Serve.rateRange), scope: .serve, effective: { .integer(Int64($0.rate)) }),
        ConfigKey(
            name: "limits.burst", option: "--burst", kind: .integer(Serve.rateRange), scope: .serve, effective: { .integer(Int64($0.burst)) }),
        ConfigKey(
            name: "limits.connections_per_user", option: "--connections-per-user", kind: .integer(Serve.connectionsRange),
            scope: .serve, effective: { .integer(Int64($0.connectionsPerUser)) }),
        ConfigKey(
            name: "limits.members_max", option: "--members-max", kind: .integer(1...Int64(Limits.membersMax)), scope: .serve,
            effective: { .integer(Int64($0.membersMax)) }),
        ConfigKey(
            name: "limits.handshake_timeout_ms", option: "--handshake-timeout-ms", kind: .integer(Serve.timeoutRange),
            scope: .serve, effective: { .integer(Int64($0.handshakeTimeoutMs)) }),
        ConfigKey(
            name: "limits.auth_timeout_ms", option: "--auth-timeout-ms", kind: .integer(Serve.timeoutRange), scope: .serve,
            effective: { .integer(Int64($0.authTimeoutMs)) }),
        ConfigKey(
            name: "limits.heartbeat_ms", option: "--heartbeat-ms", kind: .integer(Serve.timeoutRange), scope: .serve,
            effective: { .integer(Int64($0.heartbeatMs)) }),

        ConfigKey(
            name: "web.enabled", option: "--no-web", kind: .flag(whenTrue: nil, whenFalse: "--no-web"), scope: .serve,
            effective: { .bool(!$0.web.disabled) }),
        ConfigKey(
            name: "web.port", option: "--web-port", kind: .integer(0...65535), scope: .serve,
            effective: { $0.web.port.map { .integer(Int64($0)) } }),
        ConfigKey(name: "web.host", option: "--web-host", kind: .string, scope: .serve, effective: { $0.web.host.map(ConfigValue.string) }),
        ConfigKey(
            name: "web.public_url", option: "--public-web-url", kind: .string, scope: .serve,
            check: { text in
                guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                    return "must be an http:// or https:// URL"
                }
                return nil
            },
            effective: { $0.web.publicURL.map(ConfigValue.string) }),
        ConfigKey(name: "web.key", option: "--web-key", kind: .string, scope: .serve, effective: { $0.web.keyFile.map(ConfigValue.string) }),
        ConfigKey(
            name: "web.allow_origins", option: "--web-allow-origin", kind: .strings, scope: .serve,
            effective: { .strings($0.web.allowedOrigins) }),

        ConfigKey(
            name: "hooks.allow_http_loopback", option: "--hooks-allow-http-loopback",
            kind: .flag(whenTrue: "--hooks-allow-http-loopback", whenFalse: nil), scope: .serve,
            effective: { .bool($0.hookOptions.allowHTTPLoopback) }),
        ConfigKey(
            name: "hooks.allow_private", option: "--hooks-allow-private", kind: .flag(whenTrue: "--hooks-allow-private", whenFalse: nil),
            scope: .serve, effective: { .bool($0.hookOptions.allowPrivate) }),
        ConfigKey(
            name: "hooks.retry_initial_ms", option: "--hooks-retry-initial-ms", kind: .integer(1...86_400_000), scope: .serve,
            effective: { .integer($0.hookOptions.retryInitialMs) }),
        ConfigKey(
            name: "hooks.retry_max_ms", option: "--hooks-retry-max-ms", kind: .integer(1...86_400_000), scope: .serve,
            effective: { .integer($0.hookOptions.retryMaxMs) }),
        ConfigKey(
            name: "hooks.retry_window_ms", option: "--hooks-retry-window-ms", kind: .integer(0...31_536_000_000), scope: .serve,
            effective: { .integer($0.hookOptions.retryWindowMs) }),
        ConfigKey(
            name: "hooks.timeout_ms", option: "--hooks-timeout-ms", kind: .integer(100...3_600_000), scope: .serve,
            effective: { .integer($0.hookOptions.timeoutMs) }),

        ConfigKey(
            name: "mail.enabled", option: "--no-mail", kind: .flag(whenTrue: nil, whenFalse: "--no-mail"), scope: .serve,
            effective: { .bool(!$0.noMail) }),
        ConfigKey(name: "mail.command", option: "--mail-command", kind: .string, scope: .serve, effective: { .string($0.mailCommand) }),
        ConfigKey(
            name: "mail.from", option: "--mail-from", kind: .string, scope: .serve,
            check: { NotifySettings.addressProblem($0) },
            effective: { $0.mailFrom.map(ConfigValue.string) }),
        ConfigKey(
            name: "mail.scan_interval_ms", option: "--mail-scan-interval-ms", kind: .integer(1_000...3_600_000), scope: .serve,
            effective: { .integer(Int64($0.mailScanIntervalMs)) }),

        ConfigKey(
            name: "metrics.listen", option: "--metrics", kind: .string, scope: .serve, check: ConfigKey.address,
            effective: { $0.operating.metrics.map(ConfigValue.string) }),
        ConfigKey(
            name: "metrics.allow_remote", option: "--metrics-allow-remote",
            kind: .flag(whenTrue: "--metrics-allow-remote", whenFalse: nil), scope: .serve,
            effective: { .bool($0.operating.metricsAllowRemote) }),
        ConfigKey(
            name: "health.listen", option: "--health", kind: .string, scope: .serve, check: ConfigKey.address,
            effective: { $0.operating.health.map(ConfigValue.string) }),
    ]

    /// The tables corkd.toml may have.
    static let tables: [String] = {
        var seen: [String] = []
        for key in all { if let table = key.table, !seen.contains(table) { seen.append(table) } }
        return seen
    }()

    static let byName: [String: ConfigKey] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    static let address: @Sendable (String) -> String? = { AdminAddress($0) == nil ? "must be HOST:PORT, e.g. 127.0.0.1:9420" : nil }

    /// The known names a misspelt one may have meant, as "did you mean" says them (`server.port or web.port`); nil
    /// when none is close.
    static func suggestion(for name: String, among names: [String]) -> String? {
        let meant = candidates(for: name, among: names)
        return meant.isEmpty ? nil : meant.joined(separator: " or ")
    }

    /// The known names a misspelt one may have meant: for a key written without its table (`port`, or a flag's
    /// spelling such as `connections-per-user`) or in another table (`server.rate`) every table's key of that name,
    /// else the closest name when it is close enough.
    static func candidates(for name: String, among names: [String]) -> [String] {
        let bare = name.replacingOccurrences(of: "-", with: "_")
        let tabled = names.filter { $0 != bare && $0.hasSuffix("." + bare) }
        if !tabled.isEmpty { return tabled }
        // A key in the wrong table (`server.rate`): the tables that have a key of that name.
        if let dot = bare.lastIndex(of: ".") {
            let key = bare[bare.index(after: dot)...]
            let moved = names.filter { $0 != bare && $0.hasSuffix("." + key) }
            if !moved.isEmpty { return moved }
        }
        let scored = names.map { ($0, EditDistance.between(name, $0)) }.min { $0.1 < $1.1 }
        guard let (best, distance) = scored, distance <= max(2, name.count / 3) else { return [] }
        return [best]
    }
}
