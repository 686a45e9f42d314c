import BoardClient
import BoardClientCore
import BoardCore
import BoardWire
import CorkApp
import Foundation
import NIOCore

/// What the page asks for: a board, ops, presence, undo, the filter, the archive, the inbox.
extension LiveSession {
    // MARK: - The page's messages

    func handlePage(_ line: ByteBuffer, client: BoardClient, send: (any Encodable) async -> Void) async {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.readableBytesView)) as? [String: Any],
            let type = object["t"] as? String
        else {
            await send(LiveMessage.Rejected(code: "invalid", reason: "not a JSON object with a \"t\"", op: "", card: nil))
            return
        }
        switch type {
        case "open":
            guard let board = object["board"] as? String, !board.isEmpty else { return }
            if BoardID(board) != boardID { await client.switchBoard(to: BoardID(board)) }
        case "op":
            await submit(object["op"], client: client, send: send)
        case "presence":
            let state = (object["state"] as? String).flatMap(PresenceActivity.init(rawValue:)) ?? .viewing
            let card: CardID? = (object["card"] as? String).map { CardID($0) }
            let column: ColumnID? = (object["column"] as? String).map { ColumnID($0) }
            let index = object["index"] as? Int
            await client.setPresence(state, card: card, column: column, index: index)
        case "undo":
            await undo(UndoStack.Direction.undo, client: client, send: send)
        case "redo":
            await undo(UndoStack.Direction.redo, client: client, send: send)
        case "filter":
            setFilter(object["q"] as? String ?? "")
            if let board = await client.board { await sendFilter(on: board, send: send, onlyIfChanged: false) }
        case "archived":
            let cards = (await client.board?.cards.values.filter(\.archived) ?? []).sorted { $0.updatedAt > $1.updatedAt }
            await send(LiveMessage.Archived(cards: cards))
        case "boards":
            await sendBoards(client: client, send: send, timeout: .seconds(15))
        case "inbox":
            await inboxRequest(object, client: client, send: send)
        case "inbox.read":
            await inboxReadRequest(object, client: client, send: send)
        case "resync":
            if let board = await client.board {
                // The page shows what this session says again; the next confirmed board attaches it.
                if attached, let boardID { _ = views.detach(page.id, board: boardID) }
                attached = false
                shown = Shown(board)
                await send(LiveMessage.FullBoard(board))
            }
        default:
            await send(LiveMessage.Rejected(code: "invalid", reason: "unknown message \"\(type)\"", op: "", card: nil))
        }
    }

    /// Submits an op the page sent in Protocol.md's shape, making the id of a new card, comment, item, label or
    /// milestone when the page left it out.
    func submit(_ raw: Any?, client: BoardClient, send: (any Encodable) async -> Void) async {
        guard var object = raw as? [String: Any], let kind = object["kind"] as? String else {
            await send(LiveMessage.Rejected(code: "invalid", reason: "an op needs a kind", op: "", card: nil))
            return
        }
        switch kind {
        case "card.add" where object["card"] == nil: object["card"] = IDGenerator.cardID().rawValue
        case "comment.add" where object["comment"] == nil: object["comment"] = IDGenerator.commentID().rawValue
        case "checklist.add" where object["item"] == nil: object["item"] = IDGenerator.checklistItemID().rawValue
        case "label.create" where object["label"] == nil: object["label"] = Self.newID(prefix: "l")
        case "milestone.create" where object["milestone"] == nil: object["milestone"] = Self.newID(prefix: "ms")
        default: break
        }
        let op: Op
        do {
            let data = try JSONSerialization.data(withJSONObject: object)
            op = try JSONDecoder().decode(Op.self, from: data)
        } catch {
            await send(LiveMessage.Rejected(code: "invalid", reason: "\(kind): \(Self.describe(error))", op: kind, card: nil))
            return
        }
        do {
            try await client.submit(op)
        } catch {
            await send(LiveMessage.Rejected(code: error.code.rawValue, reason: error.message, op: kind, card: op.card))
        }
        await sendStatus(client: client, send: send)
    }

    static func card(of request: OpRequest) -> CardID? {
        if case .op(let op) = request { return op.card }
        return nil
    }

    static func newID(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        return IDGenerator.make(prefix: prefix, using: &generator)
    }

    static func describe(_ error: any Error) -> String {
        if let decoding = error as? DecodingError {
            switch decoding {
            case .keyNotFound(let key, _): return "\"\(key.stringValue)\" is missing"
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                let path = context.codingPath.map(\.stringValue).joined(separator: ".")
                return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
            @unknown default: return "\(error)"
            }
        }
        return "\(error)"
    }

    // MARK: - Filter

    func setFilter(_ text: String) {
        filterText = text
        lastMatches = nil
    }

    func sendFilter(on board: Board, send: (any Encodable) async -> Void, onlyIfChanged: Bool) async {
        let trimmed = filterText.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            if !onlyIfChanged { await send(LiveMessage.Filter(q: filterText, cards: nil, error: nil)) }
            return
        }
        let query: Query
        do {
            query = try Query.parse(trimmed)
        } catch {
            if !onlyIfChanged { await send(LiveMessage.Filter(q: filterText, cards: nil, error: "\(error)")) }
            return
        }
        let context = QueryContext(today: CardOps.utcToday, me: welcome?.user)
        let matches = board.cards.values.filter { !$0.archived && query.matches($0, in: board, context: context) }
            .map(\.id).sorted()
        if onlyIfChanged, matches == lastMatches { return }
        lastMatches = matches
        await send(LiveMessage.Filter(q: filterText, cards: matches, error: nil))
    }

    /// The boards this user can open (the page's picker); nothing when they cannot be listed within `timeout`.
    func sendBoards(client: BoardClient, send: (any Encodable) async -> Void, timeout: Duration) async {
        guard let boards = try? await client.boards(timeout: timeout) else { return }
        await send(LiveMessage.Boards(boards: boards.map { LiveMessage.BoardSummaryView(id: $0.board, name: $0.name) }))
    }
}
