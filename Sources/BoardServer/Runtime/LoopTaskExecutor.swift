import NIOCore

/// Runs a task's jobs on one NIO event loop: a session's task prefers the loop of its connection.
///
/// A line read on a connection's loop is then handled there (decoded, checked, applied by the board's machine,
/// handed to the store's writer) without a hop to one of Swift's worker threads, and the answers written back on
/// that loop need no hop either: the op path crosses threads twice, to the store's writer and from it back to the
/// subscribers' loops (docs/architecture.md, "The op path"). A board actor called from the session runs on that
/// loop too, since a default actor runs on its caller's preferred executor when it is free.
///
/// Nothing a session does blocks: the store's reads and writes run on the store's own threads, so the loop is never
/// held by a disk wait.
final class LoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
