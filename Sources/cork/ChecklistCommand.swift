import ArgumentParser
import BoardCore
import CorkApp

/// `cork checklist CARD add TEXT | done N | undo N | remove N | list`: a card's checklist.
struct ChecklistCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checklist", abstract: "Show or change a card's checklist (progress 3/5).",
        discussion: """
            Actions:
              list            the items, numbered from 1 (the default)
              add TEXT        add an item at the end
              done N          tick item N
              undo N          untick item N
              remove N        remove item N

            --json prints the card ({"board","card","seq"}, as the other card commands do) after a change, and \
            {"board","card","number","items","done","total"} for list. An item number the card does not have is \
            exit 5.
            """)

    /// What to do with the checklist.
    enum Action: String, ExpressibleByArgument, CaseIterable {
        case list, add, done, undo, remove
    }

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The card.") var card: String
    @Argument(help: "list, add, done, undo or remove.") var action: Action = .list
    @Argument(help: "The item's text (add) or number (done, undo, remove).") var value: [String] = []
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        switch action {
        case .list:
            guard value.isEmpty else { throw ValidationError("list takes nothing after it") }
        case .add:
            guard !value.isEmpty else { throw ValidationError("add needs the item's text") }
        case .done, .undo, .remove:
            guard value.count == 1, let n = Int(value[0]), n >= 1 else {
                throw ValidationError("\(action.rawValue) needs one item number (1 is the first item)")
            }
        }
    }

    func run() async throws {
        let (card, action, value, json) = (card, action, value, json)
        let session = try connection.session()
        try await session.withBoard { client, board in
            let found = try CardOps.card(card, on: board)
            let number = Int(value.first ?? "") ?? 0
            let op: Op
            let verb: String
            switch action {
            case .list:
                Output.result(CorkJSON.Checklist(board: board.id, card: found), json: json, text: ChecklistOps.text(found))
                return
            case .add:
                op = try ChecklistOps.add(value.joined(separator: " "), to: found, item: IDGenerator.checklistItemID())
                verb = "added an item to"
            case .done:
                op = try ChecklistOps.mark(number, of: found, done: true)
                verb = "ticked item \(number) of"
            case .undo:
                op = try ChecklistOps.mark(number, of: found, done: false)
                verb = "unticked item \(number) of"
            case .remove:
                op = try ChecklistOps.remove(number, of: found)
                verb = "removed item \(number) of"
            }
            let outcome = try await session.perform(op, on: client)
            guard let after = await client.board, let changed = after.cards[found.id] else {
                throw CorkFailure(.failure, "the card \(found.id) is not on the board after the change")
            }
            if json {
                Output.line(
                    CorkJSON.line(
                        CorkJSON.CardResult(board: after.id, card: changed, seq: outcome.seq, noop: outcome.noop ? true : nil)))
            } else {
                Output.line("\(verb) #\(changed.number): checklist \(ChecklistOps.progress(changed))\(outcome.noop ? " (no change)" : "")")
                Output.write(ChecklistOps.items(changed))
            }
        }
    }
}
