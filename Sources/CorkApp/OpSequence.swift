import BoardClient
import BoardCore

/// Applies a planned list of ops (an import) one after another, for `cork import`.
///
/// When a card's `card.add` is refused with `duplicate_ref` or `duplicate_id`, the card is already on the board
/// (the file was imported before): the card counts as skipped and the later ops about it are skipped too, so an
/// import run twice changes nothing the second time. When a `card.add` is refused for another reason, the later
/// ops about that card are skipped as well (they could only fail with `not_found`). Other rejected ops are counted
/// and reported, and the sequence goes on.
public enum OpSequence {
    /// One refused op.
    public struct Failure: Hashable, Sendable {
        /// The op's index in the list.
        public var index: Int
        /// The op's kind.
        public var kind: String
        /// The card it was about.
        public var card: CardID?
        /// The reject code.
        public var code: String
        /// The reject message.
        public var message: String
    }

    /// What happened.
    public struct Report: Hashable, Sendable {
        /// Ops that changed the board.
        public var applied = 0
        /// Ops the server accepted as no-ops.
        public var noops = 0
        /// Cards already on the board (their add was a duplicate), in order.
        public var existingCards: [CardID] = []
        /// Ops skipped because their card's add was refused.
        public var skipped = 0
        /// Ops refused for any other reason.
        public var failures: [Failure] = []
        /// The seq of the last change.
        public var lastSeq: UInt64?

        /// Makes an empty report.
        public init() {}

        /// One line: `applied 12 ops, 3 cards already there (4 ops skipped), 1 refused`.
        public var summary: String {
            var parts = ["applied \(applied) op\(applied == 1 ? "" : "s")"]
            if noops > 0 { parts.append("\(noops) unchanged") }
            if !existingCards.isEmpty {
                parts.append("\(existingCards.count) card\(existingCards.count == 1 ? "" : "s") already there")
            }
            if skipped > 0 { parts.append("\(skipped) op\(skipped == 1 ? "" : "s") skipped") }
            if !failures.isEmpty { parts.append("\(failures.count) refused") }
            return parts.joined(separator: ", ")
        }
    }

    /// Sends each op with `perform` in order and waits for its outcome before the next.
    public static func apply(
        _ ops: [Op], perform: (Op) async throws -> OpOutcome
    ) async throws -> Report {
        var report = Report()
        var dropped = Set<CardID>()
        for (index, op) in ops.enumerated() {
            if let card = op.card, dropped.contains(card), !isAdd(op) {
                report.skipped += 1
                continue
            }
            switch try await perform(op) {
            case .applied(let seq):
                report.applied += 1
                report.lastSeq = seq
            case .noop:
                report.noops += 1
            case .rejected(let reject):
                if isAdd(op), let card = op.card {
                    dropped.insert(card)
                    if reject.code == .rejected(.duplicateRef) || reject.code == .rejected(.duplicateID) {
                        report.existingCards.append(card)
                        continue
                    }
                }
                report.failures.append(
                    Failure(index: index, kind: op.kind, card: op.card, code: reject.code.rawValue, message: reject.message))
            }
        }
        return report
    }

    static func isAdd(_ op: Op) -> Bool {
        if case .addCard = op { return true }
        return false
    }
}
