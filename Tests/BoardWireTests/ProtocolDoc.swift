import Foundation
import Testing

/// Protocol.md, read from the package root, with helpers to pull out its example lines and tables.
struct ProtocolDoc {
    /// Which side sends the lines of a `jsonl` block (its info string: `jsonl client` or `jsonl server`).
    enum Direction: String {
        case client, server
    }

    /// One line of a fenced `jsonl` block.
    struct ExampleLine {
        /// 1-based line number in Protocol.md.
        var number: Int
        /// The block's direction, nil when the info string names none.
        var direction: Direction?
        /// The line's text.
        var text: String
    }

    /// The document's lines.
    let lines: [String]

    /// The path it was read from.
    let path: String

    /// Reads Protocol.md from the directory that holds Package.swift, walking up from this file.
    static func load(from file: String = #filePath) throws -> ProtocolDoc {
        var dir = URL(fileURLWithPath: file).deletingLastPathComponent()
        let fm = FileManager.default
        while !fm.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            let parent = dir.deletingLastPathComponent()
            guard parent.path != dir.path else { throw DocError.packageRootNotFound(file) }
            dir = parent
        }
        let url = dir.appendingPathComponent("Protocol.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        return ProtocolDoc(lines: text.components(separatedBy: "\n"), path: url.path)
    }

    enum DocError: Error {
        case packageRootNotFound(String)
    }

    /// Every non-blank line of every fenced block whose info string starts with `jsonl`.
    var exampleLines: [ExampleLine] {
        var out: [ExampleLine] = []
        var inFence = false
        var inJSONL = false
        var direction: Direction?
        for (i, line) in lines.enumerated() {
            if line.hasPrefix("```") {
                if inFence {
                    inFence = false
                    inJSONL = false
                } else {
                    inFence = true
                    let info = line.dropFirst(3).split(separator: " ").map(String.init)
                    inJSONL = info.first == "jsonl"
                    direction = info.count > 1 ? Direction(rawValue: info[1]) : nil
                }
                continue
            }
            if inJSONL, !line.trimmingCharacters(in: .whitespaces).isEmpty {
                out.append(ExampleLine(number: i + 1, direction: direction, text: line))
            }
        }
        return out
    }

    /// The cells of the table rows in the section titled `heading` (any level), header and separator rows skipped.
    func tableRows(under heading: String) -> [[String]] {
        guard let start = lines.firstIndex(where: { isHeading($0) && headingTitle($0) == heading }) else { return [] }
        let level = lines[start].prefix { $0 == "#" }.count
        var rows: [[String]] = []
        var seenHeader = false
        for line in lines[(start + 1)...] {
            if isHeading(line), line.prefix(while: { $0 == "#" }).count <= level { break }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("|") else {
                seenHeader = false
                continue
            }
            let cells = trimmed.dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if !seenHeader {
                seenHeader = true
                continue
            }
            if cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) { continue }
            rows.append(cells)
        }
        return rows
    }

    /// The back-quoted words of a table cell: "`a` / `b`" gives ["a", "b"].
    static func codes(in cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    private func isHeading(_ line: String) -> Bool { line.hasPrefix("#") && line.contains("# ") }

    private func headingTitle(_ line: String) -> String {
        String(line.drop { $0 == "#" }).trimmingCharacters(in: .whitespaces)
    }
}
