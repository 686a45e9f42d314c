import ArgumentParser
import CorkApp

/// The root command: `cork` with no subcommand prints a note and the help (the full-screen board comes later).
struct Cork: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cork",
        abstract: "Corkboard: a multi-user kanban board for the terminal, and its command line for scripts and bots.",
        discussion: """
            The server and board come from --url, else $CORK_URL, else the profile saved by `cork join URL` \
            (in $XDG_CONFIG_HOME/cork, default ~/.config/cork). --board overrides the URL's board (default: main).

            CARD is #12, 12, ref:EXT-ID or a card id. --json prints one JSON object (cork watch: one per line).

            \(CorkExitCode.helpText)
            """,
        subcommands: [
            JoinCommand.self, BoardsCommand.self, ShowCommand.self, AddCommand.self, MoveCommand.self,
            EditCommand.self, LabelCommand.self, AssignCommand.self, UnassignCommand.self, CloseCommand.self,
            ReopenCommand.self, ArchiveCommand.self, RestoreCommand.self, CommentCommand.self, SayCommand.self,
            SearchCommand.self, HistoryCommand.self, WatchCommand.self, ExportCommand.self, ImportCommand.self,
        ])

    func run() async throws {
        Output.line("The full-screen board is not here yet; use the commands below.\n")
        Output.write(Cork.helpMessage() + "\n")
    }
}
