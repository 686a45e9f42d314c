import ArgumentParser
import BoardCore
import CorkApp

/// `cork add TITLE …`: adds a card (creating missing labels first); with `--ref`, idempotent.
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a card.",
        discussion: """
            Labels the board does not have are created first. With --ref, adding the same ref again prints the card \
            that already has it and exits 0 (JSON: "existing":true), so bots can add without checking first.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The title.") var title: String
    @Option(help: "The column (id or name; default: the first).") var column: String?
    @Option(help: "A label (id or name); repeat for more.") var label: [String] = []
    @Option(help: "The due date: YYYY-MM-DD, today, tomorrow, +3 (days), +2w (weeks) or a weekday (fri).") var due: String?
    @Option(help: "Assign a member; repeat for more.") var assign: [String] = []
    @Option(name: [.customLong("desc"), .customLong("description")], help: "The description.") var desc: String?
    @Option(help: "An external reference, unique on the board (e.g. ci:build-1207).") var ref: String?
    @Option(help: "The milestone (id or title).") var milestone: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        var request = CardOps.AddRequest(title: title)
        request.column = column
        request.labels = label
        request.due = due
        request.assignees = assign
        request.description = desc
        request.ref = ref
        request.milestone = milestone
        let json = json
        let session = try connection.session()
        try await session.withBoard { client, board in
            if let ref = request.ref, let existing = board.card(ref: ref) {
                return try await CardChange.printCard(
                    existing.id, seq: board.seq, noop: true, existing: true, verb: "exists", json: json, client: client)
            }
            let ops = try CardOps.add(request, on: board, cardID: IDGenerator.cardID())
            // A card the server would refuse for its fields creates none of its labels either.
            try CorkSession.dryRun(ops, on: board, as: await client.user)
            var seq = board.seq
            for op in ops {
                do {
                    seq = try await session.perform(op, on: client).seq
                } catch let failure as CorkFailure where op.kind == "card.add" {
                    // Someone added the same ref meanwhile: the reject names the card.
                    guard let ref = request.ref, let named = failure.duplicateRefCard else { throw failure }
                    let existing = await client.board?.card(ref: ref)?.id ?? named
                    return try await CardChange.printCard(
                        existing, seq: seq, noop: true, existing: true, verb: "exists", json: json, client: client)
                }
            }
            guard case .addCard(let add) = ops.last else { return }
            try await CardChange.printCard(add.card, seq: seq, noop: false, verb: "added", json: json, client: client)
        }
    }
}
