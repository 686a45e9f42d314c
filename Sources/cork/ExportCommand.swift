import ArgumentParser
import CorkApp

/// `cork export [--format json|csv]`: the board on stdout.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write the board to stdout: the snapshot JSON, or CSV with one row per card.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case json, csv }

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "json or csv.") var format: Format = .json
    @Flag(help: "CSV: prefix cells a spreadsheet would run as a formula with '.") var safeCSV = false
    @Flag(help: "Print JSON: the snapshot, as --format json (the default) does; every command takes --json.") var json = false

    func validate() throws {
        if json && format == .csv { throw ValidationError("--json and --format csv ask for two formats; give one") }
    }

    func run() async throws {
        let session = try connection.session()
        let board = try await session.withBoard { _, board in board }
        switch format {
        case .json:
            do {
                Output.write(try BoardExport.json(board))
            } catch {
                throw CorkFailure(.failure, "cannot encode the board: \(error)")
            }
        case .csv:
            Output.write(BoardExport.csv(board, neutralizeFormulas: safeCSV))
        }
    }
}
