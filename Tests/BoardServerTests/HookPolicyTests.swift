import BoardCore
import BoardStore
import BoardTesting
import Foundation
import NIOCore
import Testing

@testable import BoardServer

/// The pure parts of outgoing webhooks: the event filter, the retry policy, the target checks (SSRF), the signature.
@Suite struct HookPolicyTests {
    @Test func theFilterTakesKindsFamiliesAndStarAndRefusesWhatNamesNoKind() throws {
        let filter = try HookFilter.parse(["card.*", "comment.add"]).get()
        #expect(filter.matches("card.add") && filter.matches("card.move") && filter.matches("comment.add"))
        #expect(!filter.matches("comment.edit") && !filter.matches("chat") && !filter.matches("column.add"))
        #expect(try HookFilter.parse(["*"]).get().matches("chat"))
        for bad in [[], ["card.teleport"], ["cards.*"], [".*"], ["*.add"], Array(repeating: "chat", count: 33)] {
            #expect(throws: HookProblem.self, "\(bad)") { try HookFilter.parse(bad).get() }
        }
    }

    @Test func aQueryHookIsToldOfChangesAboutMatchingCardsOnlyOnTheBoardAtDelivery() throws {
        var board = Board(id: "main", name: "Main", owner: "alice")
        board.labels = [Label(id: "l-inc", name: "incident", color: HexColor(red: 200, green: 0, blue: 0))]
        func card(_ id: CardID, _ number: Int, labels: [LabelID] = [], assignees: [UserID] = [], archived: Bool = false) -> Card {
            Card(
                id: id, number: number, column: "todo", rank: Rank("A")!, title: "Card \(number)", labels: labels,
                assignees: assignees, archived: archived, createdBy: "alice", createdAt: Timestamp(milliseconds: 0))
        }
        board.cards["c1"] = card("c1", 1, labels: ["l-inc"])
        board.cards["c2"] = card("c2", 2)
        board.cards["c3"] = card("c3", 3, labels: ["l-inc"], archived: true)
        board.cards["c4"] = card("c4", 4, assignees: ["alice"])
        board.seq = 9
        let context = QueryContext(today: Day(year: 2026, month: 3, day: 10)!, me: "alice")
        func activity(_ kind: String, card: CardID? = nil) -> Activity {
            Activity(seq: 9, at: Timestamp(milliseconds: 0), actor: "bob", kind: kind, card: card)
        }

        let incidents = HookDelivery(
            events: try HookFilter.parse(["card.*", "comment.add"]).get(), query: try #require(try HookDelivery.parseQuery("label:incident").get()))
        // The kind must pass `events` and the card the query: by the label's name (or id).
        #expect(incidents.passes(activity("card.move", card: "c1"), on: board, context: context))
        #expect(incidents.passes(activity("comment.add", card: "c1"), on: board, context: context))
        #expect(!incidents.passes(activity("card.move", card: "c2"), on: board, context: context), "no incident label")
        #expect(!incidents.passes(activity("checklist.add", card: "c1"), on: board, context: context), "kind not in events")
        // An archived card is out of a query's scope, as in `cork search`; a purged card (not on the board) and a
        // missing board match nothing.
        #expect(!incidents.passes(activity("card.edit", card: "c3"), on: board, context: context))
        #expect(!incidents.passes(activity("card.purge", card: "c9"), on: board, context: context))
        #expect(!incidents.passes(activity("card.move", card: "c1"), on: nil, context: context))
        // Changes about no card never reach a hook with a query, whatever its events.
        let everything = HookDelivery(events: try HookFilter.parse(["*"]).get(), query: try HookDelivery.parseQuery("label:incident").get())
        for kind in ["chat", "column.add", "label.create", "board.rename"] {
            #expect(!everything.passes(activity(kind), on: board, context: context), "\(kind)")
            #expect(!everything.needsBoard(activity(kind)), "\(kind) needs no board")
        }
        #expect(everything.needsBoard(activity("card.move", card: "c1")))
        #expect(!incidents.needsBoard(activity("checklist.add", card: "c1")), "a kind `events` refuses is decided without the board")
        // Without a query the board is never read and every kind `events` passes, about a card or not.
        let plain = HookDelivery(events: try HookFilter.parse(["*"]).get(), query: nil)
        #expect(plain.passes(activity("chat"), on: nil, context: context))
        #expect(plain.passes(activity("card.purge", card: "c9"), on: nil, context: context))
        #expect(!plain.needsBoard(activity("card.move", card: "c1")))
        // `@me` is whoever the context names: the worker gives the hook's creator.
        let mine = HookDelivery(events: try HookFilter.parse(["*"]).get(), query: try HookDelivery.parseQuery("@me").get())
        #expect(mine.passes(activity("card.move", card: "c4"), on: board, context: context))
        #expect(!mine.passes(activity("card.move", card: "c4"), on: board, context: QueryContext(today: context.today, me: "bob")))

        // At `hook.add`: nil stays nil; a parse error names the field and carries the parser's message.
        #expect(try HookDelivery.parseQuery(nil).get() == nil)
        for bad in ["lable:incident", "label:", "\"open", "   ", String(repeating: "a", count: HookDelivery.queryMaxBytes + 1)] {
            guard case .failure(let problem) = HookDelivery.parseQuery(bad) else {
                Issue.record("\(bad.prefix(20)) was taken")
                continue
            }
            #expect(problem.message.hasPrefix("field `query`: "), "\(problem)")
        }
        if case .failure(let problem) = HookDelivery.parseQuery("lable:incident") {
            #expect(problem.message == "field `query`: unknown filter \"lable\" at character 1 (did you mean label?)", "\(problem)")
        }
    }

    @Test func retriesBackOffExponentiallyWithJitterUpToTheMaximum() {
        var policy = HookRetryPolicy()
        policy.initial = .seconds(1)
        policy.maximum = .seconds(60)
        #expect(policy.delay(afterFailures: 1, jitter: 1) == .seconds(1))
        #expect(policy.delay(afterFailures: 1, jitter: 0) == .milliseconds(500))
        #expect(policy.delay(afterFailures: 4, jitter: 1) == .seconds(8))
        #expect(policy.delay(afterFailures: 7, jitter: 1) == .seconds(60))
        #expect(policy.delay(afterFailures: 1000, jitter: 0.5) == .seconds(45))
        for failures in 1...50 {
            let delay = policy.delay(afterFailures: failures, jitter: Double(failures % 7) / 6)
            #expect(delay >= .milliseconds(500) && delay <= .seconds(60))
        }
    }

    @Test func aHookIsMarkedFailingAfterTheWindowAndASuccessForgetsTheFailures() {
        var policy = HookRetryPolicy()
        policy.window = .seconds(86_400)
        let start = Timestamp(milliseconds: 1_000_000)
        var state = HookState(delivered: 4)
        state = policy.failed(state, error: "HTTP 500", now: start)
        #expect(state.failures == 1 && state.failingSince == start && !state.failing && state.lastError == "HTTP 500")
        state = policy.failed(state, error: "timeout", now: Timestamp(milliseconds: start.milliseconds + 86_399_999))
        #expect(state.failures == 2 && state.failingSince == start && !state.failing)
        state = policy.failed(state, error: "timeout", now: Timestamp(milliseconds: start.milliseconds + 86_400_000))
        #expect(state.failing && state.failures == 3 && state.delivered == 4)
        let later = Timestamp(milliseconds: start.milliseconds + 90_000_000)
        #expect(policy.delivered(state, seq: 5, now: later) == HookState(delivered: 5, lastAttemptAt: later))
    }

    @Test func onlyHTTPSUnlessTheOperatorAllowsHTTPToLoopback() throws {
        var settings = HookSettings()
        #expect(throws: HookProblem.self) { try HookTarget.parse("http://127.0.0.1:8080/", settings).get() }
        #expect(throws: HookProblem.self) { try HookTarget.parse("ftp://example.com/", settings).get() }
        #expect(throws: HookProblem.self) { try HookTarget.parse("https://user:pw@example.com/", settings).get() }
        #expect(throws: HookProblem.self) { try HookTarget.parse("example.com/hook", settings).get() }
        #expect(throws: HookProblem.self) { try HookTarget.parse("https://example.com/" + String(repeating: "a", count: 2048), settings).get() }
        #expect(try HookTarget.parse("https://example.com/hook", settings).get().host == "example.com")
        settings.allowHTTPLoopback = true
        #expect(try HookTarget.parse("http://127.0.0.1:8080/", settings).get().scheme == "http")
        #expect(try HookTarget.parse("http://localhost:8080/", settings).get().host == "localhost")
        #expect(try HookTarget.parse("http://[::1]:8080/", settings).get().host == "::1")
        #expect(throws: HookProblem.self) { try HookTarget.parse("http://example.com/", settings).get() }
        #expect(throws: HookProblem.self) { try HookTarget.parse("http://10.0.0.1/", settings).get() }
        // The refusal of another scheme names what the operator allowed.
        guard case .failure(let ftp) = HookTarget.parse("ftp://x/", settings) else {
            Issue.record("ftp accepted")
            return
        }
        #expect(ftp.message.contains("http:// to 127.0.0.1"), "\(ftp.message)")
    }

    @Test func privateLinkLocalAndLoopbackTargetsAreRefusedUnlessAllowed() throws {
        var settings = HookSettings()
        for literal in ["https://10.1.2.3/", "https://172.20.0.1/", "https://192.168.1.1/", "https://100.64.0.1/",
            "https://127.0.0.1/", "https://[::1]/", "https://[fd00::1]/", "https://169.254.169.254/latest/meta-data",
            "https://[fe80::1]/", "https://0.0.0.0/", "https://224.0.0.1/", "https://[::ffff:10.0.0.1]/"]
        {
            #expect(throws: HookProblem.self, "\(literal)") { try HookTarget.parse(literal, settings).get() }
        }
        #expect(try HookTarget.parse("https://93.184.216.34/", settings).get().host == "93.184.216.34")
        settings.allowPrivateTargets = true
        #expect(try HookTarget.parse("https://10.1.2.3/", settings).get().host == "10.1.2.3")
        #expect(try HookTarget.parse("https://127.0.0.1/", settings).get().host == "127.0.0.1")
        // Link-local (cloud metadata) stays refused whatever the operator allows.
        #expect(throws: HookProblem.self) { try HookTarget.parse("https://169.254.169.254/", settings).get() }
    }

    @Test func aNameIsJudgedByWhatItResolvesTo() async throws {
        let target = try HookTarget.parse("https://localhost:9/", HookSettings()).get()
        guard case .failure(let problem) = await target.resolve(HookSettings()) else {
            Issue.record("localhost resolved to an allowed address")
            return
        }
        #expect(problem.message.contains("loopback"), "\(problem)")
        var allowed = HookSettings()
        allowed.allowHTTPLoopback = true
        guard case .success(let address) = await target.resolve(allowed) else {
            Issue.record("localhost refused with loopback allowed")
            return
        }
        #expect(HookAddressRange.of(address) == .loopback)
    }

    @Test func theSignatureIsTheHMACOfTheBodyWithTheSecret() {
        // The Protocol.md example: this body, this secret, this signature (computed independently with Python).
        let body = #"{"activity":{"seq":11,"at":1767261677000,"actor":"alice","kind":"card.move","card":"c3","changes":{"column":["todo","doing"]},"names":{"title":"Ship corkd","number":3,"columns":{"doing":"DOING","todo":"TODO"}}},"board":"main","delivery":"h-4k2m9x0qz1ab.11","event":"card.move","hook":"h-4k2m9x0qz1ab","seq":11,"timestamp":1767261677412}"#
        let secret = "9f3b1c7e2a5d4f60b8e1c2d3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7"
        #expect(
            HookPayload.sign(Array(body.utf8), secret: secret)
                == "sha256=d6967ba76a5e50f33c89f7a01a97287e37940e98954dedd321e0dea968cab4a5")
    }

    @Test func aPayloadCarriesTheChangeAndIsSignedOverItsOwnBytes() throws {
        let hook = HookRecord(
            id: "h-1", board: "main", url: "https://example.com/", events: ["*"], secret: "0123456789abcdef",
            createdBy: "alice", createdAt: Timestamp(milliseconds: 1), state: HookState(delivered: 0))
        let activity = Activity(seq: 3, at: Timestamp(milliseconds: 5), actor: "alice", kind: "chat", text: "hi \"there\"")
        let event = StoredEvent(
            board: "main", seq: 3, at: Timestamp(milliseconds: 5), actor: "alice", clientID: nil, mut: nil,
            op: .chat(text: "hi \"there\""), activity: activity, inverse: nil, undoOf: nil)
        let payload = HookPayload(hook: hook, change: CommittedChange(event), now: Timestamp(milliseconds: 77))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(payload.body)) as? [String: Any])
        #expect(object["board"] as? String == "main" && object["seq"] as? Int == 3 && object["event"] as? String == "chat")
        #expect(object["delivery"] as? String == "h-1.3" && object["timestamp"] as? Int == 77 && object["hook"] as? String == "h-1")
        #expect((object["activity"] as? [String: Any])?["text"] as? String == "hi \"there\"")
        #expect(payload.signature == HookPayload.sign(payload.body, secret: "0123456789abcdef"))
        let headers = Dictionary(uniqueKeysWithValues: payload.headers)
        #expect(headers["X-Corkboard-Delivery"] == "h-1.3" && headers["X-Corkboard-Timestamp"] == "77")
        #expect(headers["X-Corkboard-Event"] == "chat" && headers["X-Corkboard-Signature"] == payload.signature)
    }
    @Test func aReceiverThatIsNotListeningIsNamedAsRefused() async throws {
        var settings = HookSettings()
        settings.allowHTTPLoopback = true
        settings.requestTimeout = .seconds(1)
        let hook = HookRecord(
            id: "h-2", board: "main", url: "http://127.0.0.1/", events: ["*"], secret: "0123456789abcdef",
            createdBy: "alice", createdAt: Timestamp(milliseconds: 1), state: HookState(delivered: 0))
        let payload = HookPayload.test(hook: hook, seq: 1, now: Timestamp(milliseconds: 2), nonce: "n")
        let port = try LoopbackPort.closed()
        let outcome = await HookSender.send(payload, to: "http://127.0.0.1:\(port)/hook", settings: settings)
        guard case .failed(nil, let reason) = outcome else {
            Issue.record("a closed port answered: \(outcome)")
            return
        }
        #expect(reason.hasPrefix("connection refused"), "\(reason)")
        #expect(!reason.contains("reset") && !reason.contains("errno"), "\(reason)")
        #expect(reason.filter { $0 == "(" }.count == reason.filter { $0 == ")" }.count, "\(reason)")
    }
}
