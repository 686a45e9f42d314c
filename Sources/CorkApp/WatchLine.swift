import BoardClient
import BoardCore

/// The lines `cork watch` prints for what a client hears: JSON objects (one per line) or sentences.
///
/// JSON shapes (keys sorted):
/// - a change: `{"type":"delta","board","seq","at","actor","kind","card"?,"number"?,"changes",…}` (the activity
///   record's fields, `number` being the card's `#N`);
/// - chat: `{"type":"chat","board","seq","at","actor","kind":"chat","text","changes":{}}`;
/// - presence: `{"type":"presence","board","session","user","state","card"?,…}`, `{"type":"presence.left",…}` and
///   `{"type":"presence.state","board","sessions":[…]}`.
public enum WatchLine {
    /// An activity event as one JSON line.
    public static func json(_ event: ActivityEvent) -> String {
        json(event.activity, board: event.board, isOwn: event.isOwn)
    }

    /// A committed change as one JSON line; `board` is the board right after it.
    public static func json(_ activity: Activity, board: Board, isOwn: Bool) -> String {
        CorkJSON.line(DeltaLine(activity: activity, board: board, isOwn: isOwn))
    }

    /// A presence event as one JSON line.
    public static func json(_ event: PresenceEvent, board: BoardID) -> String {
        json(event.change, sessions: event.sessions, board: board)
    }

    /// A presence change as one JSON line; `sessions` is everyone present after it.
    public static func json(
        _ change: PresenceEvent.Change, sessions: [SessionID: PresenceEntry], board: BoardID
    ) -> String {
        switch change {
        case .state:
            let sessions = sessions.values.sorted { $0.session < $1.session }
            return CorkJSON.line(PresenceStateLine(board: board, sessions: sessions))
        case .updated(let entry):
            return CorkJSON.line(PresenceLine(type: "presence", board: board, entry: entry))
        case .left(let session, let user):
            return CorkJSON.line(
                PresenceLine(type: "presence.left", board: board, entry: .init(session: session, user: user, state: .idle), left: true))
        }
    }

    /// An activity event as a sentence (FeedSentence), with its seq: `[12] alice moved #3 "Ship" TODO → DOING`.
    public static func text(_ event: ActivityEvent, before: Board?) -> String {
        text(event.activity, after: event.board, before: before)
    }

    /// A committed change as a sentence with its seq, given the boards after and before it.
    public static func text(_ activity: Activity, after: Board, before: Board?) -> String {
        "[\(activity.seq)] " + FeedSentence.render(activity, after: after, before: before)
    }

    /// A presence event as a sentence.
    public static func text(_ event: PresenceEvent, board: Board?) -> String? {
        text(event.change, sessions: event.sessions, board: board)
    }

    /// A presence change as a sentence: `here: alice, bob`, `bob is editing #3 "Ship"`, `bob left`.
    public static func text(
        _ change: PresenceEvent.Change, sessions: [SessionID: PresenceEntry], board: Board?
    ) -> String? {
        func cardName(_ id: CardID?) -> String {
            guard let id else { return "" }
            if let card = board?.cards[id] { return " #\(card.number) \(FeedText.quotedTitle(card.title))" }
            return " \(id)"
        }
        switch change {
        case .state:
            let users = Set(sessions.values.map(\.user.rawValue)).sorted()
            return "here: \(users.joined(separator: ", "))"
        case .updated(let entry):
            let away = entry.away == true ? " (away)" : ""
            switch entry.state {
            case .viewing: return "\(entry.user) is viewing\(entry.card == nil ? " the board" : cardName(entry.card))\(away)"
            case .editing: return "\(entry.user) is editing\(cardName(entry.card))\(away)"
            case .dragging: return "\(entry.user) is dragging\(cardName(entry.card))\(away)"
            case .idle: return "\(entry.user) is idle\(away)"
            }
        case .left(_, let user):
            return "\(user) left"
        }
    }

    /// A connection state as a line for stderr.
    public static func text(_ state: ConnectionState) -> String {
        switch state {
        case .connecting(let endpoint): "connecting to \(endpoint)"
        case .connected(let endpoint, let user): "connected to \(endpoint) as \(user)"
        case .reconnecting(let delay, let error):
            "disconnected\(error.isEmpty ? "" : " (\(error))"); reconnecting in \(seconds(delay)) s"
        case .stopped(let error): "stopped\(error.map { ": \($0.message)" } ?? "")"
        }
    }

    /// `1.25` for 1250 ms.
    static func seconds(_ duration: Duration) -> String {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return ms % 1000 == 0 ? "\(ms / 1000)" : "\(Double(ms) / 1000)"
    }

    struct DeltaLine: Encodable {
        var type: String
        var board: BoardID
        var activity: Activity
        var number: Int?
        var own: Bool

        init(activity: Activity, board: Board, isOwn: Bool) {
            type = activity.kind == "chat" ? "chat" : "delta"
            self.board = board.id
            self.activity = activity
            number = activity.card.flatMap { board.cards[$0]?.number }
            own = isOwn
        }

        enum Key: String, CodingKey { case type, board, number, own }

        func encode(to encoder: any Encoder) throws {
            try activity.encode(to: encoder)
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(type, forKey: .type)
            try c.encode(board, forKey: .board)
            try c.encodeIfPresent(number, forKey: .number)
            try c.encode(own, forKey: .own)
        }
    }

    struct PresenceLine: Encodable {
        var type: String
        var board: BoardID
        var entry: PresenceEntry
        var left = false

        enum Key: String, CodingKey { case type, board, session, user }

        func encode(to encoder: any Encoder) throws {
            if !left { try entry.encode(to: encoder) }
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(type, forKey: .type)
            try c.encode(board, forKey: .board)
            try c.encode(entry.session, forKey: .session)
            try c.encode(entry.user, forKey: .user)
        }
    }

    struct PresenceStateLine: Encodable {
        var type = "presence.state"
        var board: BoardID
        var sessions: [PresenceEntry]
    }
}
