import BoardCore
import BoardStore
import Logging

/// The boards this server serves, each behind its actor; new actors are handed to the server to run. Archived
/// boards stay in the store but have no actor: to clients they do not exist (`not_found`).
actor BoardRegistry {
    private var boards: [BoardID: BoardActor] = [:]
    /// The archived boards' ids (kept so that `board.create` cannot reuse one, and for clear admin messages).
    private var archived: Set<BoardID> = []
    /// Boards being looked up and loaded from a shared store (one load per board however many ask at once).
    private var loading: [BoardID: Task<BoardActor?, Never>] = [:]
    /// Boards this node is archiving now: taken out of service, not yet marked archived in the store.
    private var archiving: Set<BoardID> = []
    /// How many times each board was archived here or by another node.
    ///
    /// A load from a shared store during an archive, or begun before one, is not served: what it read of the store
    /// may predate the archive, and a subscriber the archive turned away asks again at once (`cork watch` does).
    private var archives: [BoardID: Int] = [:]
    let store: any BoardStore
    /// The store as several nodes share it (nil: only this node serves it).
    let shared: (any SharedStore)?
    let configuration: ServerConfiguration
    let clock: any ServerClock
    let logger: Logger
    /// Newly created actors whose commit loops the server must run.
    let started: AsyncStream<BoardActor>.Continuation
    /// The id of every board this node starts serving (at start-up, made, brought back, or first used after another
    /// node made it), for the presence relay: the people of other nodes it already knows on that board are shown
    /// there at once, not at their next change. Bounded: only the relay reads it, and only with PostgreSQL.
    let served: AsyncStream<BoardID>
    private let servedContinuation: AsyncStream<BoardID>.Continuation

    init(
        store: any BoardStore, shared: (any SharedStore)? = nil, configuration: ServerConfiguration,
        clock: any ServerClock, logger: Logger, started: AsyncStream<BoardActor>.Continuation
    ) {
        self.store = store
        self.shared = shared
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.started = started
        (served, servedContinuation) = AsyncStream.makeStream(of: BoardID.self, bufferingPolicy: .bufferingNewest(4_096))
    }

    /// Serves `actor` from now on: the server runs its commit loop, the presence relay hears of it. When another
    /// actor for the board got there first (loads interleave at their awaits: a subscriber's during an unarchive),
    /// that one stays and is returned, and `actor`, never run, goes: one board, one actor, and every actor the
    /// server runs is one that ``stopAll()`` stops.
    @discardableResult
    private func serve(_ actor: BoardActor) -> BoardActor {
        if let serving = boards[actor.id] { return serving }
        boards[actor.id] = actor
        started.yield(actor)
        servedContinuation.yield(actor.id)
        return actor
    }

    /// Loads every stored board that is not archived (start-up). A board whose log does not replay stops the server.
    func loadAll() async throws {
        for record in try await store.boards() where boards[record.id] == nil {
            if record.archived {
                archived.insert(record.id)
                continue
            }
            try await load(record.id)
        }
    }

    private func load(_ id: BoardID) async throws {
        let actor = try await BoardActor.load(id, store: store, configuration: configuration, clock: clock, logger: logger)
        serve(actor)
    }

    /// The board's actor, if it exists and is not archived. With a store shared by several nodes, a board this node
    /// has not loaded (created or brought back through another node since this one started) is looked up in the
    /// store and loaded.
    func board(_ id: BoardID) async -> BoardActor? {
        if let actor = boards[id] { return actor }
        guard let shared else { return nil }
        if let loading = loading[id] { return await loading.value }
        let task = Task { await self.loadShared(id, shared) }
        loading[id] = task
        let actor = await task.value
        loading[id] = nil
        return actor
    }

    /// The board's actor if this node has it loaded (no store lookup).
    func loaded(_ id: BoardID) -> BoardActor? { boards[id] }

    /// Loads a board another node made or brought back; nil if the store has no such board or it is archived.
    private func loadShared(_ id: BoardID, _ shared: any SharedStore) async -> BoardActor? {
        let archivesBefore = archives[id, default: 0]
        let archivedMeanwhile = { self.archiving.contains(id) || self.archives[id, default: 0] != archivesBefore }
        do {
            guard !archivedMeanwhile(), let record = try await shared.boardRecord(id), !archivedMeanwhile() else { return nil }
            if record.archived {
                archived.insert(id)
                return nil
            }
            if let actor = boards[id] { return actor }
            let actor = try await BoardActor.load(id, store: store, configuration: configuration, clock: clock, logger: logger)
            if let actor = boards[id] { return actor }
            guard !archivedMeanwhile() else { return nil }
            archived.remove(id)
            logger.info("serving board \(id), made or brought back by another node")
            return serve(actor)
        } catch {
            logger.warning("board \(id) could not be looked up in the store", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Another node archived the board: it stops being served here too (its subscribers get `not_found`).
    func archivedElsewhere(_ id: BoardID) async {
        archived.insert(id)
        archives[id, default: 0] += 1
        guard let actor = boards.removeValue(forKey: id) else { return }
        await actor.drained()
        await actor.closeForArchive()
        actor.stop()
        logger.info("board \(id) archived by another node")
    }

    /// Another node created the board or brought it back: it is no longer archived here, and is loaded from the
    /// store on first use.
    func appearedElsewhere(_ id: BoardID) {
        archived.remove(id)
    }

    /// Whether the board exists and is archived.
    func isArchived(_ id: BoardID) -> Bool { archived.contains(id) }

    /// Every board's actor.
    func all() -> [BoardActor] { Array(boards.values) }

    /// Every board, with a store shared by several nodes those made or brought back elsewhere too (loaded here
    /// first): the list a user asks for names every board they belong to, whichever node they ask.
    func everyBoard() async -> [BoardActor] {
        guard shared != nil, let records = try? await store.boards() else { return all() }
        var found = boards
        for record in records where !record.archived && found[record.id] == nil {
            if let board = await board(record.id) { found[record.id] = board }
        }
        return Array(found.values)
    }

    /// Creates a board owned by `owner` with the default columns; nil if the id is taken (archived boards
    /// included).
    func create(_ id: BoardID, name: String, owner: UserID) async throws -> BoardActor? {
        guard boards[id] == nil, !archived.contains(id) else { return nil }
        let record: BoardRecord
        do {
            record = try await store.createBoard(Board(id: id, name: name, owner: owner))
        } catch {
            if error.code == .duplicate { return nil }
            throw error
        }
        guard boards[id] == nil else { return boards[id] }
        let actor = BoardActor(
            id: id, epoch: record.epoch, board: Board(id: id, name: name, owner: owner), store: store,
            configuration: configuration, clock: clock, logger: logger)
        serve(actor)
        return actor
    }

    /// Archives a board: it stops being served at once (its subscribers get `not_found`), what was pending is
    /// committed, and the store marks it archived. Its data is kept; `unarchive` brings it back.
    func archive(_ id: BoardID) async -> AdminFailure? {
        // A board made through another node may not be loaded here yet (a shared store only).
        if boards[id] == nil { _ = await board(id) }
        if archived.contains(id) { return nil }
        guard let actor = boards.removeValue(forKey: id) else { return .noBoard(id) }
        // Out of service from now on, before the awaits below: a subscriber the archive turns away asks again at once,
        // and must not have the board loaded again from a store that does not say archived yet.
        archiving.insert(id)
        archives[id, default: 0] += 1
        defer { archiving.remove(id) }
        await actor.drained()
        await actor.closeForArchive()
        actor.stop()
        do {
            try await store.setArchived(id, true, now: clock.now())
        } catch {
            // Not archived after all: serve it again from what is stored.
            logger.error("archiving \(id) failed; serving it again", metadata: ["error": "\(error)"])
            try? await load(id)
            return .store(error)
        }
        archived.insert(id)
        logger.info("archived board \(id)")
        return nil
    }

    /// Brings an archived board back: loaded from the store and served again.
    func unarchive(_ id: BoardID) async -> AdminFailure? {
        if boards[id] != nil { return nil }
        // Archived through another node before this one started following the queue (a shared store only).
        if !archived.contains(id), let shared, (try? await shared.boardRecord(id))??.archived == true {
            archived.insert(id)
        }
        guard archived.contains(id) else { return .noBoard(id) }
        do {
            try await store.setArchived(id, false, now: clock.now())
            try await load(id)
        } catch let error as StoreError {
            return .store(error)
        } catch {
            return AdminFailure(.failed, "board \(id) could not be loaded: \(error)")
        }
        archived.remove(id)
        logger.info("unarchived board \(id)")
        return nil
    }

    /// Stops every board's commit loop once its pending changes are durable.
    func stopAll() {
        for board in boards.values { board.stop(final: true) }
        started.finish()
        servedContinuation.finish()
    }
}
