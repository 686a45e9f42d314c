import ArgumentParser
import BuildInfo
import BoardCore
import BoardServer
import BoardStore
import BoardTransport
import BoardWire
import Foundation
import Logging
import ServiceLifecycle

/// `corkd`: the Corkboard server. Only this executable reads argv and the environment (STYLE.md 9).
@main
struct Corkd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corkd",
        abstract: "The Corkboard server: authoritative kanban boards over TLS, one JSON object per line.",
        discussion: CorkdExit.helpText,
        version: BuildInfo.versionLine("corkd"),
        subcommands: [Serve.self, Invite.self, Revoke.self, BoardCommand.self, MigrateStore.self, Backup.self, ConfigCommand.self],
        defaultSubcommand: Serve.self)

    /// Prepares the process (SIGPIPE, file descriptors 0–2) before parsing, then runs the subcommand.
    static func main() async {
        Console.prepareProcess()
        // Logs go to stderr, for every subcommand: stdout carries results (invite URLs) and the serve banner.
        LoggingSystem.bootstrap { label in LogLevel.Handler(label: label) }
        // The configuration file's and the environment's settings become options before the typed ones.
        let arguments: [String]
        do {
            arguments = try ConfigArguments.compose(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        } catch {
            Console.error(ConfigCommand.report(error))
            exit(withError: ExitCode(2))
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // ArgumentParser's usage errors exit 64; corkd's are 2, as every refusal to start (the unit's
            // RestartPreventExitStatus), on one line: `corkd: REASON (see 'corkd serve --help')`.
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            Console.error("corkd: \(BuildInfo.usageLine(message: message(for: error), full: fullMessage(for: error)))\n")
            exit(withError: ExitCode(2))
        }
    }
}
