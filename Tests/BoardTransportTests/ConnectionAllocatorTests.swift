import Foundation
@testable import BoardTransport
import NIOCore
import NIOConcurrencyHelpers
import Testing

/// The accepted connections' allocator: large blocks mapped, small ones from malloc, contents kept across every
/// reallocation between the two.
@Suite("ConnectionAllocator")
struct ConnectionAllocatorTests {
    static func fill(_ pointer: UnsafeMutableRawPointer, _ count: Int, seed: UInt8) {
        for i in 0..<count { pointer.storeBytes(of: UInt8(truncatingIfNeeded: i &* 31 &+ Int(seed)), toByteOffset: i, as: UInt8.self) }
    }

    static func matches(_ pointer: UnsafeMutableRawPointer, _ count: Int, seed: UInt8) -> Bool {
        (0..<count).allSatisfy { pointer.load(fromByteOffset: $0, as: UInt8.self) == UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    static func mappedLength(_ pointer: UnsafeMutableRawPointer) -> Int {
        Int((pointer - ConnectionAllocator.header).load(as: UInt64.self))
    }

    @Test("a block of 16 KiB or more has pages of its own, a smaller one comes from malloc")
    func largeBlocksAreMapped() throws {
        let page = ConnectionAllocator.page
        let large = try #require(ConnectionAllocator.allocate(2 * 16_384))
        let small = try #require(ConnectionAllocator.allocate(512))
        defer {
            ConnectionAllocator.deallocate(large)
            ConnectionAllocator.deallocate(small)
        }
        #expect(Int(bitPattern: large - ConnectionAllocator.header) % page == 0)
        #expect(Self.mappedLength(large) == (2 * 16_384 + ConnectionAllocator.header + page - 1) / page * page)
        #expect(Self.mappedLength(small) == 0)
        Self.fill(large, 2 * 16_384, seed: 1)
        Self.fill(small, 512, seed: 2)
        #expect(Self.matches(large, 2 * 16_384, seed: 1))
        #expect(Self.matches(small, 512, seed: 2))
    }

    @Test("reallocation keeps the contents from malloc to a mapping, to a larger mapping, within it and back")
    func reallocationKeepsTheBytes() throws {
        var block = try #require(ConnectionAllocator.allocate(1_000))
        Self.fill(block, 1_000, seed: 7)
        block = try #require(ConnectionAllocator.reallocate(block, oldSize: 1_000, newSize: 3_000))
        #expect(Self.mappedLength(block) == 0)
        #expect(Self.matches(block, 1_000, seed: 7))
        Self.fill(block, 3_000, seed: 8)
        block = try #require(ConnectionAllocator.reallocate(block, oldSize: 3_000, newSize: 20_000))
        #expect(Self.mappedLength(block) > 0)
        #expect(Self.matches(block, 3_000, seed: 8))
        Self.fill(block, 20_000, seed: 9)
        block = try #require(ConnectionAllocator.reallocate(block, oldSize: 20_000, newSize: 70_000))
        #expect(Self.matches(block, 20_000, seed: 9))
        Self.fill(block, 70_000, seed: 10)
        // Smaller, but still a mapping's worth: it stays where it is.
        let before = block
        block = try #require(ConnectionAllocator.reallocate(block, oldSize: 70_000, newSize: 40_000))
        #expect(block == before)
        #expect(Self.matches(block, 40_000, seed: 10))
        // Small again: back on the heap.
        block = try #require(ConnectionAllocator.reallocate(block, oldSize: 40_000, newSize: 2_000))
        #expect(Self.mappedLength(block) == 0)
        #expect(Self.matches(block, 2_000, seed: 10))
        ConnectionAllocator.deallocate(block)
    }

    @Test("freed read-buffer blocks go to the spares, never more than the bound, and come back whole")
    func sparesAreBounded() throws {
        let size = 32 * 1_024
        var blocks: [UnsafeMutableRawPointer] = []
        for n in 0..<(ConnectionAllocator.sparesMax + 24) {
            let block = try #require(ConnectionAllocator.allocate(size))
            Self.fill(block, size, seed: UInt8(truncatingIfNeeded: n))
            blocks.append(block)
        }
        for block in blocks { ConnectionAllocator.deallocate(block) }
        // Other tests' servers share the spares (one process): only the bound is certain.
        #expect(ConnectionAllocator.spareCount <= ConnectionAllocator.sparesMax)
        let again = try #require(ConnectionAllocator.allocate(size))
        #expect(Self.mappedLength(again) == ConnectionAllocator.spareLength)
        Self.fill(again, size, seed: 99)
        #expect(Self.matches(again, size, seed: 99))
        ConnectionAllocator.deallocate(again)
    }

    @Test("a spare pool keeps blocks up to its limit, refuses more, and hands back the last kept first")
    func sparePool() throws {
        let pool = SparePool(limit: 3)
        let blocks = (0..<5).map { _ in UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16) }
        defer { for block in blocks { block.deallocate() } }
        #expect(pool.take() == nil)
        #expect(blocks.map { pool.keep($0) } == [true, true, true, false, false])
        #expect(pool.count == 3)
        #expect(pool.take() == blocks[2])
        #expect(pool.take() == blocks[1])
        #expect(pool.count == 1)
        #expect(pool.keep(blocks[4]))
        #expect(pool.take() == blocks[4])
        #expect(pool.take() == blocks[0])
        #expect(pool.take() == nil)
    }

    @Test("a spare pool releases its blocks only after a period in which none was taken")
    func sparePoolReleasesWhenIdle() throws {
        let pool = SparePool(limit: 3)
        let blocks = (0..<2).map { _ in UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16) }
        defer { for block in blocks { block.deallocate() } }
        var released: [UnsafeMutableRawPointer] = []
        for block in blocks { #expect(pool.keep(block)) }
        #expect(pool.releaseIfUnused { released.append($0) } == 2, "nothing taken yet")
        #expect(Set(released) == Set(blocks))
        #expect(pool.count == 2, "released blocks stay kept")
        let taken = try #require(pool.take())
        #expect(pool.keep(taken))
        released = []
        #expect(pool.releaseIfUnused { released.append($0) } == 0, "a block was taken since the last release")
        #expect(released.isEmpty)
        #expect(pool.releaseIfUnused { released.append($0) } == 2, "and none since")
    }

    /// A block is released under the pool's lock: a `take` on another thread while the release runs gets it only
    /// afterwards. (Released outside the lock, a block taken meanwhile had its new owner's header zeroed by
    /// `madvise`, and freeing it later called `free` on a mapping: "free(): invalid pointer".)
    @Test("a spare pool releases its blocks where no one can take them meanwhile")
    func sparePoolReleasesUnderItsLock() throws {
        let pool = SparePool(limit: 1)
        let block = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        defer { block.deallocate() }
        #expect(pool.keep(block))
        let takenDuringRelease = NIOLockedValueBox<Bool?>(nil)
        let releasing = NIOLockedValueBox(false)
        let count = pool.releaseIfUnused { _ in
            releasing.withLockedValue { $0 = true }
            let taker = Thread {
                let got = pool.take() != nil
                // Whether the take returned while the release was still running.
                takenDuringRelease.withLockedValue { $0 = got && releasing.withLockedValue { $0 } }
            }
            taker.start()
            Thread.sleep(forTimeInterval: 0.05)
            #expect(takenDuringRelease.withLockedValue { $0 } == nil, "a take got the block while it was being released")
            releasing.withLockedValue { $0 = false }
        }
        #expect(count == 1)
        for _ in 0..<200 where takenDuringRelease.withLockedValue({ $0 }) == nil { Thread.sleep(forTimeInterval: 0.01) }
        #expect(takenDuringRelease.withLockedValue { $0 } == false, "the take got the block once the release was done")
    }

    @Test("a spare whose pages were given back is handed out whole, with its header")
    func releasedSpareIsUsable() throws {
        let size = 32 * 1_024
        let blocks = try (0..<4).map { _ in try #require(ConnectionAllocator.allocate(size)) }
        for block in blocks { ConnectionAllocator.deallocate(block) }
        // Other tests may take spares meanwhile, so the release may skip this period: call it until it empties them.
        for _ in 0..<3 where ConnectionAllocator.releaseIdleSpares() == 0 {}
        let again = try #require(ConnectionAllocator.allocate(size))
        #expect(Self.mappedLength(again) == ConnectionAllocator.spareLength)
        Self.fill(again, size, seed: 7)
        #expect(Self.matches(again, size, seed: 7))
        ConnectionAllocator.deallocate(again)  // munmap or back to the spares: either needs the header
    }

    @Test("a ByteBuffer on it grows past the mapping threshold and keeps every byte")
    func byteBufferOnIt() {
        var buffer = ConnectionAllocator.allocator.buffer(capacity: 64)
        var expected: [UInt8] = []
        for round in 0..<200 {
            let chunk = (0..<(round * 7 % 1_500 + 1)).map { UInt8(truncatingIfNeeded: $0 &+ round) }
            buffer.writeBytes(chunk)
            expected += chunk
        }
        #expect(buffer.capacity >= ConnectionAllocator.mappedFrom)
        #expect(buffer.readableBytesView.elementsEqual(expected))
        var copy = buffer
        copy.writeString("tail")
        #expect(buffer.readableBytes == expected.count)
        #expect(copy.readableBytes == expected.count + 4)
    }
}

/// What an accepted connection really uses, read on the server side of a live TLS connection.
@Suite("Accepted connections' buffers")
struct AcceptedConnectionBufferTests {
    @Test("an accepted connection starts its receive buffers at 512 bytes and maps its 32 KiB buffers")
    func acceptedConnectionsUseTheConnectionAllocator() async throws {
        let certificate = try TestCertificate()
        let report: ConnectionHandler = { connection in
            let receive = try await connection.channel.getOption(.recvAllocator).get()
            // A 32 KiB buffer, as NIOSSL's plaintext read buffer is, from the channel's own allocator.
            let large = connection.channel.allocator.buffer(capacity: 32 * 1_024)
            let mapped = large.withVeryUnsafeBytes { bytes -> Int in
                guard let base = bytes.baseAddress else { return -1 }
                let block = base - ConnectionAllocator.header
                guard Int(bitPattern: block) % ConnectionAllocator.page == 0 else { return 0 }
                return Int(block.load(as: UInt64.self))
            }
            try await connection.executeThenClose { inbound, outbound in
                for try await _ in inbound {
                    let initial = (receive as? AdaptiveRecvByteBufferAllocator)?.initial ?? -1
                    try await outbound.write(buffer("\(initial) \(mapped)\n"))
                    break
                }
            }
        }
        try await withTestServer(certificate: certificate, handler: report) { port, group in
            let client = try await Transport.connect(
                host: "127.0.0.1", port: port, group: group, tls: ClientTLS(trust: .pinned(certificate.fingerprint)))
            try await client.executeThenClose { inbound, outbound in
                try await outbound.write(buffer("buffers?\n"))
                var lines = inbound.makeAsyncIterator()
                let line = try await lines.next().map(text)
                let expected = (32 * 1_024 + ConnectionAllocator.header + ConnectionAllocator.page - 1)
                    / ConnectionAllocator.page * ConnectionAllocator.page
                #expect(line == "512 \(expected)", "the accepted channel's receive start and 32 KiB block: \(line ?? "nothing")")
            }
        }
    }
}
