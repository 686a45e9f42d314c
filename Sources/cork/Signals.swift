#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The last SIGINT or SIGTERM caught (0: none); written by the signal handler, polled by `cork watch`.
nonisolated(unsafe) private var caughtSignal: Int32 = 0

/// SIGINT and SIGTERM for `cork watch`: a C handler records the signal and the watch loop polls for it, so the
/// client can say `bye` and the process exit 0.
enum Signals {
    /// Unblocks SIGINT and SIGTERM, which a parent may have blocked (children of `swift test` start with SIGTERM
    /// blocked). Called first thing, before any thread starts, so every thread inherits the mask.
    static func unblockTermination() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Catches SIGINT and SIGTERM from now on.
    static func catchTermination() {
        signal(SIGINT) { caughtSignal = $0 }
        signal(SIGTERM) { caughtSignal = $0 }
    }

    /// Returns the signal once SIGINT or SIGTERM arrives (after ``catchTermination()``), or nil when cancelled.
    static func termination() async -> Int32? {
        while !Task.isCancelled {
            if caughtSignal != 0 { return caughtSignal }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
