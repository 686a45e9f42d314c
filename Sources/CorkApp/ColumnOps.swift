import BoardCore

/// Turns the arguments of `cork column …` into ops, resolving column names against the board first (a typo is exit
/// 5 or 2 before anything is sent). Positions are 1-based, as a person counts columns from the left.
public enum ColumnOps {
    /// The `column.add` for a column called `name`, at 1-based `position` (nil: the right end), with `id` or an id
    /// made from the name (`In review` → `in-review`, `-2` appended when taken).
    public static func add(name: String, position: Int?, id: String?, on board: Board) throws(CorkFailure) -> Op {
        let trimmed = try checkedName(name)
        let column: ColumnID
        if let id {
            guard let valid = ColumnID(validating: id) else {
                throw CorkFailure.usage("\(id) is not a column id (1–64 of A–Z a–z 0–9 _ . -)")
            }
            column = valid
        } else {
            let taken = Set(board.columns.map(\.id.rawValue))
            column = ColumnID(uniqueIdentifier(identifier(from: trimmed.lowercased(), fallback: "column"), taken: taken))
        }
        return .addColumn(column: column, name: trimmed, index: try position.map(index))
    }

    /// The `column.rename` of the column `reference` names.
    public static func rename(_ reference: String, to name: String, on board: Board) throws(CorkFailure) -> Op {
        .renameColumn(column: try column(reference, on: board).id, name: try checkedName(name))
    }

    /// The `column.move` of the column `reference` names to 1-based `position` (past the end: the right end).
    /// The `column.in_progress` of `cork column progress COLUMN on|off`.
    public static func inProgress(_ reference: String, on: Bool, on board: Board) throws(CorkFailure) -> Op {
        let column = try CardOps.resolve { () throws(ResolutionError) in try ColumnReference.resolve(reference, in: board) }
        return .setInProgress(column: column.id, on: on)
    }

    public static func move(_ reference: String, to position: Int, on board: Board) throws(CorkFailure) -> Op {
        .moveColumn(column: try column(reference, on: board).id, index: try index(position))
    }

    /// The `column.remove` of the column `reference` names (the server refuses it with `not_empty` while the column
    /// holds cards, archived ones included).
    public static func remove(_ reference: String, on board: Board) throws(CorkFailure) -> Op {
        .removeColumn(column: try column(reference, on: board).id)
    }

    /// The `column.wip` of `cork column wip NAME N [--hard|--soft] | --none`: exactly one of a limit and `--none`,
    /// at most one of `--hard` and `--soft` (default soft), and no `--hard`/`--soft` with `--none`.
    public static func wip(
        _ reference: String, limit: Int?, hard: Bool, soft: Bool, none: Bool, on board: Board
    ) throws(CorkFailure) -> Op {
        if hard && soft { throw CorkFailure.usage("give --hard or --soft, not both") }
        if none {
            if limit != nil { throw CorkFailure.usage("give a limit or --none, not both") }
            if hard || soft { throw CorkFailure.usage("--none clears the limit; --hard and --soft do not apply") }
            return .setWIPLimit(column: try column(reference, on: board).id, limit: nil)
        }
        guard let limit else { throw CorkFailure.usage("give a limit (a number) or --none") }
        guard (1...Limits.wipLimitMax).contains(limit) else {
            throw CorkFailure.usage("the WIP limit must be 1…\(Limits.wipLimitMax); --none clears it")
        }
        return .setWIPLimit(column: try column(reference, on: board).id, limit: WIPLimit(limit: limit, hard: hard))
    }

    /// The column a reference names (exit 5 when none, 2 when ambiguous).
    public static func column(_ reference: String, on board: Board) throws(CorkFailure) -> Column {
        try CardOps.resolve { () throws(ResolutionError) in try ColumnReference.resolve(reference, in: board) }
    }

    /// A column name without surrounding spaces, 1–`columnNameMaxCharacters` characters (exit 2 otherwise).
    static func checkedName(_ name: String) throws(CorkFailure) -> String {
        let trimmed = name.trimmingSpaces
        guard !trimmed.isEmpty, trimmed.count <= Limits.columnNameMaxCharacters else {
            throw CorkFailure.usage("a column name must be 1–\(Limits.columnNameMaxCharacters) characters")
        }
        return trimmed
    }

    /// A 1-based position as the wire's 0-based index (exit 2 below 1).
    static func index(_ position: Int) throws(CorkFailure) -> Int {
        guard position >= 1 else { throw CorkFailure.usage("positions count from 1 (the leftmost column)") }
        return position - 1
    }
}
