import Foundation
import PropertyBased
import Testing

@testable import BoardCore

/// The 62 rank digits in byte order, used to build ranks independently of `Rank`'s internals.
private let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

/// Generates valid ranks: 1...12 random base-62 digits with trailing zeros dropped.
private let validRank = Gen.int(in: 0...61).array(of: 1...12).compactMap { values -> Rank? in
    var chars = values.map { alphabet[$0] }
    while chars.last == "0" { chars.removeLast() }
    return chars.isEmpty ? nil : Rank(String(chars))
}

/// Parses a rank that the test expects to be valid, recording a failure otherwise.
private func rank(_ raw: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Rank {
    try #require(Rank(raw), "\(raw) should be a valid rank", sourceLocation: sourceLocation)
}

/// Digit value of each ASCII byte in the rank alphabet, or -1 for bytes outside it.
private let digitTable: [Int] = (0..<128).map { byte in
    alphabet.firstIndex(of: Character(Unicode.Scalar(UInt8(byte)))) ?? -1
}

/// Asserts that `rank` is valid and strictly inside `(lower, upper)`, with `nil` meaning unbounded.
private func expectStrictlyBetween(
    _ rank: Rank, _ lower: Rank?, _ upper: Rank?, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(Rank(rank.rawValue) == rank, "\(rank) is not a valid rank", sourceLocation: sourceLocation)
    if let lower {
        #expect(lower < rank, "\(rank) is not above \(lower)", sourceLocation: sourceLocation)
    }
    if let upper {
        #expect(rank < upper, "\(rank) is not below \(upper)", sourceLocation: sourceLocation)
    }
}

@Suite struct RankTests {
    // MARK: Validation

    @Test func acceptsValidRanks() {
        for raw in ["V", "1", "z", "0001", "Az09b", String(repeating: "z", count: Rank.maxLength)] {
            #expect(Rank(raw)?.rawValue == raw, "\(raw) should be valid")
        }
    }

    @Test(arguments: [
        "", "abc!", "V0", "0", "000", "a b", "-1", "V_", "é", "Ｖ", "V\u{301}", "\u{0}",
        String(repeating: "z", count: Rank.maxLength + 1),
    ])
    func rejectsInvalidRanks(raw: String) {
        #expect(Rank(raw) == nil)
    }

    @Test func propertyRandomStringsValidIffRulesHold() async {
        await propertyCheck(count: 500, input: Gen.letterOrNumber.string(of: 0...70)) { raw in
            let expected = !raw.isEmpty && raw.count <= Rank.maxLength && !raw.hasSuffix("0")
                && raw.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            #expect((Rank(raw) != nil) == expected, "\(raw)")
        }
    }

    // MARK: Ordering

    @Test func byteWiseOrderingDiffersFromNaiveExpectations() throws {
        let upperZ = try rank("Z")
        let lowerA = try rank("a")
        let nine = try rank("9")
        let upperA = try rank("A")
        #expect(upperZ < lowerA)  // 'Z' is 0x5A, 'a' is 0x61.
        #expect(!(lowerA < upperZ))
        #expect(nine < upperA)  // '9' is 0x39, 'A' is 0x41.
        #expect(try rank("zz") > lowerA)
        #expect(try rank("V") < rank("V1"))
        // A case-insensitive or locale-aware collation would put "a" before "B".
        #expect(try rank("B") < lowerA)
        let sorted = ["b", "a", "B", "A", "1", "z", "Z", "9"].compactMap { Rank($0) }.sorted()
        #expect(sorted.map(\.rawValue) == ["1", "9", "A", "B", "Z", "a", "b", "z"])
    }

    @Test func propertyOrderMatchesUTF8Bytes() async {
        await propertyCheck(count: 500, input: validRank, validRank) { a, b in
            #expect((a < b) == Array(a.rawValue.utf8).lexicographicallyPrecedes(Array(b.rawValue.utf8)))
            #expect((a == b) == (a.rawValue == b.rawValue))
        }
    }

    // MARK: Codable

    @Test func codableRoundTripsAsSingleString() throws {
        let ranks = try ["V", "0001", "Zz9"].map { try rank($0) }
        let data = try JSONEncoder().encode(ranks)
        #expect(String(decoding: data, as: UTF8.self) == #"["V","0001","Zz9"]"#)
        let decoded = try JSONDecoder().decode([Rank].self, from: data)
        #expect(decoded == ranks)
    }

    @Test(arguments: [#""""#, #""V0""#, #""abc!""#, #""é""#, "12", "null", #"{"rawValue":"V"}"#])
    func decodingRejectsInvalidRanks(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Rank.self, from: Data(json.utf8))
        }
    }

    @Test func decodingInvalidRankIsDataCorrupted() {
        do {
            _ = try JSONDecoder().decode(Rank.self, from: Data(#""V0""#.utf8))
            Issue.record("decoding \"V0\" should fail")
        } catch DecodingError.dataCorrupted {
            // Expected.
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func descriptionIsRawValue() throws {
        let parsed = try rank("Ab3")
        #expect(parsed.description == "Ab3")
        #expect("\(parsed)" == "Ab3")
    }

    // MARK: between

    @Test func betweenProducesShortKeys() throws {
        let v = try rank("V")
        #expect(Rank.between(nil, nil)?.rawValue == "V")
        #expect(Rank.between(v, nil)?.rawValue.count == 1)
        #expect(Rank.between(nil, v)?.rawValue.count == 1)
        #expect(Rank.between(try rank("1"), try rank("z"))?.rawValue.count == 1)
        // Adjacent one-character keys need exactly one more character.
        #expect(Rank.between(v, try rank("W"))?.rawValue.count == 2)
        // Nothing fits between "z" and +infinity in one character, nor below "1".
        #expect(Rank.between(try rank("z"), nil)?.rawValue.count == 2)
        #expect(Rank.between(nil, try rank("1"))?.rawValue.count == 2)
    }

    @Test func betweenRejectsEmptyOrReversedIntervals() throws {
        let a = try rank("a")
        let b = try rank("b")
        #expect(Rank.between(a, a) == nil)
        #expect(Rank.between(b, a) == nil)
        #expect(Rank.between(b, try rank("V")) == nil)
        #expect(Rank.between(a, b) != nil)
    }

    @Test func betweenHandlesTightGaps() throws {
        let cases: [(String, String)] = [
            ("V", "V1"), ("V", "V0001"), ("V0001", "V0002"), ("y", "z"), ("yz", "z"),
            ("zzz", "zzzz"), ("1", "11"), ("0001", "1"), ("9", "A"), ("Z", "a"), ("Vz", "W1"),
        ]
        for (low, high) in cases {
            let lower = try rank(low)
            let upper = try rank(high)
            let mid = try #require(Rank.between(lower, upper), "\(low)..\(high)")
            expectStrictlyBetween(mid, lower, upper)
        }
    }

    @Test func betweenReturnsNilInsteadOfExceedingMaxLength() throws {
        let lower = try rank(String(repeating: "V", count: Rank.maxLength))
        let upper = try rank(String(repeating: "V", count: Rank.maxLength - 1) + "W")
        #expect(Rank.between(lower, upper) == nil)
        let top = try rank(String(repeating: "z", count: Rank.maxLength))
        #expect(Rank.between(top, nil) == nil)
        let bottom = try rank(String(repeating: "0", count: Rank.maxLength - 1) + "1")
        #expect(Rank.between(nil, bottom) == nil)
        // One character shorter still leaves room.
        let almostTop = try rank(String(repeating: "z", count: Rank.maxLength - 1))
        #expect(Rank.between(almostTop, nil)?.rawValue.count == Rank.maxLength)
    }

    @Test func propertyBetweenTwoRanksIsStrictlyBetween() async {
        await propertyCheck(count: 500, input: validRank, validRank) { a, b in
            guard a != b else {
                #expect(Rank.between(a, b) == nil)
                return
            }
            let (lower, upper) = a < b ? (a, b) : (b, a)
            #expect(Rank.between(upper, lower) == nil)
            guard let mid = Rank.between(lower, upper) else {
                Issue.record("no rank between \(lower) and \(upper)")
                return
            }
            expectStrictlyBetween(mid, lower, upper)
            // Short inputs (≤ 12 chars) always leave room within one extra character.
            #expect(mid.rawValue.count <= max(lower.rawValue.count, upper.rawValue.count) + 1)
        }
    }

    @Test func propertyBetweenWithOpenBoundsIsStrictlyOutside() async {
        await propertyCheck(count: 500, input: validRank) { rank in
            let after = Rank.between(rank, nil)
            let before = Rank.between(nil, rank)
            #expect(after != nil && before != nil)
            if let after { expectStrictlyBetween(after, rank, nil) }
            if let before { expectStrictlyBetween(before, nil, rank) }
        }
    }

    // MARK: Repeated insertion

    @Test func repeatedAppendingStaysOrderedAndGrowsSlowly() throws {
        var keys = [try #require(Rank.between(nil, nil))]
        for _ in 0..<1000 {
            let last = try #require(keys.last)
            let next = try #require(Rank.between(last, nil))
            expectStrictlyBetween(next, last, nil)
            keys.append(next)
        }
        // Step-by-one appends: 61 appends per extra character, so 1000 appends stay short.
        let longest = keys.map(\.rawValue.count).max() ?? 0
        #expect(longest <= 18, "1000 appends grew keys to \(longest) characters")
        #expect(keys.prefix(31).allSatisfy { $0.rawValue.count == 1 })
        #expect(Set(keys).count == keys.count)
    }

    @Test func repeatedPrependingStaysOrderedAndGrowsSlowly() throws {
        var keys = [try #require(Rank.between(nil, nil))]
        for _ in 0..<1000 {
            let first = try #require(keys.first)
            let next = try #require(Rank.between(nil, first))
            expectStrictlyBetween(next, nil, first)
            keys.insert(next, at: 0)
        }
        let longest = keys.map(\.rawValue.count).max() ?? 0
        #expect(longest <= 18, "1000 prepends grew keys to \(longest) characters")
        #expect(keys == keys.sorted())
        #expect(Set(keys).count == keys.count)
    }

    @Test func repeatedInsertionBetweenSameNeighboursNeverYieldsInvalidKey() throws {
        // Always insert directly after `lower`, i.e. between `lower` and the newest key.
        let lower = try rank("V")
        let upper = try rank("W")
        var newest = upper
        var produced = 0
        var exhausted = false
        for _ in 0..<1000 {
            guard let next = Rank.between(lower, newest) else {
                exhausted = true
                break
            }
            expectStrictlyBetween(next, lower, newest)
            #expect(next.rawValue.count <= Rank.maxLength)
            newest = next
            produced += 1
        }
        // Halving a gap gains under 6 bits per step; 64 base-62 digits hold ~381 bits, so 1000
        // halvings cannot fit and `between` must eventually report exhaustion with `nil`.
        #expect(exhausted)
        #expect(produced >= 300, "only \(produced) insertions before exhaustion")
        #expect(Rank.between(lower, newest) == nil)
    }

    @Test func repeatedInsertionBeforeSameUpperNeighbour() throws {
        // Always insert directly before `upper`, i.e. between the newest key and `upper`.
        let upper = try rank("W")
        var newest = try rank("V")
        var produced = 0
        for _ in 0..<1000 {
            guard let next = Rank.between(newest, upper) else { break }
            expectStrictlyBetween(next, newest, upper)
            newest = next
            produced += 1
        }
        #expect(produced >= 300 && produced < 1000, "\(produced) insertions before exhaustion")
    }

    @Test func propertyRandomInsertionsKeepColumnSorted() async {
        let positions = Gen.int(in: 0...1000).array(of: 1...200)
        await propertyCheck(count: 50, input: positions) { picks in
            var column: [Rank] = []
            for pick in picks {
                let index = pick % (column.count + 1)
                let lower = index > 0 ? column[index - 1] : nil
                let upper = index < column.count ? column[index] : nil
                guard let rank = Rank.between(lower, upper) else {
                    Issue.record("between(\(String(describing: lower)), \(String(describing: upper))) failed")
                    return
                }
                expectStrictlyBetween(rank, lower, upper)
                column.insert(rank, at: index)
            }
            #expect(column == column.sorted())
            #expect(Set(column).count == column.count)
        }
    }

    // MARK: evenlySpaced

    @Test func evenlySpacedSmallCounts() {
        #expect(Rank.evenlySpaced(count: 0).isEmpty)
        #expect(Rank.evenlySpaced(count: -3).isEmpty)
        #expect(Rank.evenlySpaced(count: 1).map(\.rawValue) == ["V"])
        #expect(Rank.evenlySpaced(count: 61).map(\.rawValue) == alphabet.dropFirst().map { String($0) })
        #expect(Rank.evenlySpaced(count: 62).map(\.rawValue.count).max() == 2)
    }

    /// Checks every `count` in 0...5000, split into chunks that Swift Testing runs in parallel.
    @Test(arguments: Array(stride(from: 0, through: 5000, by: 250)))
    func evenlySpacedIsIncreasingValidMinimalAndEven(chunkStart: Int) {
        for count in chunkStart...min(chunkStart + 249, 5000) {
            let ranks = Rank.evenlySpaced(count: count)
            if ranks.count != count { Issue.record("count \(count) produced \(ranks.count) ranks") }
            // Minimal width: only 62^w - 1 valid ranks have at most w characters.
            let width = count == 0 ? 0 : count <= 61 ? 1 : count <= 3843 ? 2 : 3
            let space = [1, 62, 3844, 238_328][width]
            var previousValue = 0
            var previous: Rank?
            var longest = 0
            var minGap = Int.max
            var maxGap = 0
            let table = digitTable
            // The numeric check covers every count; `Rank.<` (slow in debug builds) is also checked
            // on small counts, every 25th count, and around the 2-to-3-character boundary.
            let checkOperator = count <= 200 || count % 25 == 0 || (3830...3860).contains(count)
            for rank in ranks {
                let bytes = rank.rawValue.utf8
                longest = max(longest, bytes.count)
                // Independent validity check and numeric value scaled to `width` digits.
                var value = 0
                var valid = !bytes.isEmpty && bytes.last != UInt8(ascii: "0") && bytes.count <= width
                for byte in bytes {
                    let digit = byte < 0x80 ? table[Int(byte)] : -1
                    if digit < 0 { valid = false }
                    value = value * 62 + max(digit, 0)
                }
                for _ in bytes.count..<max(width, bytes.count) { value *= 62 }
                if !valid { Issue.record("invalid rank \(rank) for count \(count)") }
                if let previous, value <= previousValue || (checkOperator && !(previous < rank)) {
                    Issue.record("\(previous) then \(rank): not increasing for count \(count)")
                }
                let gap = value - previousValue
                minGap = min(minGap, gap)
                maxGap = max(maxGap, gap)
                previous = rank
                previousValue = value
            }
            if longest != width { Issue.record("count \(count): longest rank \(longest), expected \(width)") }
            // Even spread: gaps, including to both ends of the key space, differ by at most one.
            if count > 0 {
                let lastGap = space - previousValue
                minGap = min(minGap, lastGap)
                maxGap = max(maxGap, lastGap)
                if maxGap - minGap > 1 { Issue.record("count \(count): uneven gaps \(minGap)...\(maxGap)") }
            }
        }
    }

    @Test func evenlySpacedLeavesRoomForBetween() throws {
        let ranks = Rank.evenlySpaced(count: 100)
        for (a, b) in zip(ranks, ranks.dropFirst()) {
            let mid = try #require(Rank.between(a, b))
            expectStrictlyBetween(mid, a, b)
            #expect(mid.rawValue.count <= 3)
        }
    }

    @Test func constants() {
        #expect(Rank.maxLength == 64)
        #expect(Rank.rekeyThreshold == 24)
        #expect(Rank.rekeyThreshold < Rank.maxLength)
    }
}
