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
    /// Diffs already encoded by another page's session (shared by the server's web sessions).
    let diffs: EncodedDiffs
    let version: String
    let logger: Logger
    let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// What the page shows: the board, its columns and the ids of each column's cards in order. Ids only: holding
    /// the client's `Board` value would make the replica copy its card table at the next change.
    var shown: Shown?
    /// Members' display names (only those that have one), for presence.
    var names: [UserID: String] = [:]
    /// Presence: everyone on the board (as of the last event before a flush), what changed since the page was last
    /// told (sessions set, sessions
    /// gone), whether the page needs the whole list (at first, after a board switch or a change of names), and
    /// whether a flush is on its way. A change is sent as itself, not as the whole list: with N people present, N
    /// pages re-sending N entries for every change was O(N²) work per change.
    var presenceNow: [SessionID: PresenceEntry] = [:]
    var presenceSet: [SessionID: PresenceEntry] = [:]
    var presenceLeft: Set<SessionID> = []
    var presenceFull = true
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
    var lastStatus: LiveMessage.Status?
    /// Whether the page has had its first inbox page (after its first board); after that, a reconnect of the client
    /// sends a fresh one (entries made while it was away came to no session of it).
    var inboxSent = false
    /// Set when the session must end (a fatal error was sent to the page).
    var ended = false

    init(configuration: ClientConfiguration, diffs: EncodedDiffs, version: String, logger: Logger) {
        self.configuration = configuration
        self.diffs = diffs
        self.version = version
        self.logger = logger
    }

    /// Serves the page until it goes away or the session ends for good (revoked, unknown token).
    static func run(
        page: NIOAsyncChannel<ByteBuffer, ByteBuffer>, configuration: ClientConfiguration, diffs: EncodedDiffs,
        version: String, logger: Logger
    ) async {
        do {
            try await page.executeThenClose { inbound, outbound in
                let (inputs, sink) = AsyncStream.makeStream(of: Input.self)
                try await withThrowingDiscardingTaskGroup { tasks in
                    tasks.addTask {
                        do {
                            for try await line in inbound { sink.yield(.page(line)) }
                        } catch {}
                        sink.yield(.pageClosed)
                    }
                    defer { tasks.cancelAll() }
                    // The first message names the board (`open`); a page that names none gets the first it may see.
                    var pending = inputs.makeAsyncIterator()
                    guard case .page(let first)? = await pending.next() else { return }
                    var configuration = configuration
                    configuration.board = LiveSession.requestedBoard(in: first)
                    let session = LiveSession(configuration: configuration, diffs: diffs, version: version, logger: logger)
                    session.inputs = sink
                    try await withClient(configuration) { client in
                        tasks.addTask {
                            for await event in client.events { sink.yield(.client(event)) }
                            sink.yield(.pageClosed)
                        }
                        await session.serve(client: client, inputs: &pending, outbound: outbound)
                    }
                    sink.finish()
                }
            }
        } catch {
            logger.debug("a web session ended", metadata: ["error": "\(error)"])
        }
    }

    static func requestedBoard(in line: ByteBuffer) -> BoardID? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.readableBytesView)) as? [String: Any],
            object["t"] as? String == "open", let board = object["board"] as? String, !board.isEmpty
        else { return nil }
        return BoardID(board)
    }

    func serve(
        client: BoardClient, inputs: inout AsyncStream<Input>.Iterator, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async {
        let send = { (message: any Encodable) async in
            if let encoded = message as? EncodedLine {
                try? await outbound.write(encoded.line)
                return
            }
            guard let data = try? self.encoder.encode(message) else { return }
            var buffer = ByteBuffer(bytes: data)
            buffer.writeInteger(UInt8(ascii: "\n"))
            try? await outbound.write(buffer)
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
                if let message = takePresenceMessage() { await send(message) }
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
            await show(update.board, changes: update.changes, client: client, send: send)
        case .activity(let activity):
            trackUndo(activity.activity, board: activity.board)
            guard activity.activity.seq > backlogThrough else { return }
            await send(LiveMessage.Feed(items: [feedItem(activity.activity, own: activity.isOwn, after: activity.board)], replace: false))
        case .presence(let presence):
            note(presence)
        case .rejected(let rejected):
            if case .undo(let seq) = rejected.op.request, let (direction, _) = undoStack.refused(seq, reason: rejected.reject.message) {
                // Refused for good (someone changed it since, or it has no inverse): let the next Ctrl-Z reach the
                // change before it.
                _ = undoStack.skip(direction)
            }
            await send(
                LiveMessage.Rejected(
                    code: rejected.reject.code.rawValue, reason: rejected.reject.message, op: rejected.op.request.kind,
                    card: Self.card(of: rejected.op.request)))
            await sendStatus(client: client, send: send)
        case .connection(let state):
            await connection(state, client: client, send: send)
        case .serverError(let error):
            if Self.endsSession(error.code.rawValue) { await fail(error.code.rawValue, error.message, send: send) }
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

    func show(_ board: Board, changes: BoardChanges, client: BoardClient, send: (any Encodable) async -> Void) async {
        // A change of the board's name, labels, milestones or members changes `.everything` (BoardChanges.of), so
        // a diff never carries them: the page gets the whole board then.
        if let shown, shown.board == board.id, let diff = Self.diff(from: shown, to: board, changes: changes) {
            let line = diffs.line(for: diff.diff, on: board.id) {
                guard let data = try? encoder.encode(LiveMessage.Diff(diff.diff)) else { return nil }
                var line = ByteBuffer(bytes: data)
                line.writeInteger(UInt8(ascii: "\n"))
                return line
            }
            if let line { await send(EncodedLine(line: line)) }
            self.shown = diff.shown
        } else {
            let named = board.members.compactMapValues { $0.name.isEmpty ? nil : $0.name }
            let switched = shown?.board != board.id
            if named != names || switched {
                // The page shows names in the list, and forgets the list when it switches boards: all of it again.
                names = named
                presenceNow = await client.presence
                presenceFull = true
                presenceChanged()
            }
            if welcome == nil || switched { await sendWelcome(client: client, board: board, send: send) }
            await send(LiveMessage.FullBoard(board))
            shown = Shown(board)
            if switched { await sendBacklog(client: client, board: board, send: send) }
            await sendStatus(client: client, send: send)
            if !inboxSent {
                inboxSent = true
                await sendInbox(client: client, send: send)
            }
        }
        await sendFilter(on: board, send: send, onlyIfChanged: true)
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
            text: FeedSentence.render(activity, after: board, textMax: .max), card: activity.card, own: own)
    }

    /// Puts `.flushPresence` into `inputs` after `delay`.
    static func flushPresence(after delay: Duration, into inputs: AsyncStream<Input>.Continuation) {
        Task {
            try? await Task.sleep(for: delay)
            inputs.yield(.flushPresence)
        }
    }

    /// Notes a presence event for the next flush.
    func note(_ presence: PresenceEvent) {
        presenceNow = presence.sessions
        switch presence.change {
        case .state:
            presenceFull = true
        case .updated(let entry):
            presenceLeft.remove(entry.session)
            presenceSet[entry.session] = entry
        case .left(let session, _):
            presenceSet[session] = nil
            presenceLeft.insert(session)
        }
        presenceChanged()
    }

    /// Presence changed (or the page needs the whole list): a flush follows within `presenceDelay`.
    func presenceChanged() {
        presenceDirty = true
        if !presenceFlushScheduled, let inputs {
            presenceFlushScheduled = true
            Self.flushPresence(after: Self.presenceDelay, into: inputs)
        }
    }

    /// What the page is told of presence now: the whole list (everyone else, by session) when it needs it, else the
    /// sessions set and gone since the last time; nil when nothing changed for it.
    func takePresenceMessage() -> (any Encodable)? {
        guard presenceDirty else { return nil }
        defer {
            presenceDirty = false
            presenceFull = false
            presenceSet = [:]
            presenceLeft = []
            // Not kept between flushes: it would hold a second copy of the list once the client changes its own.
            presenceNow = [:]
        }
        let own = welcome?.session
        if presenceFull {
            let others = presenceNow.values.filter { $0.session != own }.sorted { $0.session < $1.session }
            return LiveMessage.Presence(sessions: others.map(view))
        }
        let set = presenceSet.values.filter { $0.session != own }.sorted { $0.session < $1.session }
        let left = presenceLeft.filter { $0 != own }.sorted()
        guard !set.isEmpty || !left.isEmpty else { return nil }
        return LiveMessage.PresenceChange(set: set.map(view), left: left)
    }

    func view(_ entry: PresenceEntry) -> LiveMessage.PresenceView {
        let name = names[entry.user] ?? ""
        return LiveMessage.PresenceView(
            session: entry.session, user: entry.user, name: name.isEmpty ? entry.user.rawValue : name,
            state: entry.state, card: entry.card, column: entry.column, index: entry.index, away: entry.away ?? false)
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
