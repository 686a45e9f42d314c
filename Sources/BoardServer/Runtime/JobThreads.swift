import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A few named worker threads taking Swift concurrency's jobs from one queue (a ring of job pointers that grows but
/// never allocates per job), used as a `TaskExecutor`: `corkd serve` runs each board's own task on them
/// (`ServerConfiguration.boardExecutor`) while every other task runs on the event loops (issue 14, defect 5).
///
/// Why boards get threads of their own: with the loops as Swift's global executor, a board's `run()` — settling a
/// durable batch and handing the next one to the store's writer — queued on a loop behind that loop's writes of the
/// batch's deltas, so the next commit waited for the fan-out, and the anchor's 100 × 10 closed loop delivered half
/// (100–120 k/s against 220–250 k/s). On threads of their own the boards hand over while the loops write.
///
/// A job runs on this executor as its task executor (`runSynchronously(on:)`), in the order it came; an idle worker
/// sleeps on a condition variable until a job comes. ``shutdown()`` ends the threads once the queue is empty.
///
/// As the process's global executor (the runtime's `swift_task_enqueueGlobal_hook`, in place of libdispatch) the
/// same queue was measured too and not kept: RSS after rounds of idle connections stayed +7 to +11 % of the cold
/// start, as on libdispatch (README, "Ninth look").
public final class JobThreads: TaskExecutor, @unchecked Sendable {
    // @unchecked: `ring`, `head`, `count`, `capacity`, `sleeping`, `stopping`, `ran`, `running` are read and written
    // only with `lock` held; the rest is set in `init` and never changed.

    /// The name prefix of the worker threads (`top -H`, `perf`, tests): `prefix0`, `prefix1`, ….
    public let threadName: String

    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var ring: UnsafeMutablePointer<UnownedJob>
    private var capacity: Int
    private var head = 0
    private var count = 0
    /// Workers waiting for a job.
    private var sleeping = 0
    private var stopping = false
    private var ran = 0
    /// Workers still running (``shutdown()`` waits for 0).
    private var running = 0

    /// Starts `threads` workers (at least one) named `name0`, `name1`, …; `capacity` is the ring's first size (it
    /// doubles when full).
    public init(threads: Int, name: String, capacity: Int = 1024) {
        pthread_mutex_init(lock, nil)
        pthread_cond_init(wake, nil)
        self.threadName = name
        self.capacity = max(1, capacity)
        self.ring = .allocate(capacity: self.capacity)
        self.running = max(1, threads)
        for index in 0..<max(1, threads) { start(index) }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        push(UnownedJob(job))
    }

    /// Queues `job` and wakes a sleeping worker if there is one. Any thread.
    private func push(_ job: UnownedJob) {
        pthread_mutex_lock(lock)
        if count == capacity { grow() }
        (ring + (head + count) % capacity).initialize(to: job)
        count += 1
        let wakeOne = sleeping > 0
        pthread_mutex_unlock(lock)
        if wakeOne { pthread_cond_signal(wake) }
    }

    /// Jobs run so far.
    public var jobsRun: Int {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return ran
    }

    /// The ring's size now (it doubles when a job finds it full, and never shrinks).
    public var ringCapacity: Int {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return capacity
    }

    /// Ends the workers once every job queued has run, and returns when they have. Not from one of its own workers.
    public func shutdown() {
        pthread_mutex_lock(lock)
        stopping = true
        pthread_cond_broadcast(wake)
        while running > 0 { pthread_cond_wait(wake, lock) }
        pthread_mutex_unlock(lock)
    }

    /// Doubles the ring, its jobs first in order. With `lock` held.
    private func grow() {
        let larger = UnsafeMutablePointer<UnownedJob>.allocate(capacity: capacity * 2)
        for index in 0..<count {
            (larger + index).initialize(to: (ring + (head + index) % capacity).move())
        }
        ring.deallocate()
        ring = larger
        head = 0
        capacity *= 2
    }

    /// The next job; sleeps while there is none; nil when stopping and none is left.
    private func next() -> UnownedJob? {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        while count == 0 {
            if stopping { return nil }
            sleeping += 1
            pthread_cond_wait(wake, lock)
            sleeping -= 1
        }
        let job = (ring + head).move()
        head = (head + 1) % capacity
        count -= 1
        ran &+= 1
        return job
    }

    /// A worker's life: runs jobs until ``shutdown()``.
    private func work() {
        let executor = asUnownedTaskExecutor()
        while let job = next() { job.runSynchronously(on: executor) }
        pthread_mutex_lock(lock)
        running -= 1
        // `shutdown()` waits on the same condition.
        pthread_cond_broadcast(wake)
        pthread_mutex_unlock(lock)
    }

    /// Starts worker `index`, named through `/proc/thread-self/comm` (Foundation's `Thread.name` does not reach the
    /// system thread on Linux, and Glibc's module does not export `pthread_setname_np`).
    private func start(_ index: Int) {
        let name = "\(threadName)\(index)"
        let thread = Thread { [self] in
            let comm = open("/proc/thread-self/comm", O_WRONLY)
            if comm >= 0 {
                _ = name.withCString { write(comm, $0, strlen($0)) }
                close(comm)
            }
            work()
        }
        thread.start()
    }

    deinit {
        // Only after `shutdown()`: each worker holds the executor until it returns.
        ring.deallocate()
        pthread_cond_destroy(wake)
        pthread_mutex_destroy(lock)
        wake.deallocate()
        lock.deallocate()
    }
}
