import BoardClient
import BoardCore
import CorkApp

/// The common shape of the commands that change the board's structure (columns, milestones, members, the board's
/// name): connect, plan ops against the board, send them in order, print what changed.
enum BoardChange {
    /// What a command sends: its ops, and the id of what it is about (a column, a milestone, a user), for the report.
    struct Plan: Sendable {
        /// The ops, in order.
        var ops: [Op]
        /// The id of what the command is about.
        var subject: String
    }

    /// What a command prints after its ops: the line of text, and how it fills in the JSON result. Both get the
    /// plan's subject and the board before and after the change.
    struct Report: Sendable {
        /// The line of text (without a newline).
        var text: @Sendable (_ subject: String, _ before: Board, _ after: Board) -> String
        /// Adds what the command is about to the JSON result.
        var json: @Sendable (_ subject: String, _ before: Board, _ after: Board, _ result: inout CorkJSON.StructureResult) -> Void
    }

    /// Connects, plans with `plan`, applies the ops in order (a reject is exit 3) and prints `report`'s line
    /// (` (no change)` appended when every op was a no-op), or with `json` the result: `{"board","seq","noop"?,…}`.
    static func run(
        _ connection: ConnectionOptions, json: Bool, plan: @Sendable (Board) throws(CorkFailure) -> Plan, report: Report
    ) async throws {
        let session = try connection.session()
        try await session.withBoard { client, board in
            let planned = try plan(board)
            var seq = board.seq
            var changed = false
            for op in planned.ops {
                let outcome = try await session.perform(op, on: client)
                seq = outcome.seq
                changed = changed || !outcome.noop
            }
            let after = await client.board ?? board
            if json {
                var result = CorkJSON.StructureResult(board: board.id, seq: seq, noop: !changed)
                report.json(planned.subject, board, after, &result)
                Output.line(CorkJSON.line(result))
            } else {
                Output.line(report.text(planned.subject, board, after) + (changed ? "" : " (no change)"))
            }
        }
    }
}
