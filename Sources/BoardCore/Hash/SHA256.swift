/// A streaming SHA-256 digest (FIPS 180-4), in pure Swift.
///
/// BoardCore may not depend on swift-crypto, so the board hash carries its own digest. Feed bytes with `update`
/// in pieces of any size, then call `finalize()` once for the 32-byte digest:
///
/// ```swift
/// var sha = SHA256()
/// sha.update("abc".utf8)
/// SHA256.hex(sha.finalize())  // "ba7816bf…f20015ad"
/// ```
///
/// It is meant for checksums and convergence checks, not for secrets: it makes no attempt at constant time.
public struct SHA256: Sendable {
    /// The size of a digest, in bytes.
    public static let digestByteCount = 32

    /// The size of the blocks the compression function consumes, in bytes.
    public static let blockByteCount = 64

    /// The eight working hash words H0…H7.
    private var h0: UInt32 = 0x6a09_e667
    private var h1: UInt32 = 0xbb67_ae85
    private var h2: UInt32 = 0x3c6e_f372
    private var h3: UInt32 = 0xa54f_f53a
    private var h4: UInt32 = 0x510e_527f
    private var h5: UInt32 = 0x9b05_688c
    private var h6: UInt32 = 0x1f83_d9ab
    private var h7: UInt32 = 0x5be0_cd19

    /// Bytes of an incomplete block, waiting for more input; only the first `pendingCount` are meaningful.
    private var pending = [UInt8](repeating: 0, count: SHA256.blockByteCount)
    /// How many bytes of `pending` are filled, 0..<64.
    private var pendingCount = 0
    /// How many message bytes have been fed in so far.
    private var messageByteCount: UInt64 = 0

    /// Makes a hasher in its initial state.
    public init() {}

    // MARK: Feeding bytes

    /// Feeds the bytes of `bytes`, in order; takes the fast path when the sequence has contiguous storage.
    public mutating func update<D: Sequence>(_ bytes: D) where D.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        guard done == nil else { return }
        for byte in bytes {
            pending[pendingCount] = byte
            pendingCount += 1
            messageByteCount &+= 1
            if pendingCount == SHA256.blockByteCount { compressPending() }
        }
    }

    /// Feeds a byte array.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Feeds the UTF-8 bytes of a string view (contiguous for native strings; bridged ones are copied once).
    public mutating func update(_ utf8: String.UTF8View) {
        let done: Void? = utf8.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        guard done == nil else { return }
        var copy = String(decoding: utf8, as: UTF8.self)
        copy.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// Feeds raw bytes: the fast path the other overloads end in.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress, !bytes.isEmpty else { return }
        var remaining = bytes.count
        messageByteCount &+= UInt64(remaining)

        // Top up a partly filled block first.
        if pendingCount > 0 {
            let take = min(remaining, SHA256.blockByteCount - pendingCount)
            let start = pendingCount
            pending.withUnsafeMutableBytes { dest in
                dest.baseAddress!.advanced(by: start).copyMemory(from: base, byteCount: take)
            }
            pendingCount += take
            base += take
            remaining -= take
            guard pendingCount == SHA256.blockByteCount else { return }
            compressPending()
        }

        // Whole blocks straight from the caller's memory.
        while remaining >= SHA256.blockByteCount {
            compress(UnsafeRawPointer(base))
            base += SHA256.blockByteCount
            remaining -= SHA256.blockByteCount
        }

        // Keep the tail for later.
        if remaining > 0 {
            let tail = UnsafeRawPointer(base)
            pending.withUnsafeMutableBytes { dest in
                dest.baseAddress!.copyMemory(from: tail, byteCount: remaining)
            }
            pendingCount = remaining
        }
    }

    // MARK: Finishing

    /// Pads the message, returns its 32-byte digest, and resets the hasher to its initial state.
    public mutating func finalize() -> [UInt8] {
        let bitLength = messageByteCount &* 8
        // 0x80, then zeros up to 56 mod 64, then the 64-bit big-endian bit length.
        var padding = [UInt8](repeating: 0, count: SHA256.blockByteCount * 2)
        padding[0] = 0x80
        let zeroCount = (SHA256.blockByteCount * 2 - 8 - 1 - pendingCount) % SHA256.blockByteCount
        let lengthAt = 1 + zeroCount
        for i in 0..<8 {
            padding[lengthAt + i] = UInt8(truncatingIfNeeded: bitLength >> (56 - 8 * UInt64(i)))
        }
        padding.withUnsafeBytes { update(UnsafeRawBufferPointer(rebasing: $0[0..<(lengthAt + 8)])) }
        precondition(pendingCount == 0, "SHA-256 padding must end on a block boundary")

        var digest = [UInt8]()
        digest.reserveCapacity(SHA256.digestByteCount)
        for word in [h0, h1, h2, h3, h4, h5, h6, h7] {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        self = SHA256()
        return digest
    }

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var sha = SHA256()
        sha.update(bytes)
        return sha.finalize()
    }

    /// `digest` (or any bytes) as lowercase hexadecimal, two digits per byte.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(digest.count * 2)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Compression

    /// Compresses the full `pending` block and empties it.
    private mutating func compressPending() {
        // Move the block out of `self`: `compress` mutates `self`, which must not overlap a read of `pending`.
        let block = pending
        pending = []
        block.withUnsafeBytes { compress($0.baseAddress!) }
        pending = block
        pendingCount = 0
    }

    /// Runs the compression function on the 64 bytes at `block`, updating H0…H7.
    private mutating func compress(_ block: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for t in 0..<16 {
                w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))
            }
            for t in 16..<64 {
                let x = w[t - 15]
                let y = w[t - 2]
                let s0 = x.rotatedRight(7) ^ x.rotatedRight(18) ^ (x >> 3)
                let s1 = y.rotatedRight(17) ^ y.rotatedRight(19) ^ (y >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }

            var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
            SHA256.roundConstants.withUnsafeBufferPointer { k in
                for t in 0..<64 {
                    let bigS1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choose = (e & f) ^ (~e & g)
                    let t1 = h &+ bigS1 &+ choose &+ k[t] &+ w[t]
                    let bigS0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = bigS0 &+ majority
                    h = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ t2
                }
            }
            h0 &+= a
            h1 &+= b
            h2 &+= c
            h3 &+= d
            h4 &+= e
            h5 &+= f
            h6 &+= g
            h7 &+= h
        }
    }

    /// The 64 round constants K: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

extension UInt32 {
    /// The bits rotated right by `count` (0 < count < 32).
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self >> count) | (self << (32 &- count))
    }
}
