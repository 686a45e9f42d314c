import Foundation

/// Turns the configuration file's and the environment's settings into the command's own options, placed before
/// the ones typed, for the settings the command line does not give: the command line wins over the environment,
/// which wins over the file, which wins over the defaults.
enum ConfigArguments {
    /// The subcommands that take a data directory (and so `data_dir`, `store`, `log_level` and `--config`).
    static let dataCommands: Set<String> = ["serve", "invite", "revoke", "board", "backup"]

    /// Arguments that only ask for help or the version: no configuration is read for them.
    static func asksForHelp(_ arguments: [String]) -> Bool {
        arguments.first == "help" || arguments.contains { ["--help", "-h", "--version", "--experimental-dump-help"].contains($0) }
            || (arguments.count >= 2 && arguments[1] == "help")
    }

    /// `arguments` (without the program name) with the configuration's settings added; unchanged for a command that
    /// takes none, and for help.
    static func compose(_ arguments: [String], environment: [String: String]) throws(ConfigError) -> [String] {
        guard !asksForHelp(arguments), let (pathLength, scopes) = commandPath(arguments) else { return arguments }
        let located = ConfigFile.locate(arguments: arguments, environment: environment)
        for warning in ConfigFile.strayEnvironment(environment) { Console.error(warning) }
        let loaded = try ConfigFile.load(path: located?.path, environment: environment)
        var added: [String] = []
        if let located, !located.explicit { added += ["--config", located.path] }
        added += settings(loaded, scopes: scopes, besides: arguments)
        return Array(arguments[..<pathLength]) + added + Array(arguments[pathLength...])
    }

    /// The options for `loaded`'s settings in `scopes` that `typed` does not give.
    static func settings(_ loaded: LoadedConfig, scopes: Set<ConfigKey.Scope>, besides typed: [String]) -> [String] {
        var added: [String] = []
        for key in ConfigKey.all where scopes.contains(key.scope) {
            guard let (value, _) = loaded.values[key.name], !gives(typed, key) else { continue }
            added += key.arguments(for: value)
        }
        return added
    }

    /// Whether the typed arguments set the key themselves.
    static func gives(_ typed: [String], _ key: ConfigKey) -> Bool {
        let options = key.options
        for argument in typed {
            if argument == "--" { break }
            if options.contains(argument) || options.contains(where: { argument.hasPrefix($0 + "=") }) { return true }
        }
        return false
    }

    /// How many leading arguments name the subcommand, and which settings it takes; nil for one that takes none.
    static func commandPath(_ arguments: [String]) -> (Int, Set<ConfigKey.Scope>)? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return (0, [.everyCommand, .serve]) }
        switch first {
        case "serve": return (1, [.everyCommand, .serve])
        case "board":
            return arguments.count > 1 && !arguments[1].hasPrefix("-") ? (2, [.everyCommand]) : nil
        case _ where dataCommands.contains(first): return (1, [.everyCommand])
        default: return nil
        }
    }
}
