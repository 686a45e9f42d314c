import BoardTransport
#if canImport(Glibc)
import Glibc
#endif

/// Gives freed heap back to the system every few seconds.
///
/// glibc's malloc keeps memory that connections freed: measured on the debug build, 3,000 idle subscribed
/// connections took RSS from 46 MB to 250 MB and it stayed at 250 MB after they all closed (322 MB after a second
/// round with `MALLOC_ARENA_MAX=2`, which does not help). A `malloc_trim(0)` brought it back to 60 MB, and a second
/// round then peaked at 250 MB again instead of growing. The heap was free, not leaked: it only had to be returned.
/// One trim walks every arena, a few milliseconds on a large heap, so it runs every `interval`, not per close.
enum MemoryTrim {
    /// How often corkd trims.
    static let interval: Duration = .seconds(10)

    /// Trims every `interval` until the task is cancelled; `alsoRelease` runs first each time (the store's idle
    /// memory, whose freed blocks the trim then returns).
    static func run(every interval: Duration = MemoryTrim.interval, alsoRelease: @Sendable () -> Void = {}) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            alsoRelease()
            _ = trim?(0)
            // The connections' spare read buffers too, when no connection took one since the last trim.
            ConnectionAllocator.releaseIdleSpares()
        }
    }

    /// glibc's `malloc_trim`, looked up at run time (`<malloc.h>` is not in Swift's Glibc module); nil elsewhere.
    static let trim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
