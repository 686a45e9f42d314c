import ArgumentParser
import BuildInfo
import Foundation
import CorkApp

/// The root command: `cork` with no subcommand opens the board full-screen.
struct Cork: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cork",
        abstract: "Corkboard: a multi-user kanban board for the terminal, and its command line for scripts and bots.",
        discussion: """
            With no subcommand, cork opens the board full-screen: the board, a live feed of changes and chat, and an \
            input line (press ? for the keys, /help for the commands).

            The server and board come from --url, else $CORK_URL, else the profile saved by `cork join URL` \
            (in $XDG_CONFIG_HOME/cork, default ~/.config/cork). --board overrides the URL's board (default: main).

            CARD is #12, 12, ref:EXT-ID or a card id. --json prints one JSON object (cork watch: one per line).

            \(CorkExitCode.helpText)
            """,
        version: BuildInfo.versionLine("cork"),
        subcommands: [
            JoinCommand.self, BoardsCommand.self, BoardCommand.self, MemberCommand.self, ColumnCommand.self,
            MilestoneCommand.self, ShowCommand.self, AddCommand.self, MoveCommand.self, EditCommand.self,
            LabelCommand.self, LabelsCommand.self, AssignCommand.self, UnassignCommand.self, BlockCommand.self, UnblockCommand.self, RecurCommand.self, FollowCommand.self, ChecklistCommand.self, CloseCommand.self,
            ReopenCommand.self, ArchiveGroup.self, RestoreCommand.self, PurgeCommand.self, CommentCommand.self,
            SayCommand.self, UndoCommand.self, RedoCommand.self, SearchCommand.self, HistoryCommand.self,
            WatchCommand.self, InboxCommand.self, NotifyCommand.self, ExportCommand.self, ImportCommand.self, HookCommand.self,
        ])

    @OptionGroup var connection: ConnectionOptions

    /// Opens the full-screen board (press ? inside for the keys).
    func run() async throws {
        if let problem = TUIRunner.terminalProblem(ProcessInfo.processInfo.environment) { throw CorkFailure(.usage, problem) }
        guard TUIRunner.hasTerminal else { throw CorkFailure(.usage, TUIRunner.noTerminal) }
        var session = try connection.session()
        session.oneShot = false
        // Edits still queued when the person quits are kept and sent at the next start.
        if let directory = ConnectionOptions.directory {
            let journal = SessionJournal(directory: directory, target: session.target)
            if try journal.acquire() {
                session.journal = journal.file
            } else {
                Output.standardError(
                    "cork: another cork has this board open with the same account; edits left queued when this one quits are not kept\n")
            }
        }
        // A server that cannot be reached at the start (restarting, or not up yet) is waited for, as a running
        // board waits for it; a refusal (a token, a certificate) still ends here.
        var told = false
        while true {
            let failure: CorkFailure
            do {
                try await Self.openBoard(session)
                return
            } catch {
                failure = error
            }
            guard failure.unreachable else { throw failure }
            if !told {
                let kept = session.journal.map { FileManager.default.fileExists(atPath: $0.path) } == true
                    ? " Edits queued in an earlier run stay queued." : ""
                Output.standardError(
                    "cork: \(failure.message)\ncork: trying again every \(Int(Self.retry.components.seconds)) s until it answers (Ctrl-C stops).\(kept)\n")
                told = true
            }
            try await Task.sleep(for: Self.retry)
        }
    }

    /// Connects, waits for the board and runs the full-screen board on it until the person quits.
    static func openBoard(_ session: CorkSession) async throws(CorkFailure) {
        try await session.withBoard { client, board in
            do {
                try await TUIRunner(client: client).run(board: board)
            } catch let failure as TUIFailure {
                throw CorkFailure(.usage, failure.description)
            }
        }
    }

    /// How often the full-screen board tries a server it could not reach at the start.
    static let retry: Duration = .seconds(5)
}
