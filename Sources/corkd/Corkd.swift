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
        subcommands: [Serve.self, Invite.self, Revoke.self, BoardCommand.self, MigrateStore.self, Backup.self],
        defaultSubcommand: Serve.self)

    /// Prepares the process (SIGPIPE, file descriptors 0–2) before parsing, then runs the subcommand.
    static func main() async {
        Console.prepareProcess()
        // Logs go to stderr, for every subcommand: stdout carries results (invite URLs) and the serve banner.
        LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
