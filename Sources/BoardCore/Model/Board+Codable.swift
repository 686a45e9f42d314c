extension Board: Codable {
    enum CodingKeys: String, CodingKey {
        case id, name, seq, columns, cards, labels, milestones, members
        case nextCardNumber = "next_card_number"
        case purged
        case remindHours = "remind_hours"
    }

    /// Decodes a board snapshot (cards and members as arrays).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(BoardID.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        seq = try c.decode(UInt64.self, forKey: .seq)
        columns = try c.decode([Column].self, forKey: .columns)
        let cardList = try c.decode([Card].self, forKey: .cards)
        cardTable = Dictionary(cardList.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        slots = nil
        labels = try c.decode([Label].self, forKey: .labels)
        milestones = try c.decode([Milestone].self, forKey: .milestones)
        let memberList = try c.decode([Member].self, forKey: .members)
        members = Dictionary(memberList.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        nextCardNumber = try c.decode(Int.self, forKey: .nextCardNumber)
        purged = Set(try c.decodeIfPresent([CardID].self, forKey: .purged) ?? [])
        remindHours = try c.decodeIfPresent(Int.self, forKey: .remindHours)
    }

    /// Encodes a board snapshot: cards in board order (column, then rank), members and purged ids sorted.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(seq, forKey: .seq)
        try c.encode(columns, forKey: .columns)
        try c.encode(orderedCards, forKey: .cards)
        try c.encode(labels, forKey: .labels)
        try c.encode(milestones, forKey: .milestones)
        try c.encode(members.values.sorted { $0.id < $1.id }, forKey: .members)
        try c.encode(nextCardNumber, forKey: .nextCardNumber)
        try c.encode(purged.sorted(), forKey: .purged)
        try c.encodeIfPresent(remindHours, forKey: .remindHours)
    }

    /// Every card, archived included, column by column in board order.
    public var orderedCards: [Card] {
        let columnOrder = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1.id, $0) })
        return cards.values.sorted { a, b in
            let ca = columnOrder[a.column] ?? Int.max
            let cb = columnOrder[b.column] ?? Int.max
            return ca != cb ? ca < cb : Card.positionOrder(a, b)
        }
    }
}
