import NIOPosix

/// The threads the SQLite store's blocking calls run on: one writer, and a few for reads.
///
/// Each runs GRDB's synchronous API, which on a thread of ours runs the work right there (`dispatch_sync` onto
/// GRDB's queue of that connection, with nothing to hand over). GRDB's async API did it through libdispatch: an
/// `await pool.read` was three actor hops, each a job on one of GRDB's serial queues (its reader pool's wait and
/// barrier queues, then the reader's) and a hop back; an `asyncWrite` a job on the writer's queue. Those queues run
/// on libdispatch's overcommit threads, which it starts whenever none is idle and keeps (11 at rest, one or two more
/// after each round of 5,000 connections), and each keeps up to 1,024 freed continuations in its cache: the jobs'
/// continuations, allocated by the event loops and the workers among the connections' memory, which then kept
/// pages of that memory resident after the connections closed. `perf` with a uprobe on `dispatch_async_f` during
/// 2,000 idle connections counted 5,353 such jobs (the `hello` reads its token) and 5,354 hops back.
///
/// The threads end when the last copy of the store is gone (work still queued runs first).
final class StoreThreads: Sendable {
    /// The one writer: its jobs run in the order they were submitted (GRDB's writer queue did the same).
    private let writer: NIOThreadPool
    /// The reads' threads (each read takes one of the pool's reader connections).
    private let readers: NIOThreadPool

    /// The names of the threads (`store-w-#0`, `store-r-#0`, …), for `top -H`, `perf` and tests.
    static let writerName = "store-w-#"
    static let readerName = "store-r-#"

    init(readers: Int) {
        self.writer = NIOThreadPool(numberOfThreads: 1)
        self.readers = NIOThreadPool(numberOfThreads: max(1, readers))
        // `_start(threadNamePrefix:)` is `start()` with names of our own (public, underscored in NIO).
        writer._start(threadNamePrefix: Self.writerName)
        self.readers._start(threadNamePrefix: Self.readerName)
    }

    deinit {
        writer.shutdownGracefully { _ in }
        readers.shutdownGracefully { _ in }
    }

    /// Runs `job` on the writer thread after every job submitted before it; `job(false)` at once (on the caller's
    /// thread) when the threads are shutting down.
    func submitWrite(_ job: @escaping @Sendable (_ running: Bool) -> Void) {
        writer.submit { state in job(state == .active) }
    }

    /// Runs `body` on the writer thread and returns its result; not cancellable (the caller must learn whether a
    /// write happened). `closed` is the result when the threads are shutting down.
    func write<T: Sendable>(closed: T, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            submitWrite { running in continuation.resume(returning: running ? body() : closed) }
        }
    }

    /// Waits for the reads under way to end; reads queued or asked for later throw `CancellationError`. Before the
    /// pool closes: GRDB's `close()` is not safe against a read entering the pool meanwhile (a read that takes the
    /// reader pool just before it is dropped can crash inside SQLite).
    func endReads() async {
        try? await readers.shutdownGracefully()
    }

    /// Runs `body` on a reader thread; throws `CancellationError` when the task is cancelled before it starts, or
    /// after `endReads()`.
    func read<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await readers.runIfActive(body)
    }
}
