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

/// Why a hook request or target is refused: one sentence for the `error` (or the hook's `last_error`).
struct HookProblem: Error, Hashable, Sendable, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
