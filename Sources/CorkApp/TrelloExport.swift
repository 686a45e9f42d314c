/// The parts of a Trello board export ("Print and export → Export as JSON") that the importer reads.
///
/// Required fields are the ones an import cannot do without (ids, names, a card's list); everything else is
/// optional, and unknown fields (prefs, badges, plugin data, …) are ignored.
struct TrelloExport: Decodable {
    var name: String?
    var lists: [List]
    var cards: [Card]
    var labels: [Label]
    var checklists: [Checklist]
    var actions: [Action]
    var members: [Member]

    enum CodingKeys: String, CodingKey { case name, lists, cards, labels, checklists, actions, members }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        lists = try c.decode([List].self, forKey: .lists)
        cards = try c.decode([Card].self, forKey: .cards)
        labels = try c.decodeIfPresent([Label].self, forKey: .labels) ?? []
        checklists = try c.decodeIfPresent([Checklist].self, forKey: .checklists) ?? []
        actions = try c.decodeIfPresent([Action].self, forKey: .actions) ?? []
        members = try c.decodeIfPresent([Member].self, forKey: .members) ?? []
    }

    struct List: Decodable {
        var id: String
        var name: String
        var closed: Bool
        var pos: Double

        enum CodingKeys: String, CodingKey { case id, name, closed, pos }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            name = try c.decode(String.self, forKey: .name)
            closed = try c.decodeIfPresent(Bool.self, forKey: .closed) ?? false
            pos = c.position(forKey: .pos)
        }
    }

    struct Card: Decodable {
        var id: String
        var name: String
        var desc: String
        var idList: String
        var closed: Bool
        var pos: Double
        var due: String?
        var dueComplete: Bool
        var idLabels: [String]
        var idChecklists: [String]
        var idMembers: [String]
        var shortLink: String?
        var attachmentCount: Int
        /// Minutes before the due date Trello reminds the card's members; -1 or absent: no reminder.
        var dueReminder: Int?

        enum CodingKeys: String, CodingKey {
            case id, name, desc, idList, closed, pos, due, dueComplete, idLabels, idChecklists, idMembers, shortLink
            case attachments, dueReminder
        }

        /// Only the count of attachments matters (they are not imported); their fields are not decoded.
        struct Ignored: Decodable {}

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            name = try c.decode(String.self, forKey: .name)
            desc = try c.decodeIfPresent(String.self, forKey: .desc) ?? ""
            idList = try c.decode(String.self, forKey: .idList)
            closed = try c.decodeIfPresent(Bool.self, forKey: .closed) ?? false
            pos = c.position(forKey: .pos)
            due = try c.decodeIfPresent(String.self, forKey: .due)
            dueComplete = try c.decodeIfPresent(Bool.self, forKey: .dueComplete) ?? false
            idLabels = try c.decodeIfPresent([String].self, forKey: .idLabels) ?? []
            idChecklists = try c.decodeIfPresent([String].self, forKey: .idChecklists) ?? []
            idMembers = try c.decodeIfPresent([String].self, forKey: .idMembers) ?? []
            shortLink = try c.decodeIfPresent(String.self, forKey: .shortLink)
            attachmentCount = try c.decodeIfPresent([Ignored].self, forKey: .attachments)?.count ?? 0
            dueReminder = (try? c.decodeIfPresent(Int.self, forKey: .dueReminder)) ?? nil
        }
    }

    struct Label: Decodable {
        var id: String
        var name: String?
        var color: String?
    }

    struct Checklist: Decodable {
        var id: String
        var idCard: String
        var name: String
        var pos: Double
        var checkItems: [CheckItem]

        enum CodingKeys: String, CodingKey { case id, idCard, name, pos, checkItems }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            idCard = try c.decode(String.self, forKey: .idCard)
            name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
            pos = c.position(forKey: .pos)
            checkItems = try c.decodeIfPresent([CheckItem].self, forKey: .checkItems) ?? []
        }
    }

    struct CheckItem: Decodable {
        var id: String
        var name: String
        var state: String?
        var pos: Double

        enum CodingKeys: String, CodingKey { case id, name, state, pos }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            name = try c.decode(String.self, forKey: .name)
            state = try c.decodeIfPresent(String.self, forKey: .state)
            pos = c.position(forKey: .pos)
        }
    }

    struct Action: Decodable {
        var id: String?
        var type: String
        var date: String?
        var data: ActionData?
        var memberCreator: Member?
    }

    struct ActionData: Decodable {
        var text: String?
        var card: CardRef?
    }

    struct CardRef: Decodable {
        var id: String?
    }

    struct Member: Decodable {
        var id: String?
        var fullName: String?
        var username: String?
    }
}

extension KeyedDecodingContainer {
    /// Trello's `pos`: a number (sometimes fractional), or a numeric string in some exports; 0 when absent or odd.
    func position(forKey key: Key) -> Double {
        if let number = try? decodeIfPresent(Double.self, forKey: key) { return number }
        if let text = try? decodeIfPresent(String.self, forKey: key), let number = Double(text) { return number }
        return 0
    }
}
