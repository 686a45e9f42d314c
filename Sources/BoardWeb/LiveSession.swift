import BoardClient
import BoardClientCore
import BoardCore
import BoardWire
import CorkApp
import Foundation
import Logging
import NIOCore

/// One browser tab's board: a ``BoardClient`` replica on the server, driven by what the page asks for and rendered
/// to the page as the first board and then diffs between snapshots (docs/web.md, "The `/live` channel").
///
/// Everything the session does happens in one loop over one stream of inputs (the page's messages and the client's
/// events), so its state (what the page shows, the undo stack, the filter) has one owner and needs no lock.
final class LiveSession {
    /// Where the session's inputs come from.
    enum Input: Sendable {
        case page(ByteBuffer)
        case pageClosed
        case client(ClientEvent)
        /// Time to send the presence that changed since the last time.
        case flushPresence
    }

    /// How long presence changes gather before the page is told (a board with hundreds of people present would
    /// otherwise send every page hundreds of lists when they all arrive).
    static let presenceDelay: Duration = .milliseconds(100)

    let configuration: ClientConfiguration
    /// The boards' views shared by the server's web sessions.
    let views: BoardViews
    /// The page's connection.
    let page: PageOutbox
    let version: String
    let logger: Logger
    let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// The board the page shows.
    var boardID: BoardID?
    /// Whether the page is attached to its board's shared view (``BoardViews``), which then sends it the diffs.
    var attached = false
    /// What the page shows while it is not attached: its columns and the ids of each column's cards in order. Ids
    /// only: holding the client's `Board` value would make the replica copy its card table at the next change.
    var shown: Shown?
    /// Presence: everyone on the board (from the last full list, until the next flush), what changed since the
    /// page was last told (sessions set, sessions gone), whether the page needs the whole list (after the client
    /// subscribed), and whether a flush is on its way. The page keeps the list; the session keeps none (nor does its
    /// client, ``ClientConfiguration/keepsPresence``), and a change is sent as itself: with N people present, N
    /// lists of N entries would be O(N²) memory and work.
    var presenceNow: [SessionID: PresenceEntry] = [:]
    var presenceSet: [SessionID: PresenceEntry] = [:]
    var presenceLeft: Set<SessionID> = []
    var presenceFull = false
    var presenceDirty = false
    var presenceFlushScheduled = false
    /// Where timers put their inputs.
    var inputs: AsyncStream<Input>.Continuation?

    var welcome: ServerMessage.Welcome?
    var filterText = ""
    var lastMatches: [CardID]?
    /// The user's own changes on this board, for Ctrl-Z and Ctrl-Shift-Z: the terminal client's stack, rebuilt from
    /// the board's history when the page opens (so a reload or a reconnect keeps it) and kept from each own change.
    var undoStack = UndoStack()
    /// The newest seq the backlog sent had: a live activity at or below it is already in the page's feed.
    var backlogThrough: UInt64 = 0
    /// The feed's words for changes, which remember the recent undos.
    var feedWords = FeedWords()
    var lastStatus: LiveMessage.Status?
    /// Whether the page has had its first inbox page (after its first board); after that, a reconnect of the client
    /// sends a fresh one (entries made while it was away came to no session of it).
    var inboxSent = false
    /// Set when the session must end (a fatal error was sent to the page).
    var ended = false

    init(configuration: ClientConfiguration, views: BoardViews, page: PageOutbox, version: String, logger: Logger) {
        self.configuration = configuration
        self.views = views
        self.page = page
        self.version = version
        self.logger = logger
    }

    /// Serves the page until it goes away or the session ends for good (revoked, unknown token).
    static func run(
        page: NIOAsyncChannel<ByteBuffer, ByteBuffer>, configuration: ClientConfiguration, views: BoardViews,
        version: String, logger: Logger
    ) async {
        do {
            let outbox = PageOutbox(channel: page.channel)
            try await page.executeThenClose { inbound, _ in
                let (inputs, sink) = AsyncStream.makeStream(of: Input.self)
                // Two tasks, each ending the other when it ends: the page's reader (the page went away, or the
                // server closed it on shutdown) and the session (it ended for good). Cancelling the session ends
                // any request it is waiting on at once, rather than when that request times out.
                try await withThrowingDiscardingTaskGroup { tasks in
                    tasks.addTask {
                        do {
                            for try await line in inbound { sink.yield(.page(line)) }
                        } catch {}
                        sink.yield(.pageClosed)
                        throw Ended()
                    }
                    tasks.addTask {
                        // The first message names the board (`open`); a page that names none gets the first it may
                        // see.
                        var pending = inputs.makeAsyncIterator()
                        guard case .page(let first)? = await pending.next() else { throw Ended() }
                        var configuration = configuration
                        configuration.board = LiveSession.requestedBoard(in: first)
                        configuration.sharedBoards = views.boards
                        configuration.keepsPresence = false
                        let session = LiveSession(
                            configuration: configuration, views: views, page: outbox, version: version, logger: logger)
                        session.inputs = sink
                        defer { session.leaveBoard() }
                        try await withClient(configuration) { client in
                            await withDiscardingTaskGroup { events in
                                events.addTask {
                                    for await event in client.events { sink.yield(.client(event)) }
                                    sink.yield(.pageClosed)
                                }
                                await session.serve(client: client, inputs: &pending)
                                events.cancelAll()
                            }
                        }
                        sink.finish()
                        throw Ended()
                    }
                }
            }
        } catch is Ended {
            logger.debug("a web session ended")
        } catch {
            logger.debug("a web session ended", metadata: ["error": "\(error)"])
        }
    }

    /// How either task of a web session ends it.
    private struct Ended: Error {}

    /// A refusal of a change to card `number` that names the card: several refused at once (a bulk move into a full
    /// column, or changes queued offline) each said only `DOING is at its WIP limit of 3`, and not which card stayed.
    static func naming(_ number: Int, in reason: String) -> String {
        let name = "#\(number)"
        let named = reason.ranges(of: name).contains { range in
            range.upperBound == reason.endIndex || !reason[range.upperBound].isNumber
        }
        return named ? reason : "\(name): \(reason)"
    }

    /// What a page says of an undo (or redo) the server refused: which change, why, and what the same key does now.
    static func undoRefusal(_ direction: UndoStack.Direction, entry: UndoStack.Entry, reason: String, next: UndoStack) -> String {
        let key = direction == .undo ? "Ctrl-Z" : "Ctrl-Shift-Z"
        let following = direction == .undo ? next.undoable.last : next.redoable.last
        let does = direction == .undo ? "undoes" : "redoes"
        let then = following.map { "\(key) again \(does) the change before it: \($0.words)." }
            ?? "There is nothing older to \(direction.verb)."
        return "Cannot \(direction.verb) \(entry.words): \(reason). \(then)"
    }

    static func requestedBoard(in line: ByteBuffer) -> BoardID? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.readableBytesView)) as? [String: Any],
            object["t"] as? String == "open", let board = object["board"] as? String, !board.isEmpty
        else { return nil }
        return BoardID(board)
    }

    func serve(client: BoardClient, inputs: inout AsyncStream<Input>.Iterator) async {
        let send = { (message: any Encodable) async in
            guard let line = self.line(message) else { return }
            self.page.send(line)
        }
        await start(client: client, send: send)
        while let input = await inputs.next() {
            switch input {
            case .pageClosed:
                return
            case .page(let line):
                await handlePage(line, client: client, send: send)
            case .client(let event):
                await handle(event, client: client, send: send)
                // An own change confirmed changes nothing the page shows, only the count of unconfirmed ones.
                if (lastStatus?.pending ?? 0) > 0 { await sendStatus(client: client, send: send) }
            case .flushPresence:
                presenceFlushScheduled = false
                if presenceDirty, let message = takePresenceMessage(members: await client.board?.members ?? [:]) {
                    await send(message)
                }
            }
            if ended { return }
        }
    }

    /// Before the first board: when the page named none, the first board this user may see.
    func start(client: BoardClient, send: (any Encodable) async -> Void) async {
        guard configuration.board == nil else { return }
        do {
            let boards = try await client.boards(timeout: .seconds(15))
            if let first = boards.first {
                await client.switchBoard(to: first.board)
            } else {
                await fail("not_found", "there is no board you may see", send: send)
            }
        } catch {
            await fail(error, send: send)
        }
    }

    // MARK: - The client's events

    func handle(_ event: ClientEvent, client: BoardClient, send: (any Encodable) async -> Void) async {
        switch event {
        case .board(let update):
            await show(update, client: client, send: send)
        case .activity(let activity):
            trackUndo(activity.activity, board: activity.board)
            guard activity.activity.seq > backlogThrough else { return }
            await send(LiveMessage.Feed(items: [feedItem(activity.activity, own: activity.isOwn, after: activity.board)], replace: false))
        case .presence(let presence):
            note(presence)
        case .rejected(let rejected):
            var reason = rejected.reject.message
            if case .undo(let seq) = rejected.op.request, let (direction, entry) = undoStack.refused(seq, reason: reason) {
                // Refused for good (someone changed it since, or it has no inverse): the next Ctrl-Z reaches the
                // change before it, and the notice says which, so it is not undone unawares.
                _ = undoStack.skip(direction)
                reason = Self.undoRefusal(direction, entry: entry, reason: reason, next: undoStack)
            } else if let card = Self.card(of: rejected.op.request), let number = await client.board?.cards[card]?.number {
                reason = Self.naming(number, in: reason)
            }
            await send(
                LiveMessage.Rejected(
                    code: rejected.reject.code.rawValue, reason: reason, op: rejected.op.request.kind,
                    card: Self.card(of: rejected.op.request)))
            await sendStatus(client: client, send: send)
        case .connection(let state):
            await connection(state, client: client, send: send)
        case .serverError(let error):
            guard Self.endsSession(error.code.rawValue) else { return }
            // A board that cannot be opened: the boards this user can open come first, for the way on the page offers.
            if error.code == .notFound { await sendBoards(client: client, send: send, timeout: .seconds(5)) }
            await fail(error.code.rawValue, error.message, send: send)
        case .inbox(let event):
            await inboxEvent(event, client: client, send: send)
        }
    }

    func connection(_ state: ConnectionState, client: BoardClient, send: (any Encodable) async -> Void) async {
        switch state {
        case .stopped(let error):
            if let error { await fail(error, send: send) } else { ended = true }
        case .connected:
            await sendStatus(client: client, send: send)
            if inboxSent { await sendInbox(client: client, send: send) }
        default:
            await sendStatus(client: client, send: send)
        }
    }

    /// Shows the client's board on the page. While the page is attached to its board's shared view and the
    /// board is the confirmed one, the view sends the diff (once for all its pages); otherwise the session sends its
    /// own diff, or the whole board, and attaches the page again once it shows the confirmed board at the view's seq.
    func show(_ update: BoardUpdate, client: BoardClient, send: (any Encodable) async -> Void) async {
        let board = update.board
        let switched = boardID != board.id
        if switched {
            leaveBoard()
            boardID = board.id
            views.join(board.id)
        }
        if attached {
            if update.isConfirmed && update.cause != .snapshot {
                views.advance(board, changes: update.changes, encode: line)
            } else {
                // An own change on top (or a fresh snapshot after a reconnect): the page shows what this session says.
                shown = views.detach(page.id, board: board.id)
                attached = false
                await showOwn(update, client: client, send: send)
            }
        } else if switched {
            await sendWelcome(client: client, board: board, send: send)
            await send(LiveMessage.FullBoard(board))
            shown = Shown(board)
            await sendBacklog(client: client, board: board, send: send)
            await sendStatus(client: client, send: send)
            if !inboxSent {
                inboxSent = true
                await sendInbox(client: client, send: send)
            }
        } else {
            await showOwn(update, client: client, send: send)
        }
        if !attached, update.isConfirmed, let shown, views.attach(page, board: board.id, seq: board.seq, shown: shown) {
            attached = true
            self.shown = nil
        }
        await sendFilter(on: board, send: send, onlyIfChanged: true)
    }

    /// Sends the page the diff from what it shows to `update`'s board, or the whole board when the change is not
    /// one a diff carries (a change of the board's name, labels, milestones or members changes `.everything`).
    func showOwn(_ update: BoardUpdate, client: BoardClient, send: (any Encodable) async -> Void) async {
        let board = update.board
        if let shown, let diff = Self.diff(from: shown, to: board, changes: update.changes) {
            await send(LiveMessage.Diff(diff.diff))
            self.shown = diff.shown
        } else {
            await send(LiveMessage.FullBoard(board))
            shown = Shown(board)
            await sendStatus(client: client, send: send)
        }
    }

    /// Stops showing the board (another board is opened, or the page went away).
    func leaveBoard() {
        guard let boardID else { return }
        views.leave(boardID, page: page.id)
        self.boardID = nil
        attached = false
        shown = nil
    }

    /// The line of a message to the page: its JSON and a newline.
    func line(_ message: any Encodable) -> ByteBuffer? {
        guard let data = try? encoder.encode(message) else { return nil }
        var line = ByteBuffer(bytes: data)
        line.writeInteger(UInt8(ascii: "\n"))
        return line
    }

    func sendWelcome(client: BoardClient, board: Board, send: (any Encodable) async -> Void) async {
        guard let welcome = await client.welcome else { return }
        self.welcome = welcome
        let boards = (try? await client.boards(timeout: .seconds(15))) ?? []
        let member = board.members[welcome.user]
        await send(
            LiveMessage.Welcome(
                user: welcome.user, name: member?.name.isEmpty == false ? member!.name : welcome.user.rawValue,
                role: member?.role ?? welcome.role, session: welcome.session,
                boards: boards.map { LiveMessage.BoardSummaryView(id: $0.board, name: $0.name) }, board: board.id,
                version: version))
    }

    func sendBacklog(client: BoardClient, board: Board, send: (any Encodable) async -> Void) async {
        guard let page = try? await client.history(limit: 100, timeout: .seconds(15)) else { return }
        let activities = page.activities.sorted { $0.seq < $1.seq }
        let items = activities.map { feedItem($0, own: $0.actor == welcome?.user, after: board) }
        backlogThrough = activities.last?.seq ?? 0
        if let user = welcome?.user { undoStack = UndoPlan.stack(for: user, activities: activities, board: board) }
        await send(LiveMessage.Feed(items: items, replace: true))
    }

    func feedItem(_ activity: Activity, own: Bool, after board: Board) -> LiveMessage.FeedItem {
        let isChat = activity.kind == "chat"
        let isBot = board.members[activity.actor]?.role == .bot
        return LiveMessage.FeedItem(
            seq: activity.seq, at: activity.at.milliseconds, user: activity.actor.rawValue,
            kind: isChat ? "chat" : (isBot ? "bot" : "change"),
            text: feedWords.sentence(activity, after: board), card: activity.card, own: own)
    }

    func sendStatus(client: BoardClient, send: (any Encodable) async -> Void) async {
        let state = await client.state
        let pending = await client.pendingOps.count
        let status: LiveMessage.Status
        switch state {
        case .connected:
            status = LiveMessage.Status(state: "live", detail: "", pending: pending)
        case .connecting:
            status = LiveMessage.Status(state: "connecting", detail: "", pending: pending)
        case .reconnecting(_, let lastError):
            status = LiveMessage.Status(state: "offline", detail: lastError, pending: pending)
        case .stopped:
            status = LiveMessage.Status(state: "stopped", detail: "", pending: pending)
        }
        guard status.state != lastStatus?.state || status.pending != lastStatus?.pending || status.detail != lastStatus?.detail
        else { return }
        lastStatus = status
        await send(status)
    }

    // MARK: - Undo

    /// Keeps the undo stack up to date with one of the user's changes (from any of their clients, as the stack
    /// rebuilt from history has them).
    func trackUndo(_ activity: Activity, board: Board) {
        guard activity.actor == welcome?.user, activity.kind != Op.Kind.chat.rawValue, activity.seq > backlogThrough
        else { return }
        if let undone = activity.undoOf {
            _ = undoStack.completed(undone: undone, by: activity.seq)
        } else {
            undoStack.record(seq: activity.seq, words: FeedSentence.describe(activity, after: board))
        }
    }

    func undo(_ direction: UndoStack.Direction, client: BoardClient, send: (any Encodable) async -> Void) async {
        let entry: UndoStack.Entry
        switch undoStack.begin(direction) {
        case .failure(let refusal):
            await send(LiveMessage.Rejected(code: "not_found", reason: refusal.message, op: "undo", card: nil))
            return
        case .success(let next):
            entry = next
        }
        do {
            try await client.undo(seq: entry.seq)
        } catch {
            if let (way, _) = undoStack.refused(entry.seq, reason: error.message) { _ = undoStack.skip(way) }
            await send(LiveMessage.Rejected(code: error.code.rawValue, reason: error.message, op: "undo", card: nil))
        }
        await sendStatus(client: client, send: send)
    }

    // MARK: - The end

    /// Error codes after which the page must not come back on its own (its token no longer works, or the board is
    /// not its to see).
    static func endsSession(_ code: String) -> Bool {
        [
            "unauthenticated", "auth_failed", "token_expired", "token_revoked", "forbidden", "not_found",
            "unsupported_version",
        ].contains(code)
    }

    func fail(_ error: ClientError, send: (any Encodable) async -> Void) async {
        if let server = error.server {
            await fail(server.code.rawValue, server.message, send: send)
        } else {
            await fail(error.code.rawValue, error.message, send: send)
        }
    }

    func fail(_ code: String, _ message: String, send: (any Encodable) async -> Void) async {
        await send(LiveMessage.Failure(code: code, message: message))
        ended = true
    }
}
