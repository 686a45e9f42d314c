import ArgumentParser
import BoardCore
import CorkApp
import Foundation

/// `cork import FILE [--format trello|json]`: a Trello export or a `cork export` file, onto the board.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import a Trello board export or a board from cork export --format json.",
        discussion: """
            Ops are applied in order. Cards already on the board (same ref or id: the file was imported before) are \
            skipped with their checklist and comments, so importing twice changes nothing. Exit 3 when some op was \
            refused for another reason.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case trello, json }

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The file (- for stdin).") var file: String
    @Option(help: "trello or json (default: guessed from the file).") var format: Format?

    func run() async throws {
        let data: Data
        if file == "-" && Output.stdinClosed { throw CorkFailure(.failure, "cannot read -: stdin is closed") }
        do {
            // readToEnd throws where readDataToEndOfFile traps (a `try!` inside Foundation): stdin may be a
            // directory or closed.
            data = file == "-" ? try FileHandle.standardInput.readToEnd() ?? Data() : try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw CorkFailure(.failure, "cannot read \(file): \(error.localizedDescription)")
        }
        let format = format ?? Self.guess(data)
        let session = try connection.session()
        let report = try await session.withBoard { client, board in
            let ops: [Op]
            var notes: [String]
            // Cards of the file the board already has: not sent, counted as already there.
            var existing: [CardID] = []
            switch format {
            case .trello:
                let plan: TrelloImport
                do {
                    plan = try TrelloImport(json: data, onto: board)
                } catch {
                    throw CorkFailure.usage("\(file): \(error)")
                }
                ops = plan.ops
                notes = plan.summary.warnings
                existing = plan.summary.existingCards
                let s = plan.summary
                Output.line(
                    "importing Trello board \(FeedTextShim.quoted(s.boardName)): \(s.cards) cards, \(s.columnsCreated) new columns, "
                        + "\(s.labelsCreated) new labels, \(s.checklistItems) checklist items, \(s.comments) comments")
            case .json:
                let plan = try BoardImport(json: data, onto: board)
                ops = plan.ops
                notes = plan.warnings
                Output.line("importing \(plan.cards) cards, \(plan.created) new columns, labels and milestones")
            }
            for note in notes { Output.standardError("cork: note: \(note)\n") }
            notes = []
            var report = try await OpSequence.apply(ops) { op in
                do {
                    return try await client.perform(op, timeout: session.timeout)
                } catch {
                    throw CorkFailure(afterSending: error)
                }
            }
            report.existingCards = existing + report.existingCards
            return report
        }
        Output.line(report.summary)
        for failure in report.failures {
            Output.standardError("cork: \(failure.kind)\(failure.card.map { " \($0)" } ?? ""): \(failure.code): \(failure.message)\n")
        }
        if !report.failures.isEmpty {
            throw CorkFailure(.rejected, "\(report.failures.count) op\(report.failures.count == 1 ? " was" : "s were") refused")
        }
    }

    /// `trello` when the JSON has Trello's `lists`, else `json`.
    static func guess(_ data: Data) -> Format {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return .json }
        return object["lists"] != nil && object["columns"] == nil ? .trello : .json
    }
}

/// Quoting for the import banner.
enum FeedTextShim {
    static func quoted(_ text: String) -> String { "\"\(text)\"" }
}
