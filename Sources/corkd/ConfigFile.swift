import Foundation
import TOMLKit

/// Where a setting's value came from.
enum ConfigSource: Equatable, Sendable, CustomStringConvertible {
    case file(path: String, line: Int?)
    case environment(String)
    case defaulted

    var description: String {
        switch self {
        case .file(let path, let line): line.map { "\(path):\($0)" } ?? path
        case .environment(let name): "environment \(name)"
        case .defaulted: "default"
        }
    }
}

/// One thing wrong with a configuration: where, which setting, and what.
struct ConfigProblem: Equatable, Sendable, CustomStringConvertible {
    var source: ConfigSource
    var key: String?
    var message: String

    var description: String { "\(source): " + (key.map { "\($0): " } ?? "") + message }
}

/// A configuration corkd refuses to start on: every problem found, not only the first.
struct ConfigError: Error, Sendable, CustomStringConvertible {
    var problems: [ConfigProblem]

    var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// The settings a configuration file and the environment give, checked: each with its value and where it came from.
struct LoadedConfig: Sendable {
    /// The file read, if any.
    var path: String?
    var values: [String: (value: ConfigValue, source: ConfigSource)] = [:]
}

/// Reads corkd.toml (with TOMLKit) and the `CORKD_…` environment, and checks every setting.
///
/// Order, strongest first: a command-line option, then its environment variable, then the file, then corkd's
/// default. An unknown key or table, a value of the wrong type and an impossible value are errors that name the key
/// and the line; corkd does not start on them.
enum ConfigFile {
    /// Read when it exists and neither `--config` nor `$CORKD_CONFIG` names another file (the packages install it).
    static let defaultPath = "/etc/corkd/corkd.toml"

    /// The file to read: `--config FILE` (or `--config=FILE`), else `$CORKD_CONFIG`, else ``defaultPath`` when it
    /// exists; `explicit` is false only for the last.
    static func locate(arguments: [String], environment: [String: String]) -> (path: String, explicit: Bool)? {
        if let path = optionValue("--config", in: arguments) { return (path, true) }
        if let path = environment["CORKD_CONFIG"], !path.isEmpty { return (path, true) }
        if FileManager.default.fileExists(atPath: defaultPath) {
            // The installed service's file (root:corkd 0640): a user trying corkd in their own directory on that
            // machine is not refused for it; the service and its admin commands (root, corkd) read it.
            guard FileManager.default.isReadableFile(atPath: defaultPath) else {
                Console.error(
                    "corkd: \(defaultPath) is there but this user cannot read it (the installed service's); reading no configuration file (--config FILE reads one)\n")
                return nil
            }
            return (defaultPath, false)
        }
        return nil
    }

    /// The value of `--name VALUE` or `--name=VALUE` in `arguments` (the last one), before any `--`.
    static func optionValue(_ name: String, in arguments: [String]) -> String? {
        var found: String?
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            let argument = arguments[index]
            if argument == name, index + 1 < arguments.count {
                found = arguments[index + 1]
                index += 1
            } else if argument.hasPrefix(name + "=") {
                found = String(argument.dropFirst(name.count + 1))
            }
            index += 1
        }
        return found
    }

    /// The file at `path` (if any) and the environment's settings, checked.
    static func load(path: String?, environment: [String: String]) throws(ConfigError) -> LoadedConfig {
        var loaded = LoadedConfig(path: path)
        var problems: [ConfigProblem] = []
        if let path {
            // Read to the end through a handle rather than by the file's size, so a device (`/dev/null`, "no file")
            // and a pipe (`--config <(…)`) read too.
            guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.readToEnd() ?? Data() else {
                throw ConfigError(problems: [ConfigProblem(source: .file(path: path, line: nil), key: nil, message: readProblem(path))])
            }
            try? handle.close()
            guard let text = String(data: data, encoding: .utf8) else {
                throw ConfigError(problems: [ConfigProblem(
                    source: .file(path: path, line: nil), key: nil, message: "the configuration file is not UTF-8 text")])
            }
            let (values, found) = parse(text, path: path)
            loaded.values = values
            problems += found
        }
        let (values, found) = environmentValues(environment)
        loaded.values.merge(values) { _, new in new }
        problems += found
        guard problems.isEmpty else { throw ConfigError(problems: problems) }
        return loaded
    }

    /// Why a configuration file cannot be read, with what to do about it.
    static func readProblem(_ path: String) -> String {
        let reason = String(cString: strerror(access(path, R_OK) == 0 ? EIO : errno))
        var message = "cannot read the configuration file: \(reason)"
        if errno == EACCES {
            message += " (run as the user corkd runs as, e.g. `runuser -u corkd -- corkd …`, or name another file with --config)"
        }
        return message
    }

    /// The settings in a TOML document, and what is wrong with it.
    static func parse(_ text: String, path: String) -> (values: [String: (value: ConfigValue, source: ConfigSource)], problems: [ConfigProblem]) {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            return ([:], [ConfigProblem(source: .file(path: path, line: error.source.begin.line), key: nil, message: error.description)])
        } catch {
            return ([:], [ConfigProblem(source: .file(path: path, line: nil), key: nil, message: "\(error)")])
        }
        let lines = KeyLines(text)
        var values: [String: (value: ConfigValue, source: ConfigSource)] = [:]
        var problems: [ConfigProblem] = []
        func problem(_ name: String, _ message: String) {
            problems.append(ConfigProblem(source: .file(path: path, line: lines.line(of: name)), key: name, message: message))
        }
        func take(_ name: String, _ node: TOMLValue) {
            guard let key = ConfigKey.byName[name] else {
                let hint = ConfigKey.suggestion(for: name, among: ConfigKey.all.map(\.name)).map { " (did you mean \($0)?)" } ?? ""
                problem(name, "unknown key\(hint)")
                return
            }
            switch value(of: node, as: key.kind) {
            case .success(let value):
                if let message = check(value, for: key) { problem(name, message) }
                else { values[name] = (value, .file(path: path, line: lines.line(of: name))) }
            case .failure(let wrong): problem(name, wrong.message)
            }
        }
        for (name, convertible) in sorted(table) {
            let node = convertible.tomlValue
            if node.type == .table, let inner = node.table {
                guard ConfigKey.tables.contains(name) else {
                    let hint = ConfigKey.suggestion(for: name, among: ConfigKey.tables).map { " (did you mean [\($0)]?)" } ?? ""
                    problem(name, "unknown table [\(name)]\(hint)")
                    continue
                }
                for (inner, value) in sorted(inner) { take("\(name).\(inner)", value.tomlValue) }
            } else {
                take(name, node)
            }
        }
        problems.sort { ($0.source.line ?? .max, $0.key ?? "") < ($1.source.line ?? .max, $1.key ?? "") }
        return (values, problems)
    }

    /// A table's entries in key order (TOMLKit iterates in toml++'s order; problems are sorted by line anyway).
    private static func sorted(_ table: TOMLTable) -> [(String, TOMLValueConvertible)] {
        var entries: [(String, TOMLValueConvertible)] = []
        for entry in table { entries.append(entry) }
        return entries.sorted { $0.0 < $1.0 }
    }

    /// A TOML value as `kind` wants it, or what is wrong with its type.
    static func value(of node: TOMLValue, as kind: ConfigKey.Kind) -> Result<ConfigValue, TypeProblem> {
        let wrong = Result<ConfigValue, TypeProblem>.failure(TypeProblem(message: "must be \(kind.typeName), not \(Self.typeName(node))"))
        switch kind {
        case .string: return node.string.map { .success(.string($0)) } ?? wrong
        case .integer: return node.type == .int ? node.int.map { .success(.integer(Int64($0))) } ?? wrong : wrong
        case .flag: return node.bool.map { .success(.bool($0)) } ?? wrong
        case .strings:
            guard let array = node.array else { return wrong }
            var list: [String] = []
            for element in array {
                guard let text = element.tomlValue.string else { return wrong }
                list.append(text)
            }
            return .success(.strings(list))
        }
    }

    /// A value of the wrong type, said as its key's problem.
    struct TypeProblem: Error { var message: String }

    static func typeName(_ node: TOMLValue) -> String {
        switch node.type {
        case .int: "an integer"
        case .string: "a string"
        case .bool: "true or false"
        case .array: "an array"
        case .table: "a table"
        case .double: "a floating-point number"
        default: "a \(node.type)"
        }
    }

    /// What is impossible about a value of the right type, or nil.
    static func check(_ value: ConfigValue, for key: ConfigKey) -> String? {
        switch (key.kind, value) {
        case (.integer(let range), .integer(let number)) where !range.contains(number):
            return "must be \(range.lowerBound)–\(range.upperBound), not \(number)"
        case (_, .string(let text)):
            if text.isEmpty { return "must not be empty (leave the key out for the default)" }
            return key.check?(text)
        case (_, .strings(let list)):
            for text in list { if let message = key.check?(text) { return message } }
            return nil
        default:
            return nil
        }
    }

    /// Warnings for `CORKD_…` variables that set nothing but look like a setting (`CORKD_PORT`, where
    /// `CORKD_SERVER_PORT` is meant): without one, corkd would quietly run on the default. Other `CORKD_…` names
    /// (another tool's, the unit's `CORKD_OPTIONS`) are left alone.
    static func strayEnvironment(_ environment: [String: String]) -> [String] {
        let known = Set(ConfigKey.all.map(\.environmentName)).union(["CORKD_CONFIG", "CORKD_STORE"])
        return environment.keys.sorted().compactMap { variable in
            guard variable.hasPrefix("CORKD_"), !known.contains(variable) else { return nil }
            let name = variable.dropFirst("CORKD_".count).lowercased()
            let variables = ConfigKey.candidates(for: name, among: ConfigKey.all.map(\.name))
                .compactMap { ConfigKey.byName[$0]?.environmentName }
            guard !variables.isEmpty else { return nil }
            return "corkd: environment \(variable): not a setting, ignored (did you mean \(variables.joined(separator: " or "))?)\n"
        }
    }

    /// The settings `CORKD_…` environment variables give (`CORKD_SERVER_PORT=7500`), checked.
    static func environmentValues(_ environment: [String: String]) -> (values: [String: (value: ConfigValue, source: ConfigSource)], problems: [ConfigProblem]) {
        var values: [String: (value: ConfigValue, source: ConfigSource)] = [:]
        var problems: [ConfigProblem] = []
        for key in ConfigKey.all {
            let variable = key.environmentName
            guard let text = environment[variable], !text.isEmpty else { continue }
            let source = ConfigSource.environment(variable)
            let parsed: ConfigValue?
            switch key.kind {
            case .string: parsed = .string(text)
            case .integer: parsed = Int64(text.trimmingCharacters(in: .whitespaces)).map(ConfigValue.integer)
            case .flag:
                switch text.lowercased() {
                case "true", "1", "yes", "on": parsed = .bool(true)
                case "false", "0", "no", "off": parsed = .bool(false)
                default: parsed = nil
                }
            case .strings:
                parsed = .strings(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            }
            guard let parsed else {
                problems.append(ConfigProblem(source: source, key: key.name, message: "must be \(key.kind.typeName), not \(text)"))
                continue
            }
            if let message = check(parsed, for: key) {
                problems.append(ConfigProblem(source: source, key: key.name, message: message))
            } else {
                values[key.name] = (parsed, source)
            }
        }
        return (values, problems)
    }
}

extension ConfigSource {
    var line: Int? {
        if case .file(_, let line) = self { return line }
        return nil
    }
}

/// The line each key of a TOML document is on, for error messages only (TOMLKit gives positions for syntax
/// errors but not for values): `[table]` headers and `key =` lines, dotted keys included. A key it cannot place
/// (inside an inline table or a multi-line string) gets its table's line, or none.
struct KeyLines {
    private var lines: [String: Int] = [:]

    init(_ text: String) {
        var table: [String] = []
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("["), let close = line.firstIndex(of: "]") {
                let inside = line[line.index(after: line.startIndex)..<close].trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
                table = Self.parts(inside)
                record(table, number)
            } else if let equals = line.firstIndex(of: "=") {
                record(table + Self.parts(String(line[..<equals])), number)
            }
        }
    }

    private mutating func record(_ path: [String], _ number: Int) {
        let name = path.joined(separator: ".")
        if !name.isEmpty, lines[name] == nil { lines[name] = number }
    }

    private static func parts(_ text: String) -> [String] {
        text.split(separator: ".").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t\"'")) }
    }

    /// The key's line, or its table's, or nil.
    func line(of name: String) -> Int? {
        if let line = lines[name] { return line }
        let parts = name.split(separator: ".")
        return parts.count > 1 ? lines[String(parts[0])] : nil
    }
}
