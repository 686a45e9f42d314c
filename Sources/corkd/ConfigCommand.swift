import ArgumentParser
import BoardServer
import Foundation

/// `corkd config`: the configuration file.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check the configuration file and print the configuration corkd would serve with.",
        discussion: """
            corkd reads its settings from, strongest first: the command line, CORKD_… environment variables \
            (CORKD_ and the key in capitals with dots as underscores: CORKD_SERVER_PORT, CORKD_STORE), the \
            configuration file (--config FILE, else $CORKD_CONFIG, else \(ConfigFile.defaultPath) when it exists), \
            and its defaults. docs/configuration.md lists every key.
            """,
        subcommands: [Check.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate the configuration and print the effective settings, secrets masked (exit 2 on a problem).",
            discussion: """
                Options of corkd serve given after it (as a unit file or a start loop gives them: \
                corkd config check --data-dir /var/lib/corkd-1 --port 7421) are checked too and win over the \
                environment and the file, as they do for serve.
                """)

        @Option(help: "The configuration file (default: $CORKD_CONFIG, else \(ConfigFile.defaultPath) when it exists).")
        var config: String?

        @Argument(parsing: .allUnrecognized, help: "Options of corkd serve, checked as it would take them.")
        var serveOptions: [String] = []

        func run() throws {
            let environment = ProcessInfo.processInfo.environment
            let located = ConfigFile.locate(arguments: config.map { ["--config", $0] } ?? [], environment: environment)
            // Before the file's problems: a variable that is not a setting may be why one is missing.
            for warning in ConfigFile.strayEnvironment(environment) { Console.error(warning) }
            let loaded: LoadedConfig
            do {
                loaded = try ConfigFile.load(path: located?.path, environment: environment)
            } catch {
                Console.error(ConfigCommand.report(error))
                throw ExitCode(2)
            }
            let arguments = ConfigArguments.settings(loaded, scopes: [.everyCommand, .serve], besides: serveOptions)
            let serve: Serve
            do {
                serve = try Serve.parse(arguments + serveOptions)
                var configuration = ServerConfiguration()
                try serve.checkOptions(into: &configuration)
                // Run as root on a data directory another user owns (the service's): files are checked as that user
                // would read them too, since root reads everything.
                let problems = serve.fileProblems(readableBy: Self.serviceUser(of: serve.data.url))
                if !problems.isEmpty { throw CorkdExit.usage(problems.joined(separator: "\ncorkd: ")) }
                if let problem = Self.dataDirectoryProblem(serve.data.url, given: serve.data.dataDirectory) { throw CorkdExit.usage(problem) }
                let storeInDirectory = (try? serve.data.storeLocation()) == .dataDirectory
                if let problem = Self.dataFileProblem(serve.data.url, storeInDirectory: storeInDirectory, service: Self.serviceUser(of: serve.data.url)) {
                    throw CorkdExit.usage(problem)
                }
            } catch let exit as ExitCode {
                // The problem itself is on stderr already.
                if exit.rawValue == 2 { Console.error(Self.summary) }
                throw exit
            } catch {
                Console.error("corkd: \(Serve.message(for: error))\n" + Self.summary)
                throw ExitCode(2)
            }
            try Console.result(Self.render(serve, loaded: loaded, typed: serveOptions))
        }

        /// Why this user could not use `directory` as the data directory (it, or the nearest folder above it that
        /// exists, cannot be written), or nil. A relative one (the default `corkd-data`) is where serve is started
        /// from, which the check cannot know.
        static func dataDirectoryProblem(_ directory: URL, given: String) -> String? {
            guard given.hasPrefix("/") else { return nil }
            var folder = directory.standardizedFileURL
            var isDirectory: ObjCBool = false
            while !FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), folder.path != "/" {
                folder = folder.deletingLastPathComponent()
            }
            guard !FileManager.default.isWritableFile(atPath: folder.path) else { return nil }
            let what = folder == directory.standardizedFileURL ? "cannot write in it" : "cannot make it in \(folder.path)"
            return "data_dir (--data-dir, CORKD_DATA_DIR) \(directory.path): this user \(what); run config check as the user corkd runs as"
        }

        /// The first of corkd's own files in `directory` that serve would refuse (its user cannot read and write
        /// it), or nil. Run as root on the service's directory: a file that is not the service user's (a store root
        /// made) or that it cannot read.
        static func dataFileProblem(
            _ directory: URL, storeInDirectory: Bool, service: (uid: uid_t, gid: gid_t, name: String)?
        ) -> String? {
            let names = FirstStart.madeFiles(storeInDirectory: storeInDirectory)
            guard let service else { return DataDirectory.fileAccessProblem(directory, names: names) }
            for name in names {
                let path = directory.appendingPathComponent(name).path
                var info = stat()
                guard stat(path, &info) == 0 else { continue }
                if info.st_uid != service.uid || !FileAccess.readable(path, uid: service.uid, gid: service.gid, user: service.name) {
                    return "\(path) is not \(service.name)'s to read and write (it belongs to \(DataDirectory.userName(info.st_uid))): "
                        + "chown \(service.name) \(path)"
                }
            }
            return nil
        }

        /// The user that owns `directory`, when this process is root and the directory exists and is someone
        /// else's: the user the service runs as.
        static func serviceUser(of directory: URL) -> (uid: uid_t, gid: gid_t, name: String)? {
            var info = stat()
            guard geteuid() == 0, stat(directory.path, &info) == 0, info.st_uid != 0, let entry = getpwuid(info.st_uid) else { return nil }
            return (info.st_uid, entry.pointee.pw_gid, String(cString: entry.pointee.pw_name))
        }

        static let summary = "corkd: the configuration has a problem; nothing was started (exit 2)\n"

        /// The effective configuration as a TOML file, each setting with where it came from.
        static func render(_ serve: Serve, loaded: LoadedConfig, typed: [String] = []) -> String {
            var out = "# corkd configuration: " + (loaded.path ?? "no file (defaults and environment)") + " — no problems found\n"
            out += "# Each setting as corkd serve would use it, and where it came from.\n"
            var table: String?
            for key in ConfigKey.all {
                if key.table != table {
                    table = key.table
                    if let table { out += "\n[\(table)]\n" }
                }
                let short = key.name.split(separator: ".").last.map(String.init) ?? key.name
                let source = ConfigArguments.gives(typed, key) ? "command line" : "\(loaded.values[key.name]?.source ?? .defaulted)"
                if let value = key.effective(serve) {
                    let shown = key.secret ? ConfigValue.quoted(masked(value)) : value.toml
                    out += "\(short) = \(shown)  # \(source)\n"
                } else {
                    out += "# \(short) is not set  (\(key.environmentName), \(key.option))\n"
                }
            }
            return out
        }

        /// A URL's password replaced by asterisks.
        static func masked(_ value: ConfigValue) -> String {
            guard case .string(let text) = value, var components = URLComponents(string: text), components.password != nil else {
                if case .string(let text) = value { return text }
                return value.toml
            }
            components.password = "*****"
            return components.string ?? "*****"
        }
    }

    /// A configuration's problems as corkd prints them, with what happens next.
    static func report(_ error: ConfigError) -> String {
        error.problems.map { "corkd: \($0)\n" }.joined()
            + "corkd: the configuration has \(error.problems.count == 1 ? "a problem" : "\(error.problems.count) problems"); nothing was started (exit 2)\n"
    }
}
