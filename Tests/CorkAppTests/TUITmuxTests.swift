import BoardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two people on one board in two tmux panes, each running the real full-screen `cork` against the real corkd:
/// one carries a card to DOING (the other sees the ghost while it is carried, then the card land), the other chats,
/// and the first opens the card to read its history.
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct TUITmuxTests {
    /// A private tmux server (its own socket), killed on every path.
    final class Tmux {
        let tmux: URL
        let python: URL
        /// tmux is started through a one-line exec that unblocks signals (children of `swift test` start with them
        /// blocked, and a tmux server started so never reaps its panes) and closes inherited descriptors (the tmux
        /// server daemon would otherwise hold the pipe by which Foundation notices the client's exit).
        static let unblock = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.closerange(3, 4096); os.execv(sys.argv[1], sys.argv[1:])"
        let socket = "cork-test-\(UUID().uuidString.prefix(8))"
        let logDirectory: URL

        init(logDirectory: URL) throws {
            tmux = try SpawnedProcess.tool("tmux")
            python = try SpawnedProcess.tool("python3")
            self.logDirectory = logDirectory
        }

        @discardableResult
        func run(_ arguments: [String]) async throws -> String {
            let result = try await SpawnedProcess.run(
                python, ["-c", Tmux.unblock, tmux.path, "-L", socket] + arguments, timeout: .seconds(10),
                logDirectory: logDirectory, name: "tmux")
            guard result.exit.isSuccess else { throw TestFailure("tmux \(arguments): \(result.standardError)") }
            return result.standardOutput
        }

        func capture(_ session: String) async throws -> String { try await run(["capture-pane", "-p", "-t", session]) }

        /// Waits (bounded) until the pane shows `text`; returns the screen.
        @discardableResult
        func waitFor(_ text: String, in session: String, timeout: Duration = .seconds(20)) async throws -> String {
            let deadline = ContinuousClock.now + timeout
            var screen = ""
            while ContinuousClock.now < deadline {
                screen = try await capture(session)
                if screen.contains(text) { return screen }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw TestFailure("pane \(session) never showed \(text); it shows:\n\(screen)")
        }

        func keys(_ session: String, _ keys: String...) async throws { try await run(["send-keys", "-t", session] + keys) }

        /// Stops the tmux server, waiting at most 10 s for the client that asks it to.
        func kill() {
            if let child = try? SpawnedProcess(
                executable: python, arguments: ["-c", Tmux.unblock, tmux.path, "-L", socket, "kill-server"],
                logDirectory: logDirectory, name: "tmux-kill")
            {
                _ = child.waitForExitBlocking(timeout: .seconds(10))
                child.killAndReap()
            }
            // tmux leaves its socket file behind.
            let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
            try? FileManager.default.removeItem(atPath: "\(directory)/tmux-\(getuid())/\(socket)")
        }
    }

    /// Alice (the owner) and Bob (an editor) on board main with `cards` added, each running the full-screen `cork`
    /// in a 100×30 tmux pane (`A` and `B`), both showing the first card. The caller kills the tmux server.
    static func twoPanes(_ corkd: CorkdProcess, cards: [String]) async throws -> Tmux {
        let alice = try CorkProcess(corkd, url: nil, configName: "alice")
        let bob = try CorkProcess(corkd, url: nil, configName: "bob")
        let bobInvite = try await corkd.invite("bob")
        _ = try await alice.ok(["join", corkd.ownerURL])
        _ = try await bob.ok(["join", "\(bobInvite)"])
        // Membership goes through the admin queue: wait until bob sees the board.
        var member = false
        for _ in 0..<50 where !member {
            member = try await bob.run(["show"]).exit.isSuccess
            if !member { try await Task.sleep(for: .milliseconds(200)) }
        }
        try #require(member, "bob never became a member of main")
        for title in cards { _ = try await alice.ok(["add", title]) }

        let tmux = try Tmux(logDirectory: corkd.logDirectory)
        do {
            for (name, person) in [("A", alice), ("B", bob)] {
                // As nobody when the tests run as root, like every end-to-end run of the binaries.
                let cork = try Unprivileged.shellCommand(
                    CorkProcess.executable, [],
                    environment: ["XDG_CONFIG_HOME": person.configHome.path, "HOME": corkd.root.path, "TERM": "xterm-256color"])
                let command = "\(cork) 2>>'\(corkd.logDirectory.path)/tui-\(name).err'"
                try await tmux.run(["new-session", "-d", "-s", name, "-x", "100", "-y", "30", command])
                // One after the other: A shows the board once the server has taken its subscription, so B's
                // arrival comes to A as a join (on a busy machine B could otherwise be in the list A starts with).
                if let first = cards.first { try await tmux.waitFor("#1 \(first)", in: name) }
            }
        } catch {
            tmux.kill()
            throw error
        }
        return tmux
    }

    /// Whether tmux is on this machine; records an issue when it is not (the tmux tests then do nothing else).
    static var tmuxInstalled: Bool {
        guard (try? SpawnedProcess.tool("tmux")) != nil else {
            Issue.record("tmux is not installed (.ci/run installs it)")
            return false
        }
        return true
    }

    /// Runs `body` with ``twoPanes(_:cards:)`` on a real corkd (nothing when tmux is missing, recorded as an
    /// issue); the tmux server is killed and corkd stopped on every path.
    static func withTwoPanes(cards: [String], _ body: (Tmux) async throws -> Void) async throws {
        guard tmuxInstalled else { return }
        try await withCorkd { corkd in
            let tmux = try await twoPanes(corkd, cards: cards)
            defer { tmux.kill() }
            try await body(tmux)
        }
    }

    @Test func twoPeopleSeeEachOthersDragAndChatLive() async throws {
        try await Self.withTwoPanes(cards: ["Fix login", "Write docs"]) { tmux in
            // Bob's cork started after Alice's: her feed says he came.
            try await tmux.waitFor("bob joined", in: "A")
            // Alice picks #1 up and carries it over DOING: Bob sees her ghost there.
            try await tmux.keys("A", "Space")
            try await tmux.keys("A", "Right")
            try await tmux.waitFor("owner is dragging", in: "B")
            // She drops it: one move, and Bob's board shows #1 in DOING.
            try await tmux.keys("A", "Enter")
            try await tmux.waitFor(#"owner moved #1 "Fix login" TODO → DOING"#, in: "B")
            let screen = try await tmux.capture("B")
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let header = try #require(lines.first { $0.contains("DOING") })
            let doingColumn = try #require(header.range(of: "DOING")).lowerBound
            let doingOffset = header.distance(from: header.startIndex, to: doingColumn)
            let cardLine = try #require(lines.first { $0.contains("#1 Fix login") })
            let cardOffset = cardLine.distance(from: cardLine.startIndex, to: try #require(cardLine.range(of: "#1 Fix login")).lowerBound)
            #expect(abs(cardOffset - doingOffset) <= 2, "#1 is not under DOING:\n\(screen)")
            #expect(!screen.contains("owner is dragging"), "the ghost stayed after the drop:\n\(screen)")

            // Bob chats, with a flag and a joined emoji (each arrives as several scalars, which once crashed the
            // line editor); Alice's feed shows it.
            try await tmux.keys("B", "Tab")
            try await tmux.keys("B", "Tab")
            try await tmux.keys("B", "-l", "hello from bob 🇩🇪 👩‍💻")
            // Back over the emoji, delete the space, type another flag and a space: whole clusters each time.
            try await tmux.keys("B", "Left", "BSpace")
            try await tmux.keys("B", "-l", "🇫🇷 ")
            try await tmux.keys("B", "Enter")
            try await tmux.waitFor("<bob> hello from bob 🇩🇪🇫🇷 👩‍💻", in: "A")

            // Alice opens #1 (still selected where she dropped it): the detail fetches its history from corkd, which
            // holds the add from before her cork started.
            try await tmux.keys("A", "Enter")
            let detail = try await tmux.waitFor(#"owner added #1 "Fix login" to TODO"#, in: "A")
            #expect(detail.contains("c comment · E edit the description · Esc close"), "no card detail:\n\(detail)")
            try await tmux.keys("A", "Escape")

            // q quits and the terminal is restored (the pane's shell command ends, so the session goes away).
            try await tmux.keys("A", "q")
            try await tmux.keys("B", "Escape")  // B's focus is still on the input line, where q is text
            try await Task.sleep(for: .milliseconds(200))
            try await tmux.keys("B", "q")
            let deadline = ContinuousClock.now + .seconds(10)
            var sessions = "A"
            while ContinuousClock.now < deadline, !sessions.isEmpty {
                sessions = (try? await tmux.run(["list-sessions", "-F", "#S"])) ?? ""
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(sessions.isEmpty, "cork did not quit: \(sessions)")
        }
    }

    /// Ctrl-Z hands the terminal back to the shell like any full-screen program (the main screen, the cursor, the
    /// shell's line discipline), and `fg` brings the board back, redrawn and live.
    /// Started while the server is down (a restart in the morning), the board waits for it and opens once it
    /// answers; it had exited with 4 at once.
    @Test func startedWhileTheServerIsDownItWaitsAndOpensTheBoardWhenItAnswers() async throws {
        guard Self.tmuxInstalled else { return }
        try await withCorkd { corkd in
            let alice = try CorkProcess(corkd, url: nil, configName: "alice")
            _ = try await alice.ok(["join", corkd.ownerURL])
            _ = try await alice.ok(["add", "Fix login"])
            let port = corkd.port
            _ = try await corkd.terminate()
            let tmux = try Tmux(logDirectory: corkd.logDirectory)
            defer { tmux.kill() }
            let command = try Unprivileged.shellCommand(
                CorkProcess.executable, [],
                environment: ["XDG_CONFIG_HOME": alice.configHome.path, "HOME": corkd.root.path, "TERM": "xterm-256color"])
            try await tmux.run(["new-session", "-d", "-s", "D", "-x", "100", "-y", "30", "sh", "-c", command + "; echo exited $?; sleep 60"])
            let waiting = try await tmux.waitFor("until it answers (Ctrl-C stops)", in: "D")
            #expect(waiting.contains("cannot connect to 127.0.0.1:\(port)"), "\(waiting)")
            #expect(!waiting.contains("exited"), "\(waiting)")
            try await corkd.restart(options: ["--port", "\(port)"])
            try await tmux.waitFor("#1 Fix login", in: "D", timeout: .seconds(30))
            try await tmux.keys("D", "q")
            try await tmux.waitFor("exited 0", in: "D")
        }
    }

    @Test func ctrlZSuspendsToTheShellAndFgBringsTheBoardBack() async throws {
        guard Self.tmuxInstalled else { return }
        try await withCorkd { corkd in
            let alice = try CorkProcess(corkd, url: nil, configName: "alice")
            _ = try await alice.ok(["join", corkd.ownerURL])
            _ = try await alice.ok(["add", "Fix login"])
            let tmux = try Tmux(logDirectory: corkd.logDirectory)
            defer { tmux.kill() }
            // An interactive shell with job control, as a person has.
            try await tmux.run([
                "new-session", "-d", "-s", "S", "-x", "100", "-y", "30", "env", "PS1=ready$ ", "bash", "--norc", "--noprofile", "-i",
            ])
            try await tmux.waitFor("ready$", in: "S")
            // As nobody under a root test run (setpriv execs cork, so the shell's job control still has it).
            let unprivileged = try Unprivileged.shellCommand(
                CorkProcess.executable, [],
                environment: ["XDG_CONFIG_HOME": alice.configHome.path, "HOME": corkd.root.path, "TERM": "xterm-256color"])
            let command = "\(unprivileged) 2>>'\(corkd.logDirectory.path)/tui-S.err'"
            try await tmux.keys("S", "-l", command)
            try await tmux.keys("S", "Enter")
            try await tmux.waitFor("#1 Fix login", in: "S")

            try await tmux.keys("S", "C-z")
            let shell = try await tmux.waitFor("Stopped", in: "S")
            #expect(!shell.contains("#1 Fix login"), "the board stayed on screen:\n\(shell)")
            // The shell reads lines again (cooked mode, echo): a command typed now runs.
            try await tmux.keys("S", "-l", "echo still-here")
            try await tmux.keys("S", "Enter")
            try await tmux.waitFor("\nstill-here", in: "S")

            // (clear: so the next "Stopped" looked for is a new one)
            try await tmux.keys("S", "-l", "clear; fg")
            try await tmux.keys("S", "Enter")
            try await tmux.waitFor("#1 Fix login", in: "S")

            // Stopped from outside: SIGTSTP is handled as Ctrl-Z; SIGSTOP cannot be, but on fg (SIGCONT) the board
            // takes the terminal back and redraws.
            let shellPID = try await tmux.run(["list-panes", "-t", "S", "-F", "#{pane_pid}"])
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let children = try String(contentsOfFile: "/proc/\(shellPID)/task/\(shellPID)/children", encoding: .utf8)
            let cork = try #require(children.split(separator: " ").first.flatMap { pid_t($0) }, "no cork under the shell")
            if Unprivileged.isActive {
                let status = try String(contentsOfFile: "/proc/\(cork)/status", encoding: .utf8)
                #expect(status.contains("\nUid:\t65534\t"), "cork should run as nobody under a root test run")
            }
            for signal in [SIGTSTP, SIGSTOP] {
                kill(cork, signal)
                let stopped = try await tmux.waitFor("Stopped", in: "S")
                if signal == SIGTSTP { #expect(!stopped.contains("#1 Fix login"), "the board stayed:\n\(stopped)") }
                try await tmux.keys("S", "-l", "clear; fg")
                try await tmux.keys("S", "Enter")
                try await tmux.waitFor("#1 Fix login", in: "S")
            }
            // Live again: keys reach it (? opens the help), and q quits back to the shell.
            try await tmux.keys("S", "?")
            try await tmux.waitFor("Esc or ? closes this help", in: "S")
            try await tmux.keys("S", "Escape")
            try await Task.sleep(for: .milliseconds(200))
            try await tmux.keys("S", "q")
            let back = try await tmux.waitFor("ready$", in: "S")
            #expect(!back.contains("Esc or ? closes this help"), "the board stayed after quitting:\n\(back)")
        }
    }
}
