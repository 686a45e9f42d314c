import BoardCore
import BoardStore
import Logging

/// The boards this server owns, each behind its actor; new actors are handed to the server to run.
actor BoardRegistry {
    private var boards: [BoardID: BoardActor] = [:]
    let store: any BoardStore
    let configuration: ServerConfiguration
    let clock: any ServerClock
    let logger: Logger
    /// Newly created actors whose commit loops the server must run.
    let started: AsyncStream<BoardActor>.Continuation

    init(
        store: any BoardStore, configuration: ServerConfiguration, clock: any ServerClock, logger: Logger,
        started: AsyncStream<BoardActor>.Continuation
    ) {
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.started = started
    }

    /// Loads every stored board (start-up). A board whose log does not replay stops the server.
    func loadAll() async throws {
        for record in try await store.boards() where boards[record.id] == nil {
            let actor = try await BoardActor.load(
                record.id, store: store, configuration: configuration, clock: clock, logger: logger)
            boards[record.id] = actor
            started.yield(actor)
        }
    }

    /// The board's actor, if it exists.
    func board(_ id: BoardID) -> BoardActor? { boards[id] }

    /// Every board's actor.
    func all() -> [BoardActor] { Array(boards.values) }

    /// Creates a board owned by `owner` with the default columns; nil if the id is taken.
    func create(_ id: BoardID, name: String, owner: UserID) async throws -> BoardActor? {
        guard boards[id] == nil else { return nil }
        let record = try await store.createBoard(Board(id: id, name: name, owner: owner))
        guard boards[id] == nil else { return boards[id] }
        let actor = BoardActor(
            id: id, epoch: record.epoch, board: Board(id: id, name: name, owner: owner), store: store,
            configuration: configuration, clock: clock, logger: logger)
        boards[id] = actor
        started.yield(actor)
        return actor
    }

    /// Stops every board's commit loop once its pending changes are durable.
    func stopAll() {
        for board in boards.values { board.stop() }
        started.finish()
    }
}
