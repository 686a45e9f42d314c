import BoardCore
import BoardStore
import BoardWire
import Foundation
import Logging
import ServiceLifecycle

/// Users' inboxes: derives entries from committed changes (``InboxRules``) and sends new ones to their users'
/// sessions on this node.
///
/// Deriving runs on one node at a time (the `inbox` lease, when several nodes share the store): every 200 ms it
/// reads the changes of the boards that committed since, and every 5 s of every board (changes committed through
/// other nodes, boards made through them). The entries and the board's cursor are stored in one transaction, and
/// each entry once by its key, so a restart or a change of node loses and doubles none; the boards that existed
/// when the store gained inboxes start at their head then (no entries for their past). The same node adds the next
/// occurrence of recurring cards (``RecurrenceRules``), checks due dates every `reminderScan` (``ReminderRules``)
/// and mails digests of unread entries (``Mailer``). Pushing runs on every node: it reads the entries stored since
/// its last look (at once after this node stored some, else every 2 s) and sends each as `inbox.entry` to its
/// user's sessions here.
struct InboxService {
    let store: any BoardStore
    let registry: BoardRegistry
    let directory: SessionDirectory
    let signals: InboxSignals
    let shared: (any SharedStore)?
    /// The reminders' clock (a test moves it by hand).
    let clock: any ServerClock
    let reminderScan: Duration
    let reminderLead: Duration
    let mail: MailSettings
    let logger: Logger

    /// Changes read per store read.
    static let batch = 200

    // The loops below try again every few seconds: a database outage is logged when it starts, about once a minute,
    // and when it ends.
    let reminderLog = RetryLog("cannot store reminders; trying again", recovered: "reminders are stored again")
    let deriveLog = RetryLog("cannot derive inbox entries; trying again", recovered: "inbox entries are derived again")
    let pushLog = RetryLog("cannot read new inbox entries; trying again", recovered: "new inbox entries are read again")

    func run() async {
        let (stored, doorbell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask { await derive(doorbell: doorbell) }
            group.addTask { await push(wakeups: stored) }
        }
    }

    // MARK: Reminders

    /// The reminders due on every board now; whether any was stored. `told` holds the keys stored in this run, so a
    /// card due for days is not written again every minute.
    private func remind(_ told: inout Set<String>) async -> Bool {
        let leadMs = Int64(reminderLead.components.seconds * 1000)
        let now = clock.now()
        var any = false
        var actors = await registry.all()
        // Several nodes: a board made through another node and not used here since is loaded to be looked at.
        if shared != nil, let records = try? await store.boards() {
            let loaded = Set(actors.map(\.id))
            for record in records where !record.archived && !loaded.contains(record.id) {
                if let actor = await registry.board(record.id) { actors.append(actor) }
            }
        }
        for actor in actors {
            let board = await actor.committed
            let entries = ReminderRules.entries(board: board, now: now, defaultLeadMs: leadMs).filter { !told.contains($0.key) }
            guard !entries.isEmpty else { continue }
            do {
                // Reminders are not changes: the board's cursor stays where it is.
                any = try await !store.addInboxEntries(entries, board: board.id, through: nil).isEmpty || any
                told.formUnion(entries.map(\.key))
                reminderLog.worked(logger)
            } catch {
                reminderLog.failed(error, logger, metadata: ["board": "\(board.id)"])
            }
        }
        return any
    }

    // MARK: Deriving

    private func derive(doorbell: AsyncStream<Void>.Continuation) async {
        var lease = LeaseKeeper(.inbox, logger: logger)
        var cursors: [BoardID: Cursor] = [:]
        var tick = 0
        // Both look at once after a start: a server restarted more often than they come round must still remind
        // and mail.
        var lastReminders = ContinuousClock.now - reminderScan
        var lastMail = ContinuousClock.now - mail.scanInterval
        var reminded: Set<String> = []
        let registry = self.registry
        let mailer = Mailer(
            store: store, board: { await registry.loaded($0)?.committedForHooks() }, settings: mail, clock: clock, logger: logger)
        while !Task.isCancelled {
            if mail.command != nil, ContinuousClock.now - lastMail >= mail.scanInterval {
                lastMail = ContinuousClock.now
                if await lease.holds(shared) { _ = await mailer.sendDue() }
            }
            if ContinuousClock.now - lastReminders >= reminderScan {
                lastReminders = ContinuousClock.now
                if await lease.holds(shared), await remind(&reminded) { doorbell.yield() }
            }
            var boards = signals.take()
            if tick % 25 == 0 {
                for actor in await registry.all() { boards.insert(actor.id) }
                // Several nodes: a board made (or brought back) through another node is not loaded here until used
                // here, and its commits signal nothing here; the store names it (`derive` loads it).
                if shared != nil, let records = try? await store.boards() {
                    for record in records where !record.archived { boards.insert(record.id) }
                }
            }
            tick += 1
            if !boards.isEmpty {
                if await lease.holds(shared) {
                    var any = false
                    for id in boards.sorted() { any = await derive(id, &cursors) || any }
                    if any { doorbell.yield() }
                } else {
                    cursors = [:]
                }
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
        doorbell.finish()
        await lease.release()
    }

    /// How far a board's changes were read: here, and in the store.
    struct Cursor {
        var seq: UInt64
        var stored: UInt64
        var storedAt: ContinuousClock.Instant
    }

    /// How long a cursor that moved past changes without entries may wait before it is stored: a busy board costs the
    /// store one small write per this, not one per look (a restart reads those changes again; their entries are
    /// unique by key and a recurring card's next occurrence by id, so nothing is doubled).
    static let cursorStoreInterval: Duration = .seconds(5)

    /// Derives and stores the entries of `id`'s changes since its cursor; whether any entry was stored.
    private func derive(_ id: BoardID, _ cursors: inout [BoardID: Cursor]) async -> Bool {
        // Loaded from the shared store if this node has not served it yet; nil if archived.
        guard let actor = await registry.board(id) else { return false }
        do {
            var cursor: Cursor
            if let known = cursors[id] {
                cursor = known
            } else {
                // No cursor: a board made since the store had inboxes (the migration gave the boards of the time
                // theirs), read from its first change. The cursor is stored with the changes read, so an idle server
                // writes nothing.
                let stored = try await store.inboxCursor(board: id) ?? 0
                cursor = Cursor(seq: stored, stored: stored, storedAt: .now)
            }
            // The changes since the cursor come from the board's recent log when it still holds them (the usual
            // case: the deriver looks every 200 ms; then it holds all of them, through `board.seq`), else from the
            // store, a page at a time.
            let (board, logged) = await actor.committed(after: cursor.seq)
            var fromLog = logged?[...]
            var any = false
            while cursor.seq < board.seq {
                let events: ArraySlice<CommittedChange>
                if let rest = fromLog {
                    events = rest.prefix(Self.batch)
                    fromLog = rest.dropFirst(events.count)
                } else {
                    events = try await store.events(id, from: cursor.seq + 1, to: board.seq, limit: Self.batch)
                        .map(CommittedChange.init)[...]
                }
                guard let last = events.last else { break }
                // The cursor passes a change only once what it calls for is durable: a recurring card's next
                // occurrence not stored (a crash, a failed commit) is tried again from that change.
                var through = last.seq
                for event in events where !(await addNextOccurrence(after: event.activity, board: board, actor: actor)) {
                    through = event.seq - 1
                    break
                }
                let entries = events.filter { $0.seq <= through }.flatMap { InboxRules.entries(for: $0.activity, board: board) }
                guard through > cursor.seq else { break }
                cursor.seq = through
                if !entries.isEmpty || ContinuousClock.now - cursor.storedAt >= Self.cursorStoreInterval {
                    let added = try await store.addInboxEntries(entries, board: id, through: through)
                    any = any || !added.isEmpty
                    cursor.stored = through
                    cursor.storedAt = .now
                }
                if through < last.seq { break }
            }
            // Changes without entries read since the last store: stored once the interval has passed (the 5 s scan
            // comes back to every board).
            if cursor.stored < cursor.seq, ContinuousClock.now - cursor.storedAt >= Self.cursorStoreInterval {
                _ = try await store.addInboxEntries([], board: id, through: cursor.seq)
                cursor.stored = cursor.seq
                cursor.storedAt = .now
            }
            cursors[id] = cursor
            deriveLog.worked(logger)
            return any
        } catch {
            cursors[id] = nil
            deriveLog.failed(error, logger, metadata: ["board": "\(id)"])
            return false
        }
    }

    // MARK: Recurring cards

    /// A recurring card the change made done comes back: its next occurrence is added as the server, whole (the card,
    /// its rule and its checklist in one commit, so a crash never leaves half of it). Its id and ref are derived from
    /// the series and the due day, so doing this again adds nothing (refused as a duplicate). Returns once the
    /// occurrence is durable (or nothing was to be done, or it cannot be: refused for good); false when it was not
    /// stored and must be tried again.
    private func addNextOccurrence(after activity: Activity, board: Board, actor: BoardActor) async -> Bool {
        let ops = RecurrenceRules.nextOccurrence(after: activity, board: board, today: activity.at.day)
        guard !ops.isEmpty else { return true }
        let seq: UInt64
        switch await actor.applyAsServer(ops) {
        case .failure(let refusal):
            if refusal.code != .duplicateRef && refusal.code != .duplicateID {
                logger.warning("cannot add a recurring card's next occurrence", metadata: ["error": "\(refusal)"])
            }
            return true
        case .success(nil):
            return true
        case .success(let last?):
            seq = last
        }
        switch await actor.settled(seq, shutdownGrace: .zero) {
        case .durable:
            break
        case .lost:
            logger.warning("the next occurrence of a recurring card was not stored; trying again", metadata: ["board": "\(board.id)"])
            return false
        case .pending:
            return false
        }
        logger.info("added the next occurrence of a recurring card", metadata: ["board": "\(board.id)", "card": "\(activity.card?.rawValue ?? "")"])
        return true
    }

    // MARK: Pushing

    private func push(wakeups: AsyncStream<Void>) async {
        var window: InboxPushWindow
        do {
            window = InboxPushWindow(newest: try await store.newestInboxID(), shared: shared != nil)
        } catch {
            window = InboxPushWindow(newest: 0, shared: shared != nil)
            if !Task.isCancelled {
                logger.warning("cannot read the inbox; new entries are sent from the next look", metadata: ["error": "\(error)"])
            }
        }
        let (looks, bell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            // A look at once after this node stored entries, and every 2 s for those another node stored.
            group.addTask {
                for await _ in wakeups { bell.yield() }
                bell.finish()
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(2))
                    bell.yield()
                }
            }
            for await _ in looks {
                await sendNew(&window)
            }
            group.cancelAll()
        }
    }

    /// Sends the entries stored since the last look to their users' sessions here.
    private func sendNew(_ window: inout InboxPushWindow) async {
        var from = window.readFrom
        while true {
            let entries: [InboxEntry]
            do {
                entries = try await store.inboxEntries(after: from, limit: Self.batch)
                pushLog.worked(logger)
            } catch {
                pushLog.failed(error, logger)
                return
            }
            from = entries.last?.id ?? from
            for entry in window.unsent(entries) {
                let sessions = await directory.sessions(of: entry.user)
                guard !sessions.isEmpty else { continue }
                let unread = (try? await store.unreadCount(user: entry.user)) ?? 0
                let line = Lines.line(.inboxEntry(ServerMessage.InboxNew(entry: entry, unread: unread)))
                for session in sessions { session.outbox.send(line) }
            }
            if entries.count < Self.batch { return }
        }
    }
}

/// Which inbox entries a node has yet to send its sessions. Entry ids grow, but with several nodes on PostgreSQL two
/// transactions can commit out of id order (during a handover of the `inbox` lease, the old and the new holder both
/// store): an id below the newest one seen can appear later. So with a shared store each look reads again from
/// `lookback` ids below the newest seen and sends only the ids not sent yet; with SQLite ids commit in order.
struct InboxPushWindow {
    /// The newest id seen.
    private(set) var newest: Int64
    /// How far below `newest` each look reads again.
    let lookback: Int64
    /// Ids at or below this are never sent: there when this node started, or below the lookback.
    private var floor: Int64
    /// The ids above `floor` sent already.
    private var sent: Set<Int64> = []

    init(newest: Int64, shared: Bool) {
        self.newest = newest
        floor = newest
        lookback = shared ? 256 : 0
    }

    /// Where the next look starts reading (after this id).
    var readFrom: Int64 { max(floor, newest - lookback) }

    /// Of `entries` (read in id order), those not sent yet; they count as sent from now on.
    mutating func unsent(_ entries: [InboxEntry]) -> [InboxEntry] {
        var fresh: [InboxEntry] = []
        for entry in entries where entry.id > floor && !sent.contains(entry.id) {
            fresh.append(entry)
            sent.insert(entry.id)
        }
        newest = max(newest, entries.last?.id ?? newest)
        floor = max(floor, newest - lookback)
        sent = sent.filter { $0 > floor }
        return fresh
    }
}
