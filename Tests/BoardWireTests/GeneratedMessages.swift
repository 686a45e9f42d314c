import BoardCore
@testable import BoardWire

/// Random frequent client messages (every op kind, undo, presence, ping, pong) from a seeded generator, for the
/// differential tests of the decoders. Values roam over what the wire allows: ids of 1–64 bytes, text with quotes,
/// backslashes, control characters, non-ASCII and emoji, integers up to 2^53 − 1, optional fields present or not.
struct GeneratedMessages {
    /// SplitMix64: small, fast and the same on every machine.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    var rng: Generator

    init(seed: UInt64) { rng = Generator(state: seed) }

    mutating func chance() -> Bool { Bool.random(using: &rng) }

    mutating func maybe<T>(_ make: (inout GeneratedMessages) -> T) -> T? { chance() ? make(&self) : nil }

    mutating func integer() -> UInt64 {
        switch UInt64.random(in: 0..<4, using: &rng) {
        case 0: 0
        case 1: UInt64.random(in: 1..<100, using: &rng)
        case 2: (1 << 53) - 1
        default: UInt64.random(in: 0..<(1 << 53), using: &rng)
        }
    }

    mutating func int() -> Int { Int(integer()) }

    mutating func id<Tag>() -> Identifier<Tag> {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-".utf8)
        let count = Int.random(in: 1...(chance() ? 8 : 64), using: &rng)
        return Identifier(String(decoding: (0..<count).map { _ in alphabet.randomElement(using: &rng)! }, as: UTF8.self))
    }

    mutating func text() -> String {
        let pieces = ["a", "Ship it", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "日本",
                      "😀", "\u{2028}", "{", "}", "[", "]", ":", ",", "null", "\u{FEFF}"]
        let count = Int.random(in: 0...12, using: &rng)
        return (0..<count).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    mutating func day() -> Day {
        Day(year: Int.random(in: 1970...2100, using: &rng), month: Int.random(in: 1...12, using: &rng),
            day: Int.random(in: 1...28, using: &rng))!
    }

    mutating func color() -> HexColor {
        HexColor(red: .random(in: 0...255, using: &rng), green: .random(in: 0...255, using: &rng),
                 blue: .random(in: 0...255, using: &rng))
    }

    mutating func rank() -> Rank {
        let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        let count = Int.random(in: 0...6, using: &rng)
        let body = (0..<count).map { _ in digits.randomElement(using: &rng)! }
        return Rank(String(decoding: body + [digits[Int.random(in: 1..<digits.count, using: &rng)]], as: UTF8.self))!
    }

    mutating func placement() -> Placement {
        Placement(
            after: maybe { $0.id() }, before: maybe { $0.id() }, index: maybe { $0.int() }, rank: maybe { $0.rank() })
    }

    mutating func clearable<T>(_ make: (inout GeneratedMessages) -> T) -> Clearable<T>? {
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: nil
        case 1: .clear
        default: .set(make(&self))
        }
    }

    mutating func ids<Tag>() -> [Identifier<Tag>] { (0..<Int.random(in: 0...3, using: &rng)).map { _ in id() } }

    /// A random op of `kind`.
    mutating func op(_ kind: Op.Kind) -> Op {
        switch kind {
        case .boardRename: .renameBoard(name: text())
        case .boardRemind: .setRemindHours(hours: maybe { Int.random(in: 0...720, using: &$0.rng) })
        case .memberSet: .setMember(user: id(), role: Role.allCases.randomElement(using: &rng)!, name: maybe { $0.text() })
        case .memberRemove: .removeMember(user: id())
        case .columnAdd: .addColumn(column: id(), name: text(), index: maybe { $0.int() })
        case .columnRename: .renameColumn(column: id(), name: text())
        case .columnMove: .moveColumn(column: id(), index: int())
        case .columnRemove: .removeColumn(column: id())
        case .columnWIP: .setWIPLimit(column: id(), limit: maybe { WIPLimit(limit: $0.int(), hard: $0.chance()) })
        case .columnInProgress: .setInProgress(column: id(), on: chance())
        case .cardAdd:
            .addCard(
                AddCard(
                    card: id(), column: maybe { $0.id() }, placement: placement(), title: text(),
                    description: chance() ? "" : text(), due: maybe { $0.day() }, labels: ids(), assignees: ids(),
                    milestone: maybe { $0.id() }, ref: maybe { $0.text() }))
        case .cardEdit:
            .editCard(
                EditCard(
                    card: id(), title: maybe { $0.text() }, description: maybe { $0.text() },
                    baseSeq: maybe { $0.integer() }, due: clearable { $0.day() },
                    milestone: clearable { $0.id() }, ref: clearable { $0.text() }))
        case .cardMove: .moveCard(card: id(), column: id(), placement: placement(), force: maybe { $0.text() })
        case .cardLabel: .addLabel(card: id(), label: id())
        case .cardUnlabel: .removeLabel(card: id(), label: id())
        case .cardAssign: .assign(card: id(), user: id())
        case .cardUnassign: .unassign(card: id(), user: id())
        case .cardBlock: .blockCard(card: id(), by: id())
        case .cardUnblock: .unblockCard(card: id(), by: id())
        case .cardWatch: .watchCard(card: id())
        case .cardUnwatch: .unwatchCard(card: id())
        case .cardRecur: .setRecurrence(card: id(), recurrence: maybe { $0.chance() ? Recurrence(every: .weekday) : Recurrence(afterDoneDays: 1 + $0.int() % 30) })
        case .cardClose: .closeCard(card: id())
        case .cardReopen: .reopenCard(card: id())
        case .cardArchive: .archiveCard(card: id())
        case .cardRestore: .restoreCard(card: id())
        case .cardPurge: .purgeCard(card: id())
        case .checklistAdd:
            .addChecklistItem(card: id(), item: id(), text: text(), done: chance(), index: maybe { $0.int() })
        case .checklistEdit:
            .editChecklistItem(card: id(), item: id(), text: maybe { $0.text() }, done: maybe { $0.chance() })
        case .checklistRemove: .removeChecklistItem(card: id(), item: id())
        case .commentAdd: .addComment(card: id(), comment: id(), text: text())
        case .commentEdit: .editComment(card: id(), comment: id(), text: text())
        case .commentDelete: .deleteComment(card: id(), comment: id())
        case .labelCreate: .createLabel(label: id(), name: text(), color: color())
        case .labelUpdate: .updateLabel(label: id(), name: maybe { $0.text() }, color: maybe { $0.color() })
        case .labelDelete: .deleteLabel(label: id())
        case .milestoneCreate:
            .createMilestone(milestone: id(), title: text(), description: maybe { $0.text() }, due: maybe { $0.day() })
        case .milestoneUpdate:
            .updateMilestone(
                milestone: id(), title: maybe { $0.text() }, description: maybe { $0.text() },
                due: clearable { $0.day() })
        case .milestoneClose: .closeMilestone(milestone: id())
        case .milestoneReopen: .reopenMilestone(milestone: id())
        case .milestoneDelete: .deleteMilestone(milestone: id())
        case .chat: .chat(text: text())
        }
    }

    mutating func requestID() -> RequestID? {
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: return nil
        case 1: return .int(integer())
        default:
            // A string id holds 1-64 bytes.
            let t = text()
            return .string((1...RequestID.maxStringBytes).contains(t.utf8.count) ? t : "r1")
        }
    }

    /// A random frequent message: mostly ops of the given kind, sometimes an undo, a presence, a ping or a pong.
    mutating func message(_ kind: Op.Kind) -> ClientMessage {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return .op(ClientMessage.Mutation(board: id(), mut: integer(), op: .undo(seq: integer())))
        case 1:
            return .presence(
                ClientMessage.Presence(
                    board: id(), state: PresenceActivity.allCases.randomElement(using: &rng)!, card: maybe { $0.id() },
                    column: maybe { $0.id() }, index: maybe { $0.int() }, away: maybe { $0.chance() }))
        case 2: return chance() ? .ping(Heartbeat(req: requestID())) : .pong(Heartbeat(req: requestID()))
        default: return .op(ClientMessage.Mutation(board: id(), mut: integer(), op: .op(op(kind))))
        }
    }
}
