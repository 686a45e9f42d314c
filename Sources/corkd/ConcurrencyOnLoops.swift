import NIOCore
import NIOPosix

/// With `CORKD_EXECUTOR=loops`: runs Swift concurrency's jobs in `corkd serve` (every session task and board
/// actor) on the server's NIO event loops, `MultiThreadedEventLoopGroup.singleton`, instead of libdispatch's worker
/// threads (issue 14, defect 5).
///
/// Why: on Linux each job handed to the global executor is a `dispatch_async_f`, whose 64-byte continuation comes
/// from the enqueuing thread's cache or from `malloc`, and the worker that runs it keeps it in its own cache (up to
/// 1,024, freed only when the thread ends). The event loops enqueue most of a connection's jobs (a line arrived, a
/// write finished) and never run dispatch jobs, so theirs always come from `malloc`, among the connections' memory;
/// after the connections close, the continuations the workers keep hold pages of it resident. `perf` (uprobes on
/// `dispatch_async_f` and `dispatch_async`) counted about 15 jobs per idle connection, opened, held and closed.
/// With the loops as the executor a job is an entry in the loop's own task queue, and a task woken on a loop runs
/// there without a thread switch: `dispatch_async_f` while 5,000 connections opened went to 0. What still reaches
/// libdispatch: `Task.sleep`'s timers (the runtime keeps them on `dispatch_after`) and the signal sources.
///
/// Why it is not the default: the anchor's 100 × 10 closed loop (`SERVERS="cork" … BOARDS="100"`, release,
/// alternating, 2026-11-28 18:05–18:13 UTC) delivered 100, 106 and 68 k/s against 215, 182 and 162 k/s on
/// libdispatch, with the loops half idle (the ops wait longer between the loops and the store's writer, not for
/// CPU), while at 1,000 ops/s it spent 61–68 µs of CPU per delivery against 65–77. Over rounds of 5,000 idle
/// connections RSS came back to +5 to +9 % of the cold start, against +6 to +11 % on libdispatch (about +16 %
/// before `StoreThreads`; README, "Eighth look"). So it suits a server that holds many idle connections and
/// little traffic.
///
/// The server's blocking calls run on threads of their own (the SQLite store's `StoreThreads`, the checkpointer's
/// queue, hooks' DNS lookups on NIO's thread pool), so nothing blocks a loop either way.
enum ConcurrencyOnLoops {
    /// Whether to install, from the environment.
    static func wanted(_ environment: [String: String]) -> Bool {
        environment["CORKD_EXECUTOR"] == "loops"
    }

    /// Installs the loops as the global executor; true when they are. Once per process, on the main thread, before
    /// the server starts.
    @discardableResult
    static func install() -> Bool {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
