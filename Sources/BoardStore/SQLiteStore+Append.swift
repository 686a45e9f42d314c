import BoardCore
import Foundation
import GRDB
import Synchronization

extension SQLiteStore {
    /// The insert statement for one event; its arguments come from `EncodedEvent.arguments`.
    static let insertEventSQL = """
        INSERT INTO events (board, seq, at, actor, client_id, mut, card, kind, op, activity, inverse, undo_of)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Appends events (of one or more boards) and snapshots in one transaction; returns once it is durable.
    ///
    /// Each board's events must come in seq order, the first one at the board's stored head + 1, with no gap or
    /// repeat; every snapshot must be of a board that exists, at a seq no later than that board's head after the
    /// batch. Anything else throws `.internal` (`.notFound` for an unknown board, `.duplicate` for a
    /// `(actor, clientID, mut)` that is already committed) and writes nothing. The `client_boards` table's last
    /// mutation for each `(actor, clientID, board)` moves up in the same transaction, and `board.rename` events and snapshots keep
    /// the board's listed name current. Older snapshots beyond `Configuration.snapshotsKept` are deleted.
    ///
    /// Not cancellable: once called it runs to its commit or its rollback.
    ///
    /// Group commit across boards: appends that arrive while a transaction is being written wait, and the next
    /// transaction writes all of them at once (one fsync for many boards, where one per board capped a server with
    /// many busy boards at a few thousand commits a second). Each caller still gets its own outcome: when a shared
    /// transaction fails, its appends are retried one by one, so one board's bad batch never fails another's.
    public func append(_ events: [StoredEvent], snapshots: [Board]) async throws(StoreError) {
        guard !events.isEmpty || !snapshots.isEmpty else { return }
        try await append(EncodedBatch(events: events, snapshots: snapshots, eventJSON: configuration.eventJSON))
    }

    /// `append` for changes the server encoded: their texts are written as they are.
    public func append(encoded changes: [EncodedChange], snapshots: [Board]) async throws(StoreError) {
        guard !changes.isEmpty || !snapshots.isEmpty else { return }
        try await append(EncodedBatch(changes: changes, snapshots: snapshots))
    }

    /// Queues `batch` for the next transaction (see `append`) and waits for its outcome.
    private func append(_ batch: EncodedBatch) async throws(StoreError) {
        let ticket = AppendQueue.Ticket(batch)
        if appends.enqueue(ticket) {
            // No transaction was being written: this caller writes until the queue is empty.
            while let batch = appends.takeAll() {
                await commit(batch)
            }
        }
        try await ticket.outcome().get()
    }

    /// Writes `batch` in one transaction and settles every ticket; after a failure, each ticket alone.
    private func commit(_ batch: [AppendQueue.Ticket]) async {
        let result: Result<Void, StoreError>
        do {
            try await appendNow(EncodedBatch(joining: batch.map(\.batch)))
            result = .success(())
        } catch {
            result = .failure(error)
        }
        if case .failure = result, batch.count > 1 {
            for ticket in batch {
                do {
                    try await appendNow(ticket.batch)
                    ticket.settle(.success(()))
                } catch {
                    ticket.settle(.failure(error))
                }
            }
            return
        }
        for ticket in batch { ticket.settle(result) }
    }

    /// One transaction for `batch` (the checks of `append`).
    private func appendNow(_ batch: EncodedBatch) async throws(StoreError) {
        let kept = configuration.snapshotsKept
        try await write("append") { db in
            try SQLiteStore.append(batch, snapshotsKept: kept, db)
        }
    }

    /// The body of `append`'s transaction.
    private static func append(_ batch: EncodedBatch, snapshotsKept: Int, _ db: Database) throws {
        // Every statement of a commit is prepared once per connection and reused (`cachedStatement`): preparing
        // them again on every commit was part of a commit's fixed cost.
        let selectHead = try db.cachedStatement(sql: "SELECT head FROM boards WHERE id = ?")
        var heads: [String: Int64] = [:]
        for board in batch.boards {
            guard let head = try Int64.fetchOne(selectHead, arguments: [board])
            else { throw StoreError(.notFound, "append: no board \(board)") }
            heads[board] = head
        }
        let plan = try batch.plan(heads: heads)
        let insert = try db.cachedStatement(sql: insertEventSQL)
        for event in batch.events {
            do {
                try insert.execute(arguments: event.arguments)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                throw event.duplicate
            }
        }
        let client = try db.cachedStatement(
            sql: """
                INSERT INTO client_boards (user, client_id, board, last_mut) VALUES (?, ?, ?, ?)
                ON CONFLICT (user, client_id, board) DO UPDATE SET last_mut = max(last_mut, excluded.last_mut)
                """)
        for (key, mut) in plan.lastMutations {
            try client.execute(arguments: [key.user, key.clientID, key.board, mut])
        }
        for snapshot in batch.snapshots {
            try db.execute(
                sql: "INSERT OR REPLACE INTO snapshots (board, seq, state) VALUES (?, ?, ?)",
                arguments: [snapshot.board, snapshot.seq, snapshot.state])
            try db.execute(
                sql: """
                    DELETE FROM snapshots WHERE board = ? AND seq < (
                        SELECT min(seq) FROM (SELECT seq FROM snapshots WHERE board = ? ORDER BY seq DESC LIMIT ?))
                    """,
                arguments: [snapshot.board, snapshot.board, snapshotsKept])
        }
        let updateHead = try db.cachedStatement(sql: "UPDATE boards SET head = ?, name = coalesce(?, name) WHERE id = ?")
        for (board, head) in plan.heads {
            try updateHead.execute(arguments: [head, plan.renames[board], board])
        }
    }
}

/// The appends waiting for the next transaction, and whether one is being written (by the caller that found the
/// queue idle: the leader). Followers wait on their ticket.
final class AppendQueue: Sendable {
    /// One caller's append and, once written, its outcome.
    final class Ticket: Sendable {
        let batch: EncodedBatch
        private let state = Mutex<(result: Result<Void, StoreError>?, waiter: CheckedContinuation<Result<Void, StoreError>, Never>?)>(
            (nil, nil))

        init(_ batch: EncodedBatch) {
            self.batch = batch
        }

        /// Records the outcome and wakes the caller.
        func settle(_ result: Result<Void, StoreError>) {
            let waiter = state.withLock { state -> CheckedContinuation<Result<Void, StoreError>, Never>? in
                guard state.result == nil else { return nil }
                state.result = result
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: result)
        }

        /// Waits for the outcome.
        func outcome() async -> Result<Void, StoreError> {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result<Void, StoreError>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    private let state = Mutex<(waiting: [Ticket], writing: Bool)>(([], false))
    /// Transactions written and the appends they carried (for tests and diagnostics).
    let transactions = Atomic<Int>(0)
    let appended = Atomic<Int>(0)

    /// Queues a ticket; true when no transaction is being written, so the caller must write (it is now the leader).
    func enqueue(_ ticket: Ticket) -> Bool {
        state.withLock { state in
            state.waiting.append(ticket)
            if state.writing { return false }
            state.writing = true
            return true
        }
    }

    /// Everything waiting, or nil (and the leader's turn ends) when nothing is.
    func takeAll() -> [Ticket]? {
        state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.writing = false
                return nil
            }
            defer { state.waiting = [] }
            transactions.add(1, ordering: .relaxed)
            appended.add(state.waiting.count, ordering: .relaxed)
            return state.waiting
        }
    }
}
