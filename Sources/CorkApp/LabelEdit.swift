import BoardCore

/// The label changes of `cork label CARD +L -L …`: `+name` or a bare `name` puts a label on, `-name` takes it off.
public struct LabelEdit: Hashable, Sendable {
    /// Labels to put on, as typed.
    public var add: [String]
    /// Labels to take off, as typed.
    public var remove: [String]

    /// Parses the arguments after the card (exit 2 for an empty one, or `+`/`-` alone).
    public init(arguments: [String]) throws(CorkFailure) {
        add = []
        remove = []
        for argument in arguments {
            if argument.hasPrefix("+") || argument.hasPrefix("-") {
                let name = String(argument.dropFirst()).trimmingSpaces
                guard !name.isEmpty else { throw CorkFailure.usage("\"\(argument)\" names no label; write +NAME or -NAME") }
                if argument.hasPrefix("+") { add.append(name) } else { remove.append(name) }
            } else {
                let name = argument.trimmingSpaces
                guard !name.isEmpty else { throw CorkFailure.usage("an empty label name") }
                add.append(name)
            }
        }
        if add.isEmpty && remove.isEmpty { throw CorkFailure.usage("no label changes; write +NAME to add, -NAME to remove") }
    }

    /// The ops: `label.create` for labels to add that the board lacks, then `card.label` and `card.unlabel`.
    /// A label to remove must exist (exit 5 otherwise).
    public func ops(for card: Card, on board: Board) throws(CorkFailure) -> [Op] {
        let (create, ids) = try CardOps.labelIDs(add, on: board)
        var ops = create + ids.map { Op.addLabel(card: card.id, label: $0) }
        for name in remove {
            let label = try CardOps.resolve { () throws(ResolutionError) in try LabelReference.resolve(name, in: board) }
            ops.append(.removeLabel(card: card.id, label: label.id))
        }
        return ops
    }
}
