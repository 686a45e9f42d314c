import BoardCore

/// A hook's event filter: which committed changes it is told of, by the activity's `kind`.
///
/// Each entry is `*` (every change), an op kind (`comment.add`, `chat`) or a family (`card.*`: every kind that starts
/// with `card.`). Entries that name no kind this server knows are refused, so a typo cannot silence a hook.
struct HookFilter: Hashable, Sendable {
    /// The entries as given (validated).
    let entries: [String]

    /// Most entries in one filter.
    static let entriesMax = 32

    /// Validates `entries`; the reason when they are not a filter.
    static func parse(_ entries: [String]) -> Result<HookFilter, HookProblem> {
        guard !entries.isEmpty else { return .failure(HookProblem("field `events`: name at least one event (`*` for every change)")) }
        guard entries.count <= entriesMax else { return .failure(HookProblem("field `events`: at most \(entriesMax) entries")) }
        let kinds = Op.allKinds
        for entry in entries {
            if entry == "*" || kinds.contains(entry) { continue }
            if entry.hasSuffix(".*"), entry.count > 2 {
                let family = String(entry.dropLast(1))
                if kinds.contains(where: { $0.hasPrefix(family) }) { continue }
            }
            return .failure(HookProblem("field `events`: \"\(entry.prefix(64))\" is not an op kind, a family like card.* or *"))
        }
        return .success(HookFilter(entries: entries))
    }

    /// A stored filter, trusted as it is.
    init(stored entries: [String]) { self.entries = entries }

    private init(entries: [String]) { self.entries = entries }

    /// Whether a change of `kind` goes to the hook.
    func matches(_ kind: String) -> Bool {
        entries.contains { entry in
            if entry == "*" { return true }
            if entry.hasSuffix(".*") { return kind.hasPrefix(entry.dropLast(1)) }
            return entry == kind
        }
    }
}

/// A hook's whole filter: its ``HookFilter`` of event kinds and, when it has one, a card query in the board's search
/// language (`label:incident`), so that a bot is told of the changes to the cards it cares about and not of all.
///
/// A change passes when its kind passes `events` and, with a query, it is about a card (`activity.card`) that
/// matches the query on the board given. That board is the board as it is at delivery, not as it was at the
/// change's seq (the server keeps no past boards; replaying the log to each seq would cost a replay per change):
/// a card that was labelled `incident` after a change is matched at that change too, and a card that was purged
/// since matches nothing. Changes about no card (chat, column, label, member ops) never pass a hook with a query.
/// `@me` in the query is the hook's creator; `due:` compares with the day of delivery (UTC).
struct HookDelivery: Sendable {
    /// The event kinds.
    let events: HookFilter
    /// The card query; nil: every change `events` passes.
    let query: Query?

    /// Longest query text, in bytes.
    static let queryMaxBytes = 1024

    /// Validates a `hook.add` query: nil stays nil; blank text, text over ``queryMaxBytes`` or a parse error is the
    /// reason it is refused (the parser's message, with the position).
    static func parseQuery(_ text: String?) -> Result<Query?, HookProblem> {
        guard let text else { return .success(nil) }
        guard !text.allSatisfy(\.isWhitespace) else {
            return .failure(HookProblem("field `query`: empty; leave it out to be told of every change `events` passes"))
        }
        guard text.utf8.count <= queryMaxBytes else {
            return .failure(HookProblem("field `query`: at most \(queryMaxBytes) bytes"))
        }
        do {
            return .success(try Query.parse(text))
        } catch {
            return .failure(HookProblem("field `query`: \(error.description)"))
        }
    }

    /// Whether deciding on `activity` needs the board: the kind passes and a query must look at the card.
    func needsBoard(_ activity: Activity) -> Bool {
        query != nil && activity.card != nil && events.matches(activity.kind)
    }

    /// Whether the change recorded by `activity` goes to the hook; `board` is the board at delivery (only read
    /// when ``needsBoard(_:)``; nil then: the board is gone, nothing matches).
    func passes(_ activity: Activity, on board: Board?, context: QueryContext) -> Bool {
        guard events.matches(activity.kind) else { return false }
        guard let query else { return true }
        guard let id = activity.card, let board, let card = board.cards[id] else { return false }
        return query.matches(card, in: board, context: context)
    }
}

/// Why a hook request or target is refused: one sentence for the `error` (or the hook's `last_error`).
struct HookProblem: Error, Hashable, Sendable, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
