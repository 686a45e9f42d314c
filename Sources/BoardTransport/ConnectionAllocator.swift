#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
@_spi(CustomByteBufferAllocator) import NIOCore
import Synchronization

/// The byte-buffer allocator of every accepted connection: blocks of 16 KiB and more get pages of their own
/// (`mmap`), smaller ones come from `malloc` as usual.
///
/// Why: each TLS connection holds two large buffers for as long as it is open, NIOSSL's plaintext read buffer
/// (32 KiB) and its ciphertext write buffer (16 KiB), and an idle connection writes only the first few KiB of
/// either. From the heap those blocks cost their first and last pages and more once the heap is reused, and after
/// the connections close they leave holes that the few long-lived blocks around them keep resident. With pages of
/// their own only the pages touched are resident (a copy or a growth touches them all), and closing gives them
/// straight back to the system. Process-wide (glibc's `M_MMAP_THRESHOLD`) this made every large allocation of the
/// process a system call and unsettled a busy test process; here it applies only to the connections' buffers.
///
/// Those allocate large blocks once per connection, and again whenever NIOSSL's read buffer must be copied because
/// lines read from it are still held when the next record arrives (a busy connection, or one whose lines wait in a
/// rate-limit pause: then once per line). So that such copies cost no system calls, up to ``sparesMax`` freed
/// blocks of the read buffer's size are kept for the next one (at most 576 KiB). A server that took none of them
/// since its last memory trim gives their pages back (``releaseIdleSpares()``, corkd's 10 s trim): they stay mapped,
/// empty, for the next burst.
///
/// Every block starts with a 16-byte header (the mapping's length, or 0 for `malloc`), so a block is freed the way
/// it was allocated; 16 bytes keep the alignment `malloc` gives.
public enum ConnectionAllocator {
    /// Blocks this large or larger are mapped.
    static let mappedFrom = 16 * 1024
    static let header = 16
    static let page = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
    /// The mapped length of NIOSSL's 32 KiB read buffer: freed blocks of this length are kept as spares.
    static let spareLength = length(forMapping: 32 * 1024)
    /// How many spares are kept at most.
    static let sparesMax = 16
    /// Freed mappings of ``spareLength`` bytes.
    static let spares = SparePool(limit: sparesMax)

    /// The allocator to set as an accepted channel's `ChannelOptions.allocator`.
    public static let allocator = ByteBufferAllocator(
        allocate: { size in ConnectionAllocator.allocate(Int(size)) },
        reallocate: { pointer, oldSize, newSize in
            ConnectionAllocator.reallocate(pointer, oldSize: Int(oldSize), newSize: Int(newSize))
        },
        deallocate: { pointer in ConnectionAllocator.deallocate(pointer) },
        copy: { destination, source, count in destination.copyMemory(from: source, byteCount: Int(count)) })

    /// The pages a block of `size` bytes maps, header included.
    static func length(forMapping size: Int) -> Int {
        (size + header + page - 1) / page * page
    }

    /// How many spares are kept now.
    static var spareCount: Int { spares.count }

    /// Gives the spares' pages back to the system if no spare was taken since the last call (the mappings stay, and
    /// fill again on use); returns how many spares were emptied. corkd calls it with each memory trim.
    @discardableResult
    public static func releaseIdleSpares() -> Int {
        spares.releaseIfUnused { block in _ = madvise(block, spareLength, Int32(MADV_DONTNEED)) }
    }

    static func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        if size >= mappedFrom {
            let length = length(forMapping: size)
            if length == spareLength, let block = spares.take() {
                // Its pages may have been given back (`releaseIdleSpares`): the header is written again.
                block.storeBytes(of: UInt64(length), as: UInt64.self)
                return block + header
            }
            let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            if let mapped, mapped != MAP_FAILED {
                mapped.storeBytes(of: UInt64(length), as: UInt64.self)
                return mapped + header
            }
            // No mapping to be had: the heap may still have room.
        }
        guard let block = malloc(size + header) else { return nil }
        block.storeBytes(of: 0, as: UInt64.self)
        return block + header
    }

    /// NIO only grows buffers through this (`oldSize` is the block's capacity); a smaller `newSize` is handled too.
    static func reallocate(_ pointer: UnsafeMutableRawPointer?, oldSize: Int, newSize: Int) -> UnsafeMutableRawPointer? {
        guard let pointer else { return allocate(newSize) }
        let block = pointer - header
        let mapped = Int(block.load(as: UInt64.self))
        if mapped == 0 && newSize < mappedFrom {
            guard let moved = realloc(block, newSize + header) else { return nil }
            return moved + header
        }
        // Still large and within its pages: it stays. (Shrunk below the threshold, it moves to the heap and its
        // pages go back.)
        if mapped != 0 && newSize >= mappedFrom && newSize + header <= mapped { return pointer }
        guard let fresh = allocate(newSize) else { return nil }
        fresh.copyMemory(from: pointer, byteCount: min(oldSize, newSize))
        deallocate(pointer)
        return fresh
    }

    static func deallocate(_ pointer: UnsafeMutableRawPointer) {
        let block = pointer - header
        let mapped = Int(block.load(as: UInt64.self))
        if mapped == 0 {
            free(block)
            return
        }
        if mapped == spareLength, spares.keep(block) { return }
        munmap(block, mapped)
    }
}

/// Freed blocks kept for the next allocation of their size, at most `limit` of them (last in, first out).
final class SparePool: Sendable {
    /// How many blocks are kept at most.
    let limit: Int
    private let state = Mutex(State())

    private struct State {
        var addresses: [UInt] = []
        /// Whether a block was taken since the last `releaseIfUnused`.
        var taken = false
    }

    init(limit: Int) {
        self.limit = limit
    }

    /// How many blocks are kept now.
    var count: Int { state.withLock { $0.addresses.count } }

    /// A kept block, or nil when none is.
    func take() -> UnsafeMutableRawPointer? {
        state.withLock { state in
            guard let address = state.addresses.popLast() else { return nil }
            state.taken = true
            return UnsafeMutableRawPointer(bitPattern: address)
        }
    }

    /// Keeps `block` unless `limit` are kept already; false means the caller must free it.
    func keep(_ block: UnsafeMutableRawPointer) -> Bool {
        state.withLock { state in
            guard state.addresses.count < limit else { return false }
            state.addresses.append(UInt(bitPattern: block))
            return true
        }
    }

    /// Calls `release` on every kept block (which stays kept) if none was taken since the last call; returns how
    /// many it was called on. `release` runs under the pool's lock: a block released outside it could be taken
    /// meanwhile, and its new owner's bytes (its header among them) would then be given back to the system.
    func releaseIfUnused(_ release: (UnsafeMutableRawPointer) -> Void) -> Int {
        state.withLock { state in
            defer { state.taken = false }
            guard !state.taken else { return 0 }
            for address in state.addresses { UnsafeMutableRawPointer(bitPattern: address).map(release) }
            return state.addresses.count
        }
    }
}
