#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@_spi(CustomByteBufferAllocator) import NIOCore

/// The byte-buffer allocator of every accepted connection: blocks of 16 KiB and more get pages of their own
/// (`mmap`), smaller ones come from `malloc` as usual.
///
/// Why: each TLS connection holds two large buffers for as long as it is open, NIOSSL's plaintext read buffer
/// (32 KiB) and its ciphertext write buffer (16 KiB), and an idle connection writes only the first few KiB of
/// either. From the heap those blocks cost their first and last pages and more once the heap is reused, and after
/// the connections close they leave holes that the few long-lived blocks around them keep resident. With pages of
/// their own only the pages written are resident, and closing gives them straight back to the system. Process-wide
/// (glibc's `M_MMAP_THRESHOLD`) this made every large allocation of the process a system call and unsettled a busy
/// test process; here it applies only to the buffers of the connections' channels, which allocate large blocks
/// once per connection (and, under load, when NIOSSL's read buffer is still shared with lines not yet handled).
///
/// Every block starts with a 16-byte header (the mapping's length, or 0 for `malloc`), so a block is freed the way
/// it was allocated; 16 bytes keep the alignment `malloc` gives.
public enum ConnectionAllocator {
    /// Blocks this large or larger are mapped.
    static let mappedFrom = 16 * 1024
    static let header = 16
    static let page = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))

    /// The allocator to set as an accepted channel's `ChannelOptions.allocator`.
    public static let allocator = ByteBufferAllocator(
        allocate: { size in ConnectionAllocator.allocate(Int(size)) },
        reallocate: { pointer, oldSize, newSize in
            ConnectionAllocator.reallocate(pointer, oldSize: Int(oldSize), newSize: Int(newSize))
        },
        deallocate: { pointer in ConnectionAllocator.deallocate(pointer) },
        copy: { destination, source, count in destination.copyMemory(from: source, byteCount: Int(count)) })

    static func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        if size >= mappedFrom {
            let length = (size + header + page - 1) / page * page
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
        } else {
            munmap(block, mapped)
        }
    }
}
