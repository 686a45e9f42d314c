import Foundation
import Testing

@testable import BoardCore

/// Protocol.md's "Activity records" table of `changes` keys by op kind, and its list of ops undo refuses, checked
/// against the reducer: a client written from the document alone reads every key the server sends.
@Suite struct ProtocolActivityTableTests {
    /// Protocol.md's lines, found by walking up from this file to the package root.
    static func protocolLines(from file: String = #filePath) throws -> [String] {
        var dir = URL(fileURLWithPath: file).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            let parent = dir.deletingLastPathComponent()
            try #require(parent.path != dir.path, "no Package.swift above \(file)")
            dir = parent
        }
        return try String(contentsOf: dir.appendingPathComponent("Protocol.md"), encoding: .utf8)
            .components(separatedBy: "\n")
    }

    /// The backquoted words of `text`, in order.
    static func quoted(_ text: Substring) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The table's rows: op kind patterns (`card.*`, `board.rename`) and the keys documented for them.
    static func documentedKeys() throws -> [(kinds: [String], keys: Set<String>)] {
        let lines = try protocolLines()
        let header = try #require(lines.firstIndex { $0.hasPrefix("| Op kinds | Subject | Keys of `changes` |") })
        return lines[(header + 2)...].prefix { $0.hasPrefix("|") }.map { row in
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            return (quoted(Substring(cells[0])), Set(quoted(Substring(cells[2]))))
        }
    }

    static func keys(for kind: String, in table: [(kinds: [String], keys: Set<String>)]) -> Set<String>? {
        table.first { row in
            row.kinds.contains { $0 == kind || ($0.hasSuffix(".*") && kind.hasPrefix($0.dropLast())) }
        }?.keys
    }

    @Test func everyKeyOfEveryChangeIsInTheTableForItsKind() throws {
        let table = try Self.documentedKeys()
        var board = Fixtures.board
        var seen: Set<String> = []
        var cases: [(Op, UserID, Board)] = Fixtures.sampleOps.map { ($0, "alice", board) }
        cases += UndoCase.all.map { ($0.op, $0.actor, $0.board) }
        for (op, actor, start) in cases {
            // The samples run in order on one board (a column added, then removed); the undo cases each on their own.
            let from = start == Fixtures.board ? board : start
            guard case .success(let change) = from.applying(op, context: ctx(actor, on: from)) else { continue }
            if start == Fixtures.board { board = change.board }
            let documented = try #require(Self.keys(for: op.kind, in: table), "\(op.kind) has no row")
            let extra = Set(change.activity.changes.keys).subtracting(documented)
            #expect(extra.isEmpty, "\(op.kind) sends keys the table does not list: \(extra.sorted())")
            seen.insert(op.kind)
        }
        #expect(seen.count >= 30, "enough kinds were applied to mean something: \(Set(Op.allKinds).subtracting(seen).sorted())")
    }

    @Test func theOpsUndoRefusesAreTheOnesWithoutAnInverse() throws {
        let lines = try Self.protocolLines()
        let bullet = try #require(lines.firstIndex { $0.hasPrefix("- `not_undoable` for changes without an inverse:") })
        let text = lines[bullet...].prefix { !$0.hasPrefix("- `forbidden`") }.joined(separator: " ")
        var listed = Set(Self.quoted(Substring(text)))
        listed.remove("not_undoable")
        if text.contains("chat") { listed.insert("chat") }
        #expect(listed == UndoCase.notUndoableKinds)
    }
}
