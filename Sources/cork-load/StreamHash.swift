/// A running 64-bit hash of the exact delta lines a subscriber received, in order.
///
/// The server encodes each delta once and writes the same bytes to every subscriber (Protocol.md, `delta`), so two
/// subscribers that started at the same seq and ended at the same seq must hold equal hashes; that is how the
/// replicas that are not replayed in full are compared with the one that is (see `Convergence`). It reads eight
/// bytes at a time (a multiply–rotate mix per word), so a 400-byte delta costs some 50 multiplications, not a
/// cryptographic hash.
struct StreamHash: Sendable, Equatable {
    private(set) var value: UInt64 = 0x9E37_79B9_7F4A_7C15
    private(set) var lines = 0

    /// Adds one line's bytes.
    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var h = value ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            h = Self.mix(h, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        value = Self.mix(h, tail ^ 0xFF)
        lines += 1
    }

    private static func mix(_ h: UInt64, _ word: UInt64) -> UInt64 {
        let m = (h ^ word) &* 0xFF51_AFD7_ED55_8CCD
        return (m << 27 | m >> 37) &* 0xC4CE_B9FE_1A85_EC53
    }
}
