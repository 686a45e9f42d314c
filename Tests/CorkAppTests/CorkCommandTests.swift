import BoardClient
import BoardCore
import BoardTesting
import BoardWire
import CorkApp
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real `cork` binary against the real corkd: every one-shot command, every exit code, the profile, watch,
/// export and import.
@Suite(.serialized, .startsProcesses(within: .minutes(3))) struct CorkCommandTests {
    static let trelloFixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/trello-board.json")

    @Test func joinSavesAPrivateProfileThatLaterCommandsUse() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: nil)
            // No URL anywhere yet: usage.
            try await cork.fails(["show"], with: 2)
            let joined = try await cork.ok(["join", corkd.ownerURL])
            #expect(joined.contains("joined 127.0.0.1:\(corkd.port)"), "\(joined)")
            let profile = cork.configHome.appendingPathComponent("cork/profile.json")
            let attributes = try FileManager.default.attributesOfItem(atPath: profile.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let directory = try FileManager.default.attributesOfItem(atPath: profile.deletingLastPathComponent().path)
            #expect((directory[.posixPermissions] as? NSNumber)?.intValue == 0o700)
            #expect(try String(contentsOf: profile, encoding: .utf8).contains(corkd.ownerToken))
            let hosts = try String(contentsOf: cork.configHome.appendingPathComponent("cork/known_hosts"), encoding: .utf8)
            #expect(hosts == "127.0.0.1:\(corkd.port) \(try corkd.pinned())\n")

            // Later commands use the profile.
            let boards = try await cork.json(["boards"])
            let list = try #require(boards["boards"] as? [[String: Any]])
            #expect(list.map { $0["board"] as? String } == ["main"] && list.first?["role"] as? String == "owner")
            #expect(try await cork.ok(["boards"]).hasPrefix("main"))

            // A URL for the same address with another fingerprint is refused before connecting, like SSH.
            var forged = try #require(InviteURL(corkd.ownerURL))
            forged.fingerprint = "sha256:" + String(repeating: "0", count: 64)
            let refused = try await cork.fails(["show"], with: 4, url: .some(forged.description))
            #expect(refused.contains("known_hosts") && refused.contains("is known with fingerprint"), "\(refused)")
            try await cork.fails(["join", forged.description], with: 4)
            // Without the known fingerprint (another machine), the server's certificate is refused at the handshake,
            // and the refusal says what to do.
            let stranger = try CorkProcess(corkd, url: nil, configName: "stranger")
            let mismatch = try await stranger.fails(["show"], with: 4, url: .some(forged.description))
            #expect(mismatch.contains("does not match the pinned fingerprint (someone may be intercepting the connection;"), "\(mismatch)")
            #expect(mismatch.contains("remove its line from known_hosts"), "\(mismatch)")
            // join with a URL that does not work: exit 4, and the profile is unchanged.
            var badToken = try #require(InviteURL(corkd.ownerURL))
            badToken.token = "ck_" + String(repeating: "A", count: 43)
            let auth = try await cork.fails(["join", badToken.description], with: 4)
            #expect(auth.contains("auth_failed"), "\(auth)")
            // A URL copied across a line wrap, a line break and an indent inside it, works.
            let url = corkd.ownerURL
            let wrapped = String(url.prefix(40)) + "\n  " + String(url.dropFirst(40)) + "\n"
            #expect(try await cork.ok(["join", wrapped]).hasPrefix("joined "))
            // A URL cut short (a terminal wrapped it): exit 2, saying what is wrong with it.
            let cut = try await cork.fails(["join", String(corkd.ownerURL.dropLast(20))], with: 2)
            #expect(cut.contains("the URL is not an invite URL: its fp is not sha256: and 64 hex digits (was the URL cut short?)"), "\(cut)")
            #expect(try String(contentsOf: profile, encoding: .utf8).contains(corkd.ownerToken))
        }
    }

    @Test func everyCardCommandWorksAndPrintsJSON() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            // bob must be a member of main to be assigned.
            try await withOwner(corkd) { client in
                try await Self.expectApplied(client, .setMember(user: "bob", role: .editor, name: "Bob B."))
            }

            // add: a missing label is created with LabelPalette's colour.
            let added = try await cork.json([
                "add", "Fix login timeout", "--label", "bug", "--label", "perf", "--due", "2020-01-15", "--desc",
                "It times out.\nAlways.", "--assign", "@bob",
            ])
            let card = try #require(added["card"] as? [String: Any])
            #expect(card["number"] as? Int == 1 && card["column"] as? String == "todo")
            #expect(card["labels"] as? [String] == ["bug", "perf"] && card["assignees"] as? [String] == ["bob"])
            #expect(added["seq"] as? Int == 4, "two label.create, then card.add: \(added)")
            let board = try await cork.json(["show"])
            let labels = try #require((board["board"] as? [String: Any])?["labels"] as? [[String: Any]])
            #expect(labels.map { $0["color"] as? String } == ["#d73a4a", LabelPalette.color(forName: "perf").description])

            // --ref is idempotent: the second add prints the existing card and exits 0.
            let first = try await cork.json(["add", "Build 1207", "--ref", "ci:build-1207", "--column", "doing"])
            let again = try await cork.json(["add", "Build 1207 again", "--ref", "ci:build-1207"])
            let firstCard = try #require(first["card"] as? [String: Any])
            let againCard = try #require(again["card"] as? [String: Any])
            #expect(againCard["id"] as? String == firstCard["id"] as? String)
            #expect(again["existing"] as? Bool == true && againCard["title"] as? String == "Build 1207")
            #expect(try await cork.ok(["add", "Build 1207", "--ref", "ci:build-1207"]).hasPrefix("exists #2 Build 1207"))

            let moved = try await cork.json(["move", "ref:ci:build-1207", "todo", "--top"])
            #expect((moved["card"] as? [String: Any])?["column"] as? String == "todo")
            #expect(try await cork.ok(["move", "#1", "DONE"]).hasPrefix("moved #1 Fix login timeout"))
            try await cork.ok(["move", "1", "todo", "--after", "#2"])
            let todo = try await cork.ok(["show"])
            let ordered = todo.split(separator: "\n").filter { $0.hasPrefix("  #") }.map { String($0.prefix(4)) }
            #expect(ordered == ["  #2", "  #1"], "\(todo)")
            #expect(todo.contains("TODO 2") && todo.contains("OVERDUE"), "\(todo)")

            let edited = try await cork.json(["edit", "#1", "--title", "Fix the login timeout", "--no-due"])
            #expect((edited["card"] as? [String: Any])?["title"] as? String == "Fix the login timeout")
            #expect((edited["card"] as? [String: Any])?["due"] == nil)
            // --description is --desc's long spelling.
            let described = try await cork.json(["edit", "#1", "--description", "It times out.\nOften."])
            #expect((described["card"] as? [String: Any])?["description"] as? String == "It times out.\nOften.", "\(described)")

            // -perf looks like an option; it is a label change.
            let labelled = try await cork.json(["label", "1", "-perf", "+docs", "security"])
            #expect((labelled["card"] as? [String: Any])?["labels"] as? [String] == ["bug", "docs", "security"])
            // A label named with a leading sign takes the sign before it: +-wip makes and adds it, --wip takes it off.
            let signed = try await cork.json(["label", "1", "+-wip"])
            #expect((signed["card"] as? [String: Any])?["labels"] as? [String] == ["-wip", "bug", "docs", "security"])
            let unsigned = try await cork.json(["label", "1", "--wip"])
            #expect((unsigned["card"] as? [String: Any])?["labels"] as? [String] == ["bug", "docs", "security"])
            let unassigned = try await cork.json(["assign", "1", "bob", "--remove"])
            #expect((unassigned["card"] as? [String: Any])?["assignees"] as? [String] == [])
            try await cork.ok(["assign", "1", "Bob B."])
            try await cork.ok(["unassign", "1", "bob"])
            let closed = try await cork.json(["close", "#2"])
            #expect((closed["card"] as? [String: Any])?["closed"] as? Bool == true)
            let closedAgain = try await cork.json(["close", "#2"])
            #expect(closedAgain["noop"] as? Bool == true)
            try await cork.ok(["reopen", "#2"])
            #expect(((try await cork.json(["archive", "2"]))["card"] as? [String: Any])?["archived"] as? Bool == true)
            #expect(((try await cork.json(["restore", "2"]))["card"] as? [String: Any])?["archived"] as? Bool == false)
            let commented = try await cork.json(["comment", "#1", "Seen on staging too."])
            let comments = try #require((commented["card"] as? [String: Any])?["comments"] as? [[String: Any]])
            #expect(comments.map { $0["text"] as? String } == ["Seen on staging too."])
            let said = try await cork.json(["say", "standup in 5"])
            #expect(said["board"] as? String == "main" && (said["seq"] as? Int ?? 0) > 4)

            let shown = try await cork.ok(["show", "#1"])
            for part in ["#1 Fix the login timeout", "labels: bug, docs, security", "It times out.", "Seen on staging too."] {
                #expect(shown.contains(part), "\(part) in \(shown)")
            }

            let found = try await cork.json(["search", "label:docs", "is:open"])
            #expect((found["cards"] as? [[String: Any]])?.map { $0["number"] as? Int } == [1])
            #expect(try await cork.ok(["search", "Build"]).hasPrefix("#2 Build 1207"))
            try await cork.fails(["search", "lable:bug"], with: 2)

            let history = try await cork.json(["history", "#1"])
            let activities = try #require(history["activities"] as? [[String: Any]])
            let seqs = activities.compactMap { $0["seq"] as? Int }
            #expect(seqs == seqs.sorted() && activities.first?["kind"] as? String == "card.add")
            let feed = try await cork.ok(["history"])
            #expect(feed.contains("<owner> standup in 5") || feed.contains("standup in 5"), "\(feed)")

            let csv = try await cork.ok(["export", "--format", "csv"])
            let rows = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(rows.first == BoardExport.csvHeader.joined(separator: ","))
            #expect(rows.count == 3, "header and two cards (the description's LF stays inside its quoted field): \(rows)")
            let exported = try await cork.ok(["export"])
            let snapshot = try JSONDecoder().decode(Board.self, from: Data(exported.utf8))
            #expect(snapshot.cards.count == 2 && snapshot.cards.values.contains { $0.ref == "ci:build-1207" })
            // Every command takes --json; for export it is the default format.
            #expect(try await cork.ok(["export", "--json"]) == exported)
            try await cork.fails(["export", "--json", "--format", "csv"], with: 2)

            // Importing the board's own export: every card is already there.
            let file = corkd.root.appendingPathComponent("main.json")
            try Data(exported.utf8).write(to: file)
            let reimport = try await cork.ok(["import", file.path])
            #expect(reimport.contains("applied 0 ops, 2 cards already there"), "\(reimport)")
        }
    }

    @Test func trelloImportAndItsRepeat() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            let first = try await cork.ok(["import", Self.trelloFixture.path, "--format", "trello"])
            #expect(first.contains("importing Trello board") && !first.contains("refused"), "\(first)")
            let board = try await cork.ok(["show"])
            #expect(board.contains("Set up CI pipeline"), "\(board)")
            let exported = try JSONDecoder().decode(Board.self, from: Data(try await cork.ok(["export"]).utf8))
            #expect(exported.cards.values.allSatisfy { $0.ref?.hasPrefix("trello:") == true })
            let count = exported.cards.count
            // Again (format guessed): nothing new.
            let repeated = try await cork.run(["import", Self.trelloFixture.path])
            let second = repeated.standardOutput
            #expect(repeated.exit.isSuccess, "\(repeated.standardError)")
            #expect(second.contains("applied 0 ops, \(count) cards already there"), "\(second)")
            // Nothing is said about refusals that never come: the cards are not sent.
            #expect(!repeated.standardError.contains("duplicate_ref"), "\(repeated.standardError)")
            #expect(repeated.standardError.contains("\(count) cards are already on the board"), "\(repeated.standardError)")
            let after = try JSONDecoder().decode(Board.self, from: Data(try await cork.ok(["export"]).utf8))
            #expect(after.seq == exported.seq)
            try await cork.fails(["import", corkd.root.appendingPathComponent("missing.json").path], with: 1)
        }
    }

    @Test func exitCodes() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            try await cork.ok(["add", "One"])
            // 0 and help.
            let help = try await cork.run(["--help"])
            #expect(help.exit.isSuccess && help.standardOutput.contains("Exit codes:"), "\(help.standardOutput)")
            // Bare cork opens the full-screen board, which needs a terminal: without one it is a usage error.
            let bare = try await cork.run([])
            #expect(bare.exit.status == 2 && bare.standardError.contains("needs a terminal"), "\(bare)")
            // 2: usage.
            // A usage error is one line, as every failure (docs/scripting.md), with where the usage is.
            let bogus = try await cork.fails(["move", "#1", "doing", "--bogus"], with: 2)
            #expect(bogus == "cork: Unknown option '--bogus'. Did you mean '--board'? (see 'cork move --help')\n", "\(bogus)")
            // A negative number where a positional number goes is named as such, not as an unknown option.
            let negative = try await cork.fails(["column", "wip", "DOING", "-1"], with: 2)
            #expect(negative == "cork: -1 is a negative number, which is not valid here (see 'cork column wip --help')\n", "\(negative)")
            let format = try await cork.fails(["export", "--format", "xml"], with: 2)
            #expect(format.hasPrefix("cork: The value 'xml' is invalid for '--format <format>'.") && format.split(separator: "\n").count == 1, "\(format)")
            try await cork.fails(["show", "--bogus"], with: 2)
            try await cork.fails(["frobnicate"], with: 2)
            try await cork.fails(["edit", "#1"], with: 2)
            try await cork.fails(["add", "Two", "--due", "someday"], with: 2)
            try await cork.fails(["move", "#1", "done", "--top", "--bottom"], with: 2)
            try await cork.fails(["label", "#1", "+x", "--board", "main"], with: 2)
            // 3: a hard WIP limit, and a viewer's op.
            try await cork.ok(["add", "Busy", "--column", "doing"])
            try await withOwner(corkd) { client in
                try await Self.expectApplied(client, .setWIPLimit(column: "doing", limit: WIPLimit(limit: 1, hard: true)))
            }
            let wip = try await cork.fails(["move", "#1", "doing"], with: 3)
            #expect(wip.contains("wip_limit:"), "\(wip)")
            let viewer = try await corkd.invite("carol", role: "viewer")
            try await withOwner(corkd) { client in
                // The invite's own membership may already be applied (then this is a no-op): either way carol is a viewer.
                try await Self.expectApplied(client, .setMember(user: "carol", role: .viewer, name: nil), orNoop: true)
            }
            let forbidden = try await cork.fails(["add", "Nope"], with: 3, url: .some(viewer.description))
            #expect(forbidden.contains("forbidden:"), "\(forbidden)")
            // A viewer may still read and chat.
            let read = try await cork.run(["say", "hi"], url: .some(viewer.description))
            #expect(read.exit.isSuccess, "\(read.standardError)")
            // 4: nothing listening, a wrong fingerprint, a bad token.
            var closed = try #require(InviteURL(corkd.ownerURL))
            closed.port = try CorkProcess.closedPort()
            try await cork.fails(["show"], with: 4, url: .some(closed.description))
            var pinned = try #require(InviteURL(corkd.ownerURL))
            pinned.fingerprint = "sha256:" + String(repeating: "1", count: 64)
            let mismatch = try await cork.fails(["show"], with: 4, url: .some(pinned.description))
            #expect(mismatch.contains("fingerprint"), "\(mismatch)")
            // A URL without its fp, to a self-signed certificate: said in words, not as BoringSSL's error.
            var unpinned = try #require(InviteURL(corkd.ownerURL))
            unpinned.fingerprint = nil
            let unverified = try await cork.fails(["show"], with: 4, url: .some(unpinned.description))
            #expect(unverified.contains("no authority this machine trusts signed it, and the URL pins no fingerprint"), "\(unverified)")
            #expect(!unverified.contains("BoringSSL"), "\(unverified)")
            var token = try #require(InviteURL(corkd.ownerURL))
            token.token = "ck_" + String(repeating: "B", count: 43)
            try await cork.fails(["boards"], with: 4, url: .some(token.description))
            // 5: an unknown card, column, member, label, board.
            let card = try await cork.fails(["show", "#42"], with: 5)
            #expect(card.contains("no card #42"), "\(card)")
            try await cork.fails(["move", "#1", "review"], with: 5)
            try await cork.fails(["assign", "#1", "nobody"], with: 5)
            try await cork.fails(["label", "#1", "-nolabel"], with: 5)
            try await cork.fails(["show", "--board", "secret-plans"], with: 5)
        }
    }

    @Test func watchPrintsAnotherProcessesChangeAsAJSONLine() async throws {
        try await withCorkd { corkd in
            let cork = try CorkProcess(corkd, url: corkd.ownerURL)
            try await cork.ok(["add", "Watch me"])
            let watch = try await cork.watching(name: "cork-watch")
            defer { watch.killAndReap() }
            try await cork.ok(["move", "#1", "doing"])
            try await cork.ok(["say", "moved it"])
            let seen = await watch.waitForOutput(containing: #""text":"moved it""#, timeout: .seconds(20))
            try #require(seen, "watch did not print the chat: \(watch.standardOutput)")
            let lines = try watch.standardOutput.split(separator: "\n").map(CorkProcess.object)
            let move = try #require(lines.first { $0["kind"] as? String == "card.move" })
            #expect(move["type"] as? String == "delta" && move["actor"] as? String == "owner")
            #expect(move["seq"] as? Int == 2 && move["number"] as? Int == 1 && move["card"] != nil)
            #expect((move["changes"] as? [String: [String]])?["column"] == ["todo", "doing"])
            let chat = try #require(lines.first { $0["type"] as? String == "chat" })
            #expect(chat["seq"] as? Int == 3 && chat["kind"] as? String == "chat")
            // The move and the chat came from one-shot commands, which are not present on the board: no join, no leave.
            #expect(!lines.contains { ($0["type"] as? String)?.hasPrefix("presence") == true && $0["user"] as? String == "owner" })

            watch.send(signal: SIGTERM)
            let exit = await watch.waitForExit(timeout: .seconds(10))
            #expect(exit?.isSuccess == true, "after SIGTERM: \(exit?.description ?? "still running")")
            #expect(watch.standardError.contains("connected to"), "\(watch.standardError)")
        }
    }

    @Test func ciBotMovesTheCardThenCommentsOnPassAndFail() async throws {
        let bash = try SpawnedProcess.tool("bash")
        // The bot runs as nobody under a root test run, like the cork it starts (a cork run as root would leave files
        // in the shared config directory that nobody cannot read).
        let script = try Unprivileged.reachable(CorkdProcess.packageRoot.appendingPathComponent("Examples/ci-bot.sh"))
        let corkPath = try Unprivileged.reachable(CorkProcess.executable).path
        try await withCorkd { corkd in
            let bot = try await corkd.invite("ci-bot", role: "bot")
            try await withOwner(corkd) { client in
                try await Self.expectApplied(client, .setMember(user: "ci-bot", role: .bot, name: "CI"))
            }
            let cork = try CorkProcess(corkd, url: bot.description)
            func report(_ result: String, _ message: String) async throws -> SpawnedProcess.Result {
                try await SpawnedProcess.run(
                    bash, [script.path, "ci:build-1207", result, message, "Build 1207"], timeout: .seconds(60),
                    logDirectory: corkd.logDirectory, name: "ci-bot-\(result)",
                    environment: cork.environment(url: bot.description, extra: ["CORK": corkPath]), unprivileged: true)
            }
            let failed = try await report("fail", "3 tests failed")
            #expect(failed.exit.isSuccess, "\(failed.exit): \(failed.standardError)")
            #expect(failed.standardOutput.contains("#1 (ci:build-1207) build failed, moved to DOING"), "\(failed.standardOutput)")
            var card = try #require(try await cork.json(["show", "ref:ci:build-1207"])["card"] as? [String: Any])
            #expect(card["column"] as? String == "doing" && card["title"] as? String == "Build 1207")
            #expect((card["comments"] as? [[String: Any]])?.map { $0["text"] as? String } == ["build failed: 3 tests failed"])

            let passed = try await report("pass", "all green")
            #expect(passed.exit.isSuccess, "\(passed.exit): \(passed.standardError)")
            card = try #require(try await cork.json(["show", "ref:ci:build-1207"])["card"] as? [String: Any])
            #expect(card["column"] as? String == "done" && card["number"] as? Int == 1)
            #expect(
                (card["comments"] as? [[String: Any]])?.map { $0["text"] as? String }
                    == ["build failed: 3 tests failed", "build passed: all green"])
            let board = try await cork.json(["show"])
            #expect(((board["board"] as? [String: Any])?["cards"] as? [Any])?.count == 1)

            // Someone archived the card: the next build of the same ref brings it back and reports on it.
            let owner = try CorkProcess(corkd, url: corkd.ownerURL, configName: "owner")
            try await owner.ok(["archive", "ref:ci:build-1207"])
            let again = try await report("fail", "flaky again")
            #expect(again.exit.isSuccess, "\(again.exit): \(again.standardError)")
            card = try #require(try await cork.json(["show", "ref:ci:build-1207"])["card"] as? [String: Any])
            #expect(card["archived"] as? Bool != true && card["column"] as? String == "doing" && card["number"] as? Int == 1)

            // DONE is full under a hard WIP limit: the move is refused (exit 3) and nothing is posted, so the run after
            // the limit is raised posts its comment once.
            try await owner.ok(["add", "Other", "--column", "done"])
            try await owner.ok(["column", "wip", "done", "1", "--hard"])
            let refused = try await report("pass", "green at last")
            #expect(refused.exit.status == 3, "\(refused.exit): \(refused.standardError)")
            try await owner.ok(["column", "wip", "done", "--none"])
            let retried = try await report("pass", "green at last")
            #expect(retried.exit.isSuccess, "\(retried.exit): \(retried.standardError)")
            card = try #require(try await cork.json(["show", "ref:ci:build-1207"])["card"] as? [String: Any])
            #expect(
                (card["comments"] as? [[String: Any]])?.compactMap { $0["text"] as? String }.filter { $0.contains("green at last") }
                    == ["build passed: green at last"])

            let usage = try await SpawnedProcess.run(
                bash, [script.path, "ci:x", "maybe", "?"], logDirectory: corkd.logDirectory, name: "ci-bot-usage",
                environment: cork.environment(url: bot.description, extra: ["CORK": corkPath]), unprivileged: true)
            #expect(usage.exit.status == 2 && usage.standardError.contains("usage: ci-bot.sh"))
        }
    }

    /// Performs `op` and expects it to change the board.
    static func expectApplied(
        _ client: BoardClient, _ op: Op, orNoop: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let outcome = try await client.perform(op, timeout: .seconds(20))
        if orNoop, case .noop = outcome { return }
        guard case .applied = outcome else {
            Issue.record("\(op.kind): \(outcome)", sourceLocation: sourceLocation)
            return
        }
    }

    /// Runs `body` with a BoardClient connected as the owner to `main`.
    func withOwner(_ corkd: CorkdProcess, _ body: (BoardClient) async throws -> Void) async throws {
        var configuration = try ClientConfiguration(invite: try #require(InviteURL(corkd.ownerURL)))
        configuration.board = "main"
        configuration.reconnect = ReconnectPolicy(maxRounds: 2)
        try await withClient(configuration) { client in
            _ = try await client.ready(timeout: .seconds(20))
            try await body(client)
        }
    }
}
