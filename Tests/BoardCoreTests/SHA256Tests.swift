import PropertyBased
import Testing

@testable import BoardCore

/// The hex digest of `text`'s UTF-8, hashed in one call.
private func hexDigest(_ text: String) -> String {
    SHA256.hex(SHA256.hash(Array(text.utf8)))
}

/// `count` bytes `0, 1, 2, …` modulo 251 (a prime, so the pattern does not line up with 64-byte blocks).
private func pattern(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8($0 % 251) }
}

@Suite struct SHA256Tests {
    // MARK: FIPS 180 / NIST vectors

    @Test func emptyMessage() {
        #expect(hexDigest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func abc() {
        #expect(hexDigest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func twoBlockMessage448Bits() {
        #expect(
            hexDigest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func message896Bits() {
        let message = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
            + "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
        #expect(hexDigest(message) == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test func oneMillionAsStreamedInUnevenChunks() {
        let chunkSizes = [1, 7, 63, 64, 65, 1000, 3, 4096, 127, 0, 200]
        let a = [UInt8](repeating: UInt8(ascii: "a"), count: 5000)
        var sha = SHA256()
        var fed = 0
        var turn = 0
        while fed < 1_000_000 {
            let size = min(chunkSizes[turn % chunkSizes.count], 1_000_000 - fed)
            if turn % 3 == 0 {
                sha.update(a[0..<size])  // generic Sequence path (contiguous slice)
            } else {
                sha.update(Array(a[0..<size]))
            }
            fed += size
            turn += 1
        }
        #expect(SHA256.hex(sha.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    // MARK: Cross-checked against Python's hashlib

    /// Lengths around the padding edges (55/56 bytes fit one length field or not; 64 is a whole block).
    @Test(arguments: [
        (55, "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59"),
        (56, "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562"),
        (63, "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488"),
        (64, "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108"),
        (65, "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781"),
        (119, "da18797ed7c3a777f0847f429724a2d8cd5138e6ed2895c3fa1a6d39d18f7ec6"),
        (120, "f52b23db1fbb6ded89ef42a23ce0c8922c45f25c50b568a93bf1c075420bbb7c"),
        (127, "92ca0fa6651ee2f97b884b7246a562fa71250fedefe5ebf270d31c546bfea976"),
        (128, "471fb943aa23c511f6f72f8d1652d9c880cfa392ad80503120547703e56a2be5"),
        (1000, "4e4c294b331f7a2099a379bec34b9f9fc03dc46ab465d998f4d683da53487e6d"),
    ])
    func paddingBoundaries(count: Int, expected: String) {
        #expect(SHA256.hex(SHA256.hash(pattern(count))) == expected)
    }

    @Test func everyUpdateOverloadGivesTheSameDigest() {
        let text = "héllo 👋 wörld"
        let expected = "2425e4079dae0563e7e33ffb32fb025890531aa37c7009fc01ec2f7839f236ba"
        let bytes = Array(text.utf8)

        var viaUTF8 = SHA256()
        viaUTF8.update(text.utf8)
        var viaArray = SHA256()
        viaArray.update(bytes)
        var viaRaw = SHA256()
        bytes.withUnsafeBytes { viaRaw.update($0) }
        var viaNonContiguous = SHA256()
        viaNonContiguous.update(bytes.lazy.map { $0 })  // no contiguous storage: the byte-by-byte path
        var viaSubstring = SHA256()
        viaSubstring.update(("xx" + text).dropFirst(2).utf8)

        #expect(SHA256.hex(viaUTF8.finalize()) == expected)
        #expect(SHA256.hex(viaArray.finalize()) == expected)
        #expect(SHA256.hex(viaRaw.finalize()) == expected)
        #expect(SHA256.hex(viaNonContiguous.finalize()) == expected)
        #expect(SHA256.hex(viaSubstring.finalize()) == expected)
    }

    // MARK: Streaming

    @Test func splitUpdatesMatchOneShot() async {
        let input = zip(
            Gen.uint8(in: 0...255).array(of: 0...300),
            Gen.int(in: 0...300).array(of: 0...8),
            Gen.int(in: 0...2).array(of: 9)
        )
        await propertyCheck(count: 200, input: input) { bytes, cuts, paths in
            let points = ([0, bytes.count] + cuts.map { min($0, bytes.count) }).sorted()
            var sha = SHA256()
            for (i, (start, end)) in zip(points, points.dropFirst()).enumerated() {
                let piece = bytes[start..<end]
                switch paths[i % paths.count] {
                case 0: sha.update(Array(piece))
                case 1: sha.update(piece.lazy.map { $0 })
                default: Array(piece).withUnsafeBytes { sha.update($0) }
                }
            }
            #expect(sha.finalize() == SHA256.hash(bytes))
        }
    }

    @Test func oneByteAtATimeMatchesOneShot() {
        let bytes = pattern(1000)
        var sha = SHA256()
        for byte in bytes { sha.update([byte]) }
        #expect(SHA256.hex(sha.finalize()) == "4e4c294b331f7a2099a379bec34b9f9fc03dc46ab465d998f4d683da53487e6d")
    }

    @Test func finalizeResetsTheHasher() {
        var sha = SHA256()
        sha.update(pattern(100))
        _ = sha.finalize()
        sha.update("abc".utf8)
        #expect(SHA256.hex(sha.finalize()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func copiesAreIndependent() {
        var original = SHA256()
        original.update(pattern(30))  // a partial block is pending in both copies
        var copy = original
        copy.update(pattern(1000))
        original.update(pattern(128).dropFirst(30))
        #expect(SHA256.hex(original.finalize()) == "471fb943aa23c511f6f72f8d1652d9c880cfa392ad80503120547703e56a2be5")
        #expect(copy.finalize() == SHA256.hash(pattern(30) + pattern(1000)))
    }

    @Test func hexIsLowercaseWithTwoDigitsPerByte() {
        #expect(SHA256.hex([0x00, 0x0F, 0xAB, 0xFF, 0x10]) == "000fabff10")
        #expect(SHA256.hex([]) == "")
        #expect(SHA256.hash([]).count == SHA256.digestByteCount)
    }
}
