import BoardCore
import Foundation

/// A Trello board export turned into the ops that recreate it on an existing Corkboard board.
///
/// Open lists become columns (an existing column with the same name, ignoring case, spaces and punctuation, is
/// reused; new ones are added next to the column of the list before them). Labels become labels with Trello's
/// colours (unnamed ones named after their colour; a name the board already has is reused). Cards are added list
/// by list in Trello's order with their title, description, due date, labels, `ref` `trello:<shortLink>` and the
/// creation time in their Trello id, then their checklist items (prefixed with their checklist's name unless the card
/// has one checklist with Trello's default name), their comments (oldest first, as `Name (YYYY-MM-DD): text`), then `card.close`
/// when the due date was marked complete and `card.archive` when the card or its list was closed.
///
/// Ids are `t-<Trello id>` (with `-2`, `-3`, … when the board already uses one), so the same export onto the same
/// board always gives the same ops. Importing again plans nothing for a card the board already has (the same `ref`):
/// it is listed in `summary.existingCards` and neither it nor its parts are sent. Should the board gain such a card
/// between planning and applying, the server refuses its `card.add` with `duplicate_ref`, and a client applying
/// `ops` should then skip the later ops about that card (those whose `Op.card` is the refused card's id).
///
/// Trello members are not Corkboard users, so no one is assigned; attachments are not imported. Both are listed in
/// `summary.warnings`, as is anything cut to fit a limit.
public struct TrelloImport: Sendable {
    /// The ops to apply, in order.
    public var ops: [Op]
    /// What the ops create, and what was left out.
    public var summary: TrelloImportSummary

    /// The prefix of every id the import makes.
    public static let idPrefix = "t-"
    /// The prefix of every card's `ref`.
    public static let refPrefix = "trello:"

    /// Reads a Trello board export (JSON) and plans its import onto `board`.
    public init(json data: Data, onto board: Board) throws(TrelloImportError) {
        let export: TrelloExport
        do {
            export = try JSONDecoder().decode(TrelloExport.self, from: data)
        } catch let error as DecodingError {
            throw TrelloImportError(error)
        } catch {
            throw TrelloImportError(.notJSON, "the file is not valid JSON")
        }
        var planner = TrelloPlanner(export: export, board: board)
        planner.plan()
        ops = planner.ops
        summary = planner.summary
    }
}
