import BoardCore
import Foundation
import PropertyBased
import Testing
@testable import BoardWire

/// `LineWriter` writes the same delta lines as the Foundation path (`LineCoder`), as JSON trees, without Foundation.
@Suite struct LineWriterTests {
    static let at = Timestamp(milliseconds: 1_760_000_000_123)

    /// One op of every kind, several kinds twice: once with every optional field set, once with none.
    static let sampleOps: [Op] = {
        let day = Day(year: 2026, month: 2, day: 14)!
        let color = HexColor(red: 0x12, green: 0xab, blue: 0xef)
        return [
            .renameBoard(name: "Roadmap \"2026\""),
            .setRemindHours(hours: 48),
            .setRemindHours(hours: nil),
            .setMember(user: "dan", role: .editor, name: "Dan"),
            .setMember(user: "eve", role: .viewer, name: nil),
            .removeMember(user: "vera"),
            .addColumn(column: "qa", name: "QA", index: 1),
            .addColumn(column: "qa2", name: "QA 2", index: nil),
            .renameColumn(column: "doing", name: "In progress"),
            .moveColumn(column: "done", index: 0),
            .removeColumn(column: "qa"),
            .setWIPLimit(column: "doing", limit: WIPLimit(limit: 3, hard: true)),
            .setWIPLimit(column: "doing", limit: WIPLimit(limit: 5, hard: false)),
            .setWIPLimit(column: "doing", limit: nil),
            .setInProgress(column: "done", on: true),
            .addCard(
                AddCard(
                    card: "n1", column: "doing", placement: Placement(after: "c4"), title: "New", description: "D\nE",
                    due: day, labels: ["bug", "ui"], assignees: ["bob"], milestone: "m1", ref: "GH-1",
                    createdAt: Timestamp(milliseconds: 1_704_067_200_000))),
            .addCard(AddCard(card: "n2", column: nil, placement: .bottom, title: "Bare")),
            .editCard(
                EditCard(
                    card: "c1", title: "T", description: "D", baseSeq: 3, due: .set(day), milestone: .clear,
                    ref: .set("R-1"))),
            .editCard(EditCard(card: "c1", due: .clear, milestone: .set("m2"), ref: .clear)),
            .moveCard(
                card: "c2", column: "doing", placement: Placement(after: "c4", before: "c5", index: 1, rank: Rank("V")!)),
            .moveCard(card: "c2", column: "done", placement: .bottom),
            .moveCard(card: "c2", column: "doing", placement: .top, force: "the demo is \"today\""),
            .addLabel(card: "c2", label: "ui"),
            .removeLabel(card: "c1", label: "bug"),
            .assign(card: "c1", user: "bob"),
            .unassign(card: "c1", user: "alice"),
            .blockCard(card: "c2", by: "c1"),
            .unblockCard(card: "c2", by: "c1"),
            .setRecurrence(card: "c2", recurrence: Recurrence(every: .month, day: 31)),
            .setRecurrence(card: "c2", recurrence: Recurrence(afterDoneDays: 3)),
            .setRecurrence(card: "c2", recurrence: nil),
            .watchCard(card: "c2"),
            .unwatchCard(card: "c2"),
            .closeCard(card: "c1"),
            .reopenCard(card: "c5"),
            .archiveCard(card: "c1"),
            .restoreCard(card: "c6"),
            .purgeCard(card: "c2"),
            .addChecklistItem(card: "c3", item: "i3", text: "Publish", done: true, index: 0),
            .addChecklistItem(card: "c3", item: "i4", text: "Later", done: false, index: nil),
            .editChecklistItem(card: "c3", item: "i1", text: "Draft it", done: true),
            .editChecklistItem(card: "c3", item: "i1", text: nil, done: false),
            .removeChecklistItem(card: "c3", item: "i2"),
            .addComment(card: "c3", comment: "k2", text: "Hi\nthere \u{1F600} \\o/"),
            .editComment(card: "c3", comment: "k1", text: "Edited\t\u{0}\u{1F}\u{7F}\u{2028}"),
            .deleteComment(card: "c3", comment: "k1"),
            .createLabel(label: "perf", name: "Perf", color: color),
            .updateLabel(label: "bug", name: "Defect", color: color),
            .updateLabel(label: "bug", name: nil, color: nil),
            .deleteLabel(label: "docs"),
            .createMilestone(milestone: "m2", title: "v2.0", description: "Next", due: day),
            .createMilestone(milestone: "m3", title: "v3.0", description: nil, due: nil),
            .updateMilestone(milestone: "m1", title: "v1.0 GA", description: "Scope", due: .clear),
            .updateMilestone(milestone: "m1", title: nil, description: nil, due: .set(day)),
            .closeMilestone(milestone: "m1"),
            .reopenMilestone(milestone: "m1"),
            .deleteMilestone(milestone: "m1"),
            .chat(text: "hello \"world\"\r\n"),
        ]
    }()

    /// Strings that stress escaping.
    static let nastyStrings: [String] = [
        "", "plain", "quote \" here", "back\\slash", "line\nbreak", "crlf\r\n", "tab\t", "nul\u{0}", "bell\u{7}",
        "\u{8}\u{C}\u{1B}\u{1F}", "del\u{7F}", "ls\u{2028}ps\u{2029}", "😀", "👩‍👩‍👧 family", "é vs e\u{301}",
        "\u{FEFF}bom", "/slash/", "</script>", String(repeating: "x", count: 1000),
    ]

    /// An activity with every optional field set and `changes` of every JSON shape.
    static let richActivity = Activity(
        seq: 42, at: at, actor: "alice", kind: "card.edit", card: "c1", column: "doing", label: "bug",
        milestone: "m1", member: "bob", comment: "k1", item: "i1", text: "He said \"hi\"\nthen left 😀",
        changes: [
            "title": FieldChange(old: .string("Old \"t\""), new: .string("New\u{0}\u{1F}\u{7F}\u{2028}")),
            "due": FieldChange(old: .null, new: .string("2026-02-14")),
            "labels": FieldChange(old: .array([]), new: .array([.string("bug"), .string("ui"), .null])),
            "nested": FieldChange(
                old: .object([:]),
                new: .object([
                    "a": .array([.int(1), .int(-2), .bool(true), .bool(false), .object(["k\"\\": .null])]),
                    "b": .int(Int64.max), "c": .int(Int64.min), "d": .string("\\"),
                ])),
            "weird \"key\"\n\u{1}": FieldChange(old: .bool(false), new: .int(0)),
        ],
        warning: "wip_exceeded", undoOf: 17,
        names: ActivityNames(
            title: "Old \"t\"\n", number: 7, columns: ["todo": "TODO", "do\"ing": "DOING\u{1}", "z": ""],
            labels: ["bug": "Bug 😀"], milestones: ["m1": "v1.0"], item: "Draft\u{2028}"))

    // MARK: Checks

    /// Checks the writer's line for `delta` against the Foundation path, recording what differs.
    static func check(_ delta: ServerMessage.Delta, sourceLocation: SourceLocation = #_sourceLocation) {
        let line = LineWriter.deltaLine(
            board: delta.board, seq: delta.seq, at: delta.at, actor: delta.actor, clientID: delta.clientID,
            mut: delta.mut, op: delta.op, activity: delta.activity)
        let text = String(decoding: line, as: UTF8.self)
        // (1) One line: ends in exactly one `\n` and holds no other newline (nor any raw control byte).
        #expect(line.last == 0x0A, "no terminating newline: \(text)", sourceLocation: sourceLocation)
        let body = Array(line.dropLast())
        #expect(!body.contains(0x0A), "a raw newline inside the line: \(text)", sourceLocation: sourceLocation)
        #expect(!body.contains { $0 < 0x20 }, "a raw control byte inside the line: \(text)", sourceLocation: sourceLocation)
        #expect(String(validating: body, as: UTF8.self) != nil, "not UTF-8", sourceLocation: sourceLocation)
        // (2) The same JSON tree as JSONEncoder writes for the same message.
        let reference = LineCoder().encode(.delta(delta))
        do {
            let mine = try JSONTree.parse(body)
            let theirs = try JSONTree.parse(reference)
            #expect(
                mine == theirs, "\(theirs.firstDifference(from: mine) ?? "?")\nline: \(text)",
                sourceLocation: sourceLocation)
        } catch {
            Issue.record("does not parse as JSON: \(error)\nline: \(text)", sourceLocation: sourceLocation)
        }
        // (3) Decodes back to the same message.
        do {
            let decoded = try LineCoder().decodeServer(line)
            #expect(decoded == .delta(delta), "decoded differently: \(text)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("does not decode: \(error)\nline: \(text)", sourceLocation: sourceLocation)
        }
    }

    /// Checks `CompactJSONEncoder` against `JSONEncoder` for any value, as JSON trees.
    static func checkGeneric<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let mine = try CompactJSONEncoder().encode(value)
        let text = String(decoding: mine, as: UTF8.self)
        #expect(!mine.contains { $0 < 0x20 }, "a raw control byte: \(text)", sourceLocation: sourceLocation)
        let reference = try JSONEncoder().encode(value)
        let theirs = try JSONTree.parse(reference)
        let parsed = try JSONTree.parse(mine)
        #expect(parsed == theirs, "\(theirs.firstDifference(from: parsed) ?? "?")\nmine: \(text)", sourceLocation: sourceLocation)
    }

    static func delta(
        _ op: Op, seq: UInt64 = 7, clientID: ClientID? = "laptop-1", mut: UInt64? = 12, activity: Activity? = nil
    ) -> ServerMessage.Delta {
        ServerMessage.Delta(
            board: "main", seq: seq, at: at, actor: "alice", clientID: clientID, mut: mut, op: op,
            activity: activity ?? Activity(seq: seq, at: at, actor: "alice", kind: op.kind, card: op.card))
    }

    // MARK: Deltas

    @Test func everyOpKindMatchesTheFoundationLine() throws {
        #expect(Set(Self.sampleOps.map(\.kind)) == Set(Op.allKinds), "the samples must cover every op kind")
        for (i, op) in Self.sampleOps.enumerated() {
            Self.check(Self.delta(op, seq: UInt64(i + 1)))
            Self.check(Self.delta(op, seq: UInt64(i + 1), clientID: nil, mut: nil))
            Self.check(Self.delta(op, seq: UInt64(i + 1), activity: Self.richActivity))
            // The generic encoder (through the `Encodable` conformances) agrees too.
            try Self.checkGeneric(ServerMessage.delta(Self.delta(op, seq: UInt64(i + 1), activity: Self.richActivity)))
        }
    }

    @Test func activitiesWithNestedChangesMatch() {
        Self.check(Self.delta(.chat(text: "x"), activity: Self.richActivity))
        var bare = Self.richActivity
        (bare.card, bare.column, bare.label, bare.milestone, bare.member) = (nil, nil, nil, nil, nil)
        (bare.comment, bare.item, bare.text, bare.warning, bare.undoOf) = (nil, nil, nil, nil, nil)
        bare.changes = [:]
        Self.check(Self.delta(.chat(text: "x"), activity: bare))
        for s in Self.nastyStrings {
            var activity = Self.richActivity
            activity.text = s
            activity.changes = [s: FieldChange(old: .string(s), new: .array([.string(s), .object([s: .string(s)])]))]
            Self.check(Self.delta(.chat(text: s), activity: activity))
        }
    }

    @Test func extremeNumbersMatch() {
        var activity = Self.richActivity
        activity.seq = UInt64(Int64.max)
        activity.at = Timestamp(milliseconds: Int64.min)
        activity.undoOf = 0
        let delta = ServerMessage.Delta(
            board: "b", seq: UInt64(Int64.max), at: Timestamp(milliseconds: -1), actor: "a", clientID: "c",
            mut: 0, op: .moveColumn(column: "x", index: Int.min), activity: activity)
        Self.check(delta)
        let line = LineWriter.deltaLine(
            board: "b", seq: .max, at: Timestamp(milliseconds: .min), actor: "a", clientID: nil, mut: .max,
            op: .moveColumn(column: "x", index: .max), activity: activity)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#""seq":18446744073709551615,"at":-9223372036854775808,"#), "\(text)")
        #expect(text.contains(#""mut":18446744073709551615,"#), "\(text)")
        #expect(text.contains(#""index":9223372036854775807"#), "\(text)")
    }

    @Test func theDocumentedDeltaExamplesComeOutTheSame() throws {
        var seen = 0
        for item in ConformanceTests.roundTripAll(try ProtocolDoc.load()) {
            guard case .delta(let d)? = item.server else { continue }
            seen += 1
            Self.check(d)
            // And the whole line parses to the documented line itself.
            let line = LineWriter.deltaLine(
                board: d.board, seq: d.seq, at: d.at, actor: d.actor, clientID: d.clientID, mut: d.mut, op: d.op,
                activity: d.activity)
            let documented = try JSONTree.parse(item.line.text)
            let mine = try JSONTree.parse(line.dropLast())
            #expect(documented == mine, "Protocol.md:\(item.line.number): \(documented.firstDifference(from: mine) ?? "")")
        }
        #expect(seen >= 10)
    }

    // MARK: Random deltas

    static let pieces = [
        "", "a", "é", "😀", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "x y", "\u{2028}",
        "\u{2029}", "{", "]", ",", ":", "/", "\u{FFFD}", "\u{10FFFF}", "e\u{301}", "👍🏽", "\r\n",
    ]

    static func string(_ stream: inout IndexingIterator<[Int]>) -> String {
        let n = (stream.next() ?? 0) % 6
        return (0..<n).map { _ in pieces[(stream.next() ?? 0) % pieces.count] }.joined()
    }

    static func value(_ stream: inout IndexingIterator<[Int]>, depth: Int) -> JSONValue {
        let pick = stream.next() ?? 0
        switch pick % (depth > 0 ? 7 : 5) {
        case 0: return .null
        case 1: return .bool(pick % 2 == 0)
        case 2: return .int(Int64(pick) * 7_919_123_456_789 * (pick % 3 == 0 ? -1 : 1))
        case 3, 4: return .string(string(&stream))
        case 5: return .array((0..<(stream.next() ?? 0) % 4).map { _ in value(&stream, depth: depth - 1) })
        default:
            var object: [String: JSONValue] = [:]
            for _ in 0..<(stream.next() ?? 0) % 4 { object[string(&stream)] = value(&stream, depth: depth - 1) }
            return .object(object)
        }
    }

    static let streams = Gen.int(in: 0...1_000_000).array(of: 0...80)

    @Test func randomDeltasMatchTheFoundationLine() async {
        await propertyCheck(count: 300, input: Self.streams) { numbers in
            var stream = numbers.makeIterator()
            let pick = stream.next() ?? 0
            var op = Self.sampleOps[pick % Self.sampleOps.count]
            switch pick % 3 {
            case 0: op = .chat(text: Self.string(&stream))
            case 1: op = .addComment(card: "c1", comment: "k9", text: Self.string(&stream))
            default: break
            }
            var changes: [String: FieldChange] = [:]
            for _ in 0..<(stream.next() ?? 0) % 5 {
                changes[Self.string(&stream)] = FieldChange(
                    old: Self.value(&stream, depth: 3), new: Self.value(&stream, depth: 3))
            }
            let hasText = (stream.next() ?? 0) % 2 == 0
            let activity = Activity(
                seq: UInt64(pick), at: Self.at, actor: "alice", kind: op.kind, card: op.card,
                text: hasText ? Self.string(&stream) : nil, changes: changes,
                warning: pick % 5 == 0 ? "wip_exceeded" : nil, undoOf: pick % 7 == 0 ? 3 : nil)
            var activityWithNames = activity
            switch pick % 4 {
            case 0: activityWithNames.names = ActivityNames(title: Self.string(&stream), number: pick)
            case 1: activityWithNames.names = ActivityNames(labels: [Self.string(&stream): Self.string(&stream)])
            case 2:
                var columns = [Self.string(&stream): Self.string(&stream)]
                columns[Self.string(&stream)] = "x"
                activityWithNames.names = ActivityNames(columns: columns, milestones: [:], item: Self.string(&stream))
            default: break
            }
            let withClient = (stream.next() ?? 0) % 2 == 0
            Self.check(
                Self.delta(
                    op, seq: UInt64(pick), clientID: withClient ? ClientID("c-\(pick % 10)") : nil,
                    mut: withClient ? UInt64(pick) : nil, activity: activityWithNames))
        }
    }

    // MARK: Escaping

    static func escaped(_ s: String) -> String {
        var out: [UInt8] = []
        LineWriter.appendString(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test func aRejectLineIsTheSameJSONAsTheEncodersOne() throws {
        let cases: [ServerMessage.Reject] = [
            ServerMessage.Reject(board: "main", mut: 9, code: .rateLimited, message: "over 20 ops/s; retry in 50 ms", retryAfterMs: 50),
            ServerMessage.Reject(board: "b.1", mut: 0, code: .rejected(.notFound), message: "no board \"b\"\n"),
            ServerMessage.Reject(board: "main", mut: 9_007_199_254_740_991, code: .storageBusy, message: "é \u{1}"),
        ]
        for reject in cases {
            let mine = LineWriter.rejectLine(
                board: reject.board, mut: reject.mut, code: reject.code, message: reject.message,
                retryAfterMs: reject.retryAfterMs)
            #expect(mine.last == 0x0A && mine.dropLast().allSatisfy { $0 != 0x0A })
            let decoded = try LineCoder().decodeServer(mine)
            #expect(decoded == .reject(reject))
            let theirs = LineCoder().encodeLine(.reject(reject))
            #expect(try JSONSerialization.jsonObject(with: Data(mine)) as? NSDictionary
                == JSONSerialization.jsonObject(with: Data(theirs)) as? NSDictionary)
        }
    }

    @Test func escapesExactlyWhatJSONRequires() {
        #expect(Self.escaped("") == #""""#)
        #expect(Self.escaped(#"a"b\c"#) == #""a\"b\\c""#)
        // One escaper for the wire and the board hash (`JSONEscaping`): backspace and form feed as `\u00XX`.
        #expect(Self.escaped("\n\r\t\u{8}\u{C}") == #""\n\r\t\u0008\u000c""#)
        #expect(Self.escaped("\u{0}") == #""\u0000""#)
        #expect(Self.escaped("\u{1}\u{1F}\u{1B}") == #""\u0001\u001f\u001b""#)
        // Everything from U+0020 up is written raw: DEL, U+2028/2029, emoji, `/`.
        #expect(Self.escaped("\u{7F}") == "\"\u{7F}\"")
        #expect(Self.escaped("\u{2028}\u{2029}") == "\"\u{2028}\u{2029}\"")
        #expect(Array(Self.escaped("\u{2028}").utf8) == [0x22, 0xE2, 0x80, 0xA8, 0x22])
        #expect(Self.escaped("😀") == "\"😀\"")
        #expect(Array(Self.escaped("😀").utf8) == [0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22])
        #expect(Self.escaped("a/b</c>") == #""a/b</c>""#)
    }

    @Test func everyByteBelowSpaceIsEscapedAndRoundTrips() throws {
        for b in 0..<0x80 {
            let s = "x" + String(UnicodeScalar(UInt8(b))) + "y"
            var bytes: [UInt8] = []
            LineWriter.appendString(s, to: &bytes)
            #expect(!bytes.contains { $0 < 0x20 }, "byte \(b) written raw")
            if b >= 0x20 && b != 0x22 && b != 0x5C { #expect(bytes == Array("\"\(s)\"".utf8), "byte \(b) escaped") }
            let parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as? String
            #expect(parsed == s, "byte \(b)")
        }
    }

    @Test func longStringsRoundTrip() throws {
        let plain = String(repeating: "abcdefgh", count: 2048)  // 16 KiB
        #expect(Self.escaped(plain).utf8.count == 16 * 1024 + 2)
        let emoji = String(repeating: "😀", count: 4096)  // 16 KiB of 4-byte scalars
        #expect(Array(Self.escaped(emoji).utf8) == [0x22] + Array(emoji.utf8) + [0x22])
        let quotes = String(repeating: "\"\n\u{0}x", count: 4096)
        #expect(Self.escaped(quotes).utf8.count == 4096 * (2 + 2 + 6 + 1) + 2)
        for s in [plain, emoji, quotes] {
            var activity = Self.richActivity
            activity.text = s
            activity.changes = ["description": FieldChange(old: .string(s), new: .null)]
            Self.check(Self.delta(.chat(text: s), activity: activity))
        }
    }

    @Test func lineHasNoNewlineEvenWhenEveryStringIsNewlines() {
        let activity = Activity(
            seq: 1, at: Self.at, actor: "a", kind: "chat", text: "\n\n", changes: ["\n": FieldChange(old: .string("\n"), new: .string("\r\n"))])
        let line = LineWriter.deltaLine(
            board: "b", seq: 1, at: Self.at, actor: "a", clientID: nil, mut: nil, op: .chat(text: "\n"),
            activity: activity)
        #expect(line.filter { $0 == 0x0A }.count == 1)
        #expect(line.last == 0x0A)
    }
}

/// The same change is the same bytes wherever and whenever it is encoded: a node catching up re-encodes another
/// node's change from the store, and Swift's dictionary order differs from one process (and one dictionary) to the
/// next, so the dictionaries of a record are written with their keys sorted.
@Suite struct LineWriterKeyOrderTests {
    @Test func changesAndObjectValuesAreWrittenWithSortedKeys() throws {
        let keys = (0..<24).map { "field\($0)" }
        var changes: [String: FieldChange] = [:]
        for key in keys.shuffled() { changes[key] = FieldChange(old: .null, new: .object(["z": .int(1), "a": .int(2), "m": .int(3)])) }
        let activity = Activity(seq: 3, at: Timestamp(milliseconds: 5), actor: "alice", kind: "card.edit", card: "c1", changes: changes)
        let line = LineWriter.deltaLine(
            board: "main", seq: 3, at: Timestamp(milliseconds: 5), actor: "alice", clientID: nil, mut: nil,
            op: .chat(text: "x"), activity: activity)
        let text = String(decoding: line, as: UTF8.self)
        let written = keys.sorted().compactMap { text.range(of: #""\#($0)":"#)?.lowerBound }
        #expect(written.count == keys.count)
        #expect(written == written.sorted(), "changes keys in sorted order")
        #expect(text.contains(#"{"a":2,"m":3,"z":1}"#), "object keys sorted: \(text)")
    }
}
