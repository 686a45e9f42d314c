import BoardClient
import BoardCore
import Foundation

extension CorkJSON {
    /// `cork hook list --json`: `{"board","hooks":[…]}`, each hook in the protocol's shape (Protocol.md, "hooks").
    public struct Hooks: Encodable, Sendable {
        /// The board.
        public var board: BoardID
        /// Its webhooks.
        public var hooks: [HookInfo]
        /// Makes a result.
        public init(board: BoardID, hooks: [HookInfo]) {
            self.board = board
            self.hooks = hooks
        }
    }

    /// `cork hook add|remove|test --json`: `{"board","hook"}`, plus `secret` when the server made it (add), and
    /// `delivered`, `status` and `detail` for a test.
    public struct HookResult: Encodable, Sendable {
        /// The board.
        public var board: BoardID
        /// The hook.
        public var hook: String
        /// The secret the server made (shown once).
        public var secret: String?
        /// Test: whether the receiver answered 2xx.
        public var delivered: Bool?
        /// Test: the receiver's HTTP status.
        public var status: Int?
        /// Test: why it was not delivered.
        public var detail: String?
        /// Makes a result.
        public init(
            board: BoardID, hook: String, secret: String? = nil, delivered: Bool? = nil, status: Int? = nil,
            detail: String? = nil
        ) {
            self.board = board
            self.hook = hook
            self.secret = secret
            self.delivered = delivered
            self.status = status
            self.detail = detail
        }
    }
}

/// `cork hook` as text for people.
public enum HookText {
    /// One line per hook: id, state, URL, events, its query (quoted) when it has one, cursor; the last error of a hook
    /// that failed. "no webhooks" when there are none.
    public static func list(_ hooks: [HookInfo], board: BoardID) -> String {
        if hooks.isEmpty { return "no webhooks on \(board)\n" }
        return hooks.map { hook in
            let state =
                hook.failing ? "FAILING" : hook.failures > 0 ? "retrying" : "ok"
            var line = "\(hook.hook)  \(state)  \(FeedText.oneLine(hook.url))  events \(hook.events.joined(separator: ","))"
            if let query = hook.query { line += "  query \"\(FeedText.oneLine(query))\"" }
            line += "  delivered through seq \(hook.deliveredSeq)"
            if hook.failures > 0 {
                line += "\n    \(hook.failures) failed attempt\(hook.failures == 1 ? "" : "s") in a row; last error: "
                    + FeedText.oneLine(hook.lastError ?? "?")
            }
            return line
        }.joined(separator: "\n") + "\n"
    }

    /// The events option (`card.*,comment.add`) as its entries; nil when one is empty.
    public static func events(_ option: String) -> [String]? {
        let entries = option.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard !entries.isEmpty, entries.allSatisfy({ !$0.isEmpty }) else { return nil }
        return entries
    }
}
