import BoardTesting
import Foundation
import Testing

extension TUITmuxTests {
    /// Starts the full-screen `cork` of `person` in a new 100×30 pane `name`, as the other tmux tests do.
    static func pane(_ name: String, of person: CorkProcess, _ corkd: CorkdProcess, in tmux: Tmux) async throws {
        let cork = try Unprivileged.shellCommand(
            CorkProcess.executable, [],
            environment: ["XDG_CONFIG_HOME": person.configHome.path, "HOME": corkd.root.path, "TERM": "xterm-256color"])
        let command = "\(cork) 2>>'\(corkd.logDirectory.path)/tui-\(name).err'"
        try await tmux.run(["new-session", "-d", "-s", name, "-x", "100", "-y", "30", command])
    }

    /// An edit made while the server is down is queued; the person quits with it still queued (q twice), and the
    /// next full-screen start sends it from the journal: the board has it, once.
    @Test func anEditQueuedOfflineSurvivesQuittingAndIsSentAtTheNextStart() async throws {
        guard Self.tmuxInstalled else { return }
        try await withCorkd { corkd in
            let alice = try CorkProcess(corkd, url: nil, configName: "alice")
            _ = try await alice.ok(["join", corkd.ownerURL])
            _ = try await alice.ok(["add", "One"])
            let port = corkd.port
            let tmux = try Tmux(logDirectory: corkd.logDirectory)
            defer { tmux.kill() }
            try await Self.pane("A", of: alice, corkd, in: tmux)
            try await tmux.waitFor("#1 One", in: "A")

            try await corkd.kill9()
            try await tmux.waitFor("reconnecting", in: "A")
            // Rename #1 while offline: the edit is queued.
            try await tmux.keys("A", "e")
            try await tmux.keys("A", "-l", " offline")
            try await tmux.keys("A", "Enter")
            try await tmux.waitFor("1 queued", in: "A")
            // Quit anyway: q asks again while ops are queued.
            try await tmux.keys("A", "q")
            try await tmux.waitFor("press q again", in: "A")
            try await tmux.keys("A", "q")
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline, (try? await tmux.run(["has-session", "-t", "A"])) != nil {
                try await Task.sleep(for: .milliseconds(100))
            }

            // The server comes back where the invite points; the next start sends the queued edit.
            try await corkd.restart(options: ["--port", "\(port)"])
            try await Self.pane("A2", of: alice, corkd, in: tmux)
            try await tmux.waitFor("#1 One offline", in: "A2")
            // The restarted client's feed is not empty: the board's recent activity is there.
            try await tmux.waitFor("latest before you came", in: "A2")
            try await tmux.waitFor(#"owner added #1 "One""#, in: "A2")
            let shown = try await alice.ok(["show"])
            #expect(shown.contains("#1 One offline"), "\(shown)")
            let history = try await alice.ok(["history"])
            #expect(history.components(separatedBy: "renamed #1").count == 2, "renamed once:\n\(history)")
        }
    }
}
