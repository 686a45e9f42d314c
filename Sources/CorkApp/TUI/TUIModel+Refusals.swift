import BoardClientCore
import BoardCore

extension TUIModel {
    /// A refused op as a sentence: what was not done to which card, and why, in the person's words rather than the
    /// op's wire name ("#5 was not moved: DOING is full (3/3): move a card out, or /column wip to raise it").
    func refusalSentence(_ rejected: RejectedOp) -> String {
        let reject = rejected.reject
        let elsewhere = rejected.op.board == boardID ? "" : "on \(rejected.op.board): "
        let shown = rejected.op.board == boardID ? board : nil
        guard case .op(let op) = rejected.op.request else {
            return "\(elsewhere)\(rejected.op.request.kind) was refused: \(reject.message)"
        }
        let subject: String
        if let card = op.card, let number = shown?.cards[card]?.number {
            subject = "#\(number)"
        } else if case .addCard(let add) = op {
            subject = "the new card \"\(add.title)\""
        } else if let card = op.card {
            subject = "card \(card)"
        } else {
            subject = "that change (\(op.kind))"
        }
        let reason: String
        if reject.code == .rejected(.wipLimit), let column = op.destinationColumn, let board = shown,
            let name = board.column(column)?.name, let wip = board.column(column)?.wip
        {
            // What to do about it: move a card out, or raise the limit.
            reason = "\(name) is full (\(board.count(in: column))/\(wip.limit)): move a card out"
                + (isViewer ? "" : ", or /column wip to raise it")
        } else {
            reason = reject.message.isEmpty ? reject.code.rawValue : reject.message
        }
        // A blocked card's move can be made anyway, with a reason: say how.
        // Only owners and editors may force it: nobody else is offered what they would be refused.
        let role = user.flatMap { board?.members[$0]?.role }
        let mayForce = role == .owner || role == .editor
        let force = BlockedMove(refused: rejected, on: boardID) == nil || !mayForce ? "" : " — /force REASON moves it anyway"
        return "\(elsewhere)\(subject) was not \(op.refusedVerb): \(reason)\(force)"
    }

    /// `/force REASON`: the move the server last refused because the card is blocked, made again with the reason
    /// (it goes in the activity; the server takes it from an editor or owner).
    mutating func forceCommand(_ reason: String, in board: Board) throws -> [TUIEffect] {
        guard let move = blockedMove else {
            throw TUIUsage(message: "nothing to force: /force REASON follows a move refused because the card is blocked")
        }
        guard let card = board.cards[move.card], !card.archived, let column = board.column(move.column) else {
            blockedMove = nil
            throw TUIUsage(message: "nothing to force: that card or its column is gone")
        }
        guard !reason.isEmpty else { throw TUIUsage(message: "/force REASON (why #\(card.number) goes into \(column.name) anyway)") }
        blockedMove = nil
        return [.submit(.moveCard(card: card.id, column: move.column, placement: move.placement, force: reason))]
    }
}

/// A move the server refused because the card waits for others that are not done (`blocked`): what `/force REASON`
/// makes again.
public struct BlockedMove: Hashable, Sendable {
    /// The card that was moved.
    public var card: CardID
    /// Where it was going.
    public var column: ColumnID
    /// Where in that column.
    public var placement: Placement

    /// The move `rejected` was, when it is an unforced move on `board` refused as `blocked`; nil otherwise.
    init?(refused rejected: RejectedOp, on board: BoardID) {
        guard rejected.reject.code == .rejected(.blocked), rejected.op.board == board,
            case .op(.moveCard(let card, let column, let placement, nil)) = rejected.op.request
        else { return nil }
        self.card = card
        self.column = column
        self.placement = placement
    }
}

extension Op {
    /// The column a card goes into: the target of a move or an add.
    var destinationColumn: ColumnID? {
        switch self {
        case .moveCard(_, let column, _, _): column
        case .addCard(let add): add.column
        default: nil
        }
    }

    /// What the op would have done, as the past participle of "was not …".
    var refusedVerb: String {
        switch self {
        case .moveCard: "moved"
        case .addCard: "added"
        case .editCard: "changed"
        case .addLabel, .removeLabel: "relabelled"
        case .assign, .unassign: "reassigned"
        case .blockCard, .unblockCard: "changed (dependencies)"
        case .setRecurrence: "changed (recurrence)"
        case .watchCard, .unwatchCard: "changed (watching)"
        case .closeCard: "closed"
        case .reopenCard: "reopened"
        case .archiveCard: "archived"
        case .restoreCard: "restored"
        case .purgeCard: "purged"
        case .addChecklistItem, .editChecklistItem, .removeChecklistItem: "changed (checklist)"
        case .addComment, .editComment, .deleteComment: "changed (comments)"
        // Ops on no card read "that change (kind) was not applied"; listed by name so a new kind is decided here.
        case .renameBoard, .setRemindHours, .setMember, .removeMember, .addColumn, .renameColumn, .moveColumn, .removeColumn,
            .setWIPLimit, .setInProgress, .createLabel, .updateLabel, .deleteLabel, .createMilestone, .updateMilestone,
            .closeMilestone, .reopenMilestone, .deleteMilestone:
            "applied"
        case .chat: "sent"
        }
    }
}
