import BoardCore
import Foundation
import GRDB

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
    /// mutation for each `(actor, clientID, board)` moves up in the same transaction, and `board.rename` events and
    /// snapshots keep the board's listed name current. Older snapshots beyond `Configuration.snapshotsKept` are
    /// deleted.
    ///
    /// Not cancellable: once called it runs to its commit or its rollback. It goes through the store's one writer
    /// (`submit`), so it shares a transaction with whatever else is queued.
    public func append(_ events: [StoredEvent], snapshots: [Board]) async throws(StoreError) {
        guard !events.isEmpty || !snapshots.isEmpty else { return }
        try await append(EncodedBatch(events: events, snapshots: snapshots, eventJSON: configuration.eventJSON))
    }

    /// `append` for changes the server encoded: their texts are written as they are.
    public func append(encoded changes: [EncodedChange], snapshots: [Board]) async throws(StoreError) {
        guard !changes.isEmpty || !snapshots.isEmpty else { return }
        try await append(EncodedBatch(changes: changes, snapshots: snapshots))
    }

    /// Hands changes to the store's one writer (group commit across boards, `BoardStore.submit`).
    ///
    /// The writer is GRDB's writer connection, used on the store's writer thread (`StoreThreads`): at the start of
    /// each transaction it takes everything queued (every board's hand-overs), writes it in one IMMEDIATE transaction
    /// (one fsync), then calls each `done` right there, on the writer's thread, before it takes the next. When a
    /// shared transaction fails, its hand-overs are written again one by one, so one board's bad batch never fails
    /// another's. While more is queued it schedules itself again behind any other write waiting on the writer thread,
    /// so a steady stream of ops never starves those.
    public func submit(
        encoded changes: [EncodedChange], snapshots: [Board], done: @escaping @Sendable (Result<Void, StoreError>) -> Void
    ) {
        guard !changes.isEmpty || !snapshots.isEmpty else { return done(.success(())) }
        do {
            submit(try EncodedBatch(changes: changes, snapshots: snapshots), done: done)
        } catch {
            done(.failure(error))
        }
    }

    /// Queues `batch` for the writer and waits for its outcome.
    private func append(_ batch: EncodedBatch) async throws(StoreError) {
        let result: Result<Void, StoreError> = await withCheckedContinuation { continuation in
            submit(batch) { continuation.resume(returning: $0) }
        }
        try result.get()
    }

    /// Queues `batch`; starts the writer when it was idle.
    private func submit(_ batch: EncodedBatch, done: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        if appends.enqueue(CommitQueue.Ticket(batch: batch, done: done)) { startWriter() }
    }

    /// One turn of the writer: takes everything queued, commits it, answers it, and schedules the next turn while
    /// more is queued.
    private func startWriter() {
        let store = self
        threads.submitWrite { running in
            guard let tickets = store.appends.takeAll() else { return }
            guard running else {
                return Self.fail(tickets, StoreError(.internal, "append: the store is closed"), store.appends)
            }
            if let replaced = store.replacement() {
                // The operator's log says which file and what to do; clients hear only that nothing was written.
                store.logger.error("\(replaced)")
                let error = StoreError(.io, "append: the store's file was replaced or removed while the server used it")
                return Self.fail(tickets, error, store.appends)
            }
            // On a closed pool the transaction fails and `commit` answers each ticket with that.
            store.pool.writeWithoutTransaction { db in
                Self.commit(tickets, snapshotsKept: store.configuration.snapshotsKept, db)
            }
            if store.appends.continues() { store.startWriter() }
        }
    }

    /// Answers `tickets` and everything queued after them with `error`, once the writer cannot write.
    private static func fail(_ tickets: [CommitQueue.Ticket], _ error: StoreError, _ appends: CommitQueue) {
        var tickets = tickets
        repeat {
            for ticket in tickets { ticket.done(.failure(error)) }
            tickets = appends.takeAll() ?? []
        } while !tickets.isEmpty
    }

    /// Writes `tickets` in one transaction and answers each; after a failure, each alone.
    private static func commit(_ tickets: [CommitQueue.Ticket], snapshotsKept: Int, _ db: Database) {
        let joined = tickets.count == 1 ? tickets[0].batch : EncodedBatch(joining: tickets.map(\.batch))
        let result = transaction(joined, snapshotsKept: snapshotsKept, db)
        if case .failure = result, tickets.count > 1 {
            for ticket in tickets { ticket.done(transaction(ticket.batch, snapshotsKept: snapshotsKept, db)) }
            return
        }
        for ticket in tickets { ticket.done(result) }
    }

    /// One IMMEDIATE transaction for `batch`, committed (durable: WAL with `synchronous=FULL`) or rolled back.
    private static func transaction(_ batch: EncodedBatch, snapshotsKept: Int, _ db: Database) -> Result<Void, StoreError> {
        do {
            try db.inTransaction(.immediate) {
                try append(batch, snapshotsKept: snapshotsKept, db)
                return .commit
            }
            return .success(())
        } catch {
            // GRDB already rolls back in `inTransaction`; this is the belt to its braces (see `writeWithoutTransaction`).
            if db.isInsideTransaction { try? db.rollback() }
            return .failure(StoreError(error, context: "append"))
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
