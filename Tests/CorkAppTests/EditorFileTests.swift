import Foundation
import Testing

@testable import CorkApp

/// The file `$EDITOR` gets: a text file that ends in a newline, and what comes back from it.
@Suite struct EditorFileTests {
    /// Runs the editor `script` (a shell command given the file as $1) on `text`; returns the result and the file's
    /// bytes as the editor saw them.
    static func edit(_ text: String, script: String) async throws -> (result: String?, seen: String) {
        let seen = FileManager.default.temporaryDirectory.appendingPathComponent("cork-seen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: seen) }
        let editor = "sh -c 'cp \"$0\" \"\(seen.path)\"; \(script)'"
        let result = await TUIRunner.runEditor(text, environment: ["EDITOR": editor])
        return (result, try String(contentsOf: seen, encoding: .utf8))
    }

    @Test func theDescriptionFileEndsInANewlineAndItIsNotAddedToTheText() async throws {
        let unchanged = try await Self.edit("Steps:\n1. log in", script: "true")
        #expect(unchanged.seen == "Steps:\n1. log in\n")
        #expect(unchanged.result == nil)
        // An editor that keeps the final newline (as vi does) returns the text without it.
        let appended = try await Self.edit("Steps", script: #"printf "Steps\nmore\n" > "$0""#)
        #expect(appended.result == "Steps\nmore")
        // A text that ends in a newline keeps it; an empty one stays an empty file.
        #expect(try await Self.edit("a\n", script: "true").seen == "a\n")
        #expect(try await Self.edit("", script: "true").seen == "")
        // A failed editor changes nothing.
        #expect(try await Self.edit("x", script: "exit 1").result == nil)
    }

    /// The editor runs in cork's process group, the terminal's foreground job: in a group of its own the terminal
    /// stops it (SIGTTIN) as soon as it reads a key, and `E` hangs with the editor stopped.
    @Test func theEditorRunsInCorksProcessGroup() async throws {
        let group = FileManager.default.temporaryDirectory.appendingPathComponent("cork-group-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: group) }
        // Field 5 of /proc/PID/stat is the process group ("sh" has no space in its name, so the fields split cleanly).
        _ = try await Self.edit("x", script: "cut -d\" \" -f5 /proc/$$/stat > \(group.path)")
        let seen = try String(contentsOf: group, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(seen == String(getpgrp()), "the editor's process group \(seen), cork's \(getpgrp())")
    }
}
