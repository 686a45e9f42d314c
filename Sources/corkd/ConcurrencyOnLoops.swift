import NIOCore
import NIOPosix

/// Where `corkd serve` runs Swift concurrency's jobs (issue 14, defect 5). By default every session task and actor
/// runs on the server's NIO event loops (`MultiThreadedEventLoopGroup.singleton`, one per core), and each board's own
/// task on threads of its own (`JobThreads`, `board-#N`, one per core). `CORKD_EXECUTOR=dispatch` keeps Swift's own
/// executor, libdispatch's worker threads, for everything.
///
/// Why not libdispatch: on Linux each job handed to it is a `dispatch_async_f`, whose 64-byte continuation comes
/// from the enqueuing thread's cache or from `malloc`, and the worker that runs it keeps it in its own cache (up to
/// 1,024, freed only when the thread ends). The event loops enqueue most of a connection's jobs (a line arrived, a
/// write finished) and never run dispatch jobs, so theirs always come from `malloc`, among the connections' memory.
/// And whatever a connection's tasks allocate on the workers lands in the workers' own glibc arenas, beside
/// longer-lived blocks. After rounds of 5,000 idle connections RSS came back to +7 to +11 % of the cold start on
/// libdispatch, and to +5 to +9 % with the loops (README, "Ninth look"). With the loops as the executor a job is an
/// entry in the loop's own task queue, and a task woken on a loop runs there without a thread switch.
///
/// Why boards on threads of their own: on the loops alone, a board's `run()` (settling a durable batch and handing
/// the next to the store's writer) queued behind the loop's writes of that batch's deltas, and the anchor's 100 × 10
/// closed loop delivered half of libdispatch's.
///
/// What it costs and buys, measured side by side (README, "Ninth look"): at light load the same CPU per delivery
/// within the spread; saturated closed loops 2–11 % fewer deliveries, and 23–40 % fewer on one board with 100
/// subscribers. `CORKD_EXECUTOR=dispatch` is for a server that runs saturated and holds few idle connections.
///
/// The server's blocking calls run on threads of their own (the SQLite store's `StoreThreads`, the checkpointer's
/// queue, hooks' DNS lookups on NIO's thread pool), so nothing blocks a loop either way. What still reaches
/// libdispatch: `Task.sleep`'s timers (the runtime keeps them on `dispatch_after`) and the signal sources.
enum ConcurrencyOnLoops {
    /// The name prefix of the boards' threads.
    static let boardThreadName = "board-#"

    /// Whether to install, from the environment: unless `CORKD_EXECUTOR=dispatch`.
    static func wanted(_ environment: [String: String]) -> Bool {
        environment["CORKD_EXECUTOR"] != "dispatch"
    }

    /// What `CORKD_EXECUTOR` holds when corkd does not know it (then it uses the default), or nil.
    static func unknownChoice(_ environment: [String: String]) -> String? {
        guard let choice = environment["CORKD_EXECUTOR"], !["loops", "dispatch", ""].contains(choice) else { return nil }
        return choice
    }

    /// Installs the loops as the global executor; true when they are. Once per process, on the main thread, before
    /// the server starts.
    @discardableResult
    static func install() -> Bool {
        installed = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        return installed
    }

    /// Whether `install()` did (written once, on the main thread, before any task of the server starts).
    nonisolated(unsafe) private(set) static var installed = false
}
