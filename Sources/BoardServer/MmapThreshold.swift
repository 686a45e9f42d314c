#if canImport(Glibc)
import Glibc
#endif

/// Large blocks straight from the kernel (issue 14, defect 5): glibc's `M_MMAP_THRESHOLD` lowered to 16 KiB.
///
/// Every TLS connection allocates two blocks that it barely touches: NIOSSL's plaintext read buffer (32 KiB) and
/// its outbound buffer (16 KiB, one TLS record), both fixed by NIOSSL. From the heap they sit among small blocks
/// whose headers touch their first and last pages, and after they are freed the heap around them stays fragmented;
/// mapped on their own, only the pages really written become resident, and `free` unmaps them at once. Measured
/// with `bench/idle-connections.py 5000`: 33.3 → 31.4 KiB per idle connection (README, "Idle connections").
/// Setting the threshold also turns off glibc's dynamic threshold, which otherwise rises to 32 MiB after the first
/// large block is freed and sends every later one back to the heap. Each mapped block is one more mapping
/// (`vm.max_map_count`, 65,530 by default): at `connections_max` 20,000 that is 40,000 at most, and when the
/// kernel refuses a mapping glibc takes the block from the heap instead.
public enum MmapThreshold {
    /// The threshold corkd sets: blocks of 16 KiB and more are mapped.
    public static let bytes: Int32 = 16 * 1024

    /// glibc's `mallopt` parameter `M_MMAP_THRESHOLD` (`<malloc.h>`, which Swift's Glibc module does not include).
    static let parameter: Int32 = -3

    /// Sets the threshold; false where there is no glibc `mallopt` (or it refused).
    @discardableResult
    public static func apply(_ bytes: Int32 = MmapThreshold.bytes) -> Bool {
        guard let mallopt else { return false }
        return mallopt(parameter, bytes) == 1
    }

    /// glibc's `mallopt`, looked up at run time; nil elsewhere.
    static let mallopt: (@convention(c) (Int32, Int32) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
