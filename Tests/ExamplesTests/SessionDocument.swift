import BoardTesting
import Foundation

/// `Examples/openssl-session.md`, split into what a test can replay: its fenced blocks, in order.
struct SessionDocument {
    /// A fenced block: its info string (`jsonl client`, `sh`, …) and its non-blank lines.
    struct Block {
        var info: String
        var lines: [String]
    }

    /// One thing the reader pastes (the lines of a `jsonl client` block) and what the server answers to it (the
    /// lines of the `jsonl server` blocks up to the next client block).
    struct Step {
        var client: [String]
        var server: [String]
    }

    /// The document's path.
    static let url = CorkdProcess.packageRoot.appendingPathComponent("Examples/openssl-session.md")

    let blocks: [Block]

    /// Reads and splits the document.
    init() throws {
        let text = try String(contentsOf: SessionDocument.url, encoding: .utf8)
        var blocks: [Block] = []
        var current: Block?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if let block = current {
                    blocks.append(block)
                    current = nil
                } else {
                    current = Block(info: line.dropFirst(3).trimmingCharacters(in: .whitespaces), lines: [])
                }
            } else if current != nil, !line.trimmingCharacters(in: .whitespaces).isEmpty {
                current?.lines.append(String(line))
            }
        }
        if current != nil { throw TestFailure("openssl-session.md ends inside a fenced block") }
        self.blocks = blocks
    }

    /// The session: every `jsonl client` block with the `jsonl server` lines that follow it.
    var steps: [Step] {
        var steps: [Step] = []
        for block in blocks {
            switch block.info {
            case "jsonl client": steps.append(Step(client: block.lines, server: []))
            case "jsonl server": if !steps.isEmpty { steps[steps.count - 1].server += block.lines }
            default: continue
            }
        }
        return steps
    }

    /// The first `sh` block that contains `text`, as one script.
    func shell(containing text: String) throws -> String {
        guard let block = blocks.first(where: { $0.info == "sh" && $0.lines.contains { $0.contains(text) } }) else {
            throw TestFailure("openssl-session.md has no sh block with \(text)")
        }
        return block.lines.joined(separator: "\n") + "\n"
    }

    /// Fields whose values differ on every run; they are compared as "*".
    static let volatileKeys: Set<String> = ["session", "client_id", "epoch", "at", "server"]

    /// A line as canonical JSON (sorted keys) with the volatile values masked, for comparing a documented line
    /// with the real one.
    static func canonical(_ line: String) -> String {
        guard let value = try? JSONSerialization.jsonObject(with: Data(line.utf8)),
            let data = try? JSONSerialization.data(withJSONObject: masked(value), options: [.sortedKeys])
        else { return "not JSON: \(line)" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func masked(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            return object.reduce(into: [String: Any]()) { out, entry in
                out[entry.key] = volatileKeys.contains(entry.key) ? "*" : masked(entry.value)
            }
        }
        if let array = value as? [Any] { return array.map(masked) }
        return value
    }

    /// The lines of `output` that are JSON objects (s_client may print other things).
    static func jsonLines(_ output: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any]
        }
    }
}
