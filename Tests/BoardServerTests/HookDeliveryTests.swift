import BoardCore
import BoardTesting
import Foundation
import Testing

@testable import BoardServer

/// Outgoing webhooks end to end against an in-process corkd and `Examples/webhook_receiver.py` on 127.0.0.1: the
/// receiver verifies every signature and timestamp, fails on purpose, and records what it accepted.
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct HookDeliveryTests {
    static let secret = "test-secret-0123456789"

    /// Fast retries, http:// to loopback allowed (the receiver is plain HTTP on 127.0.0.1).
    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.hooks.allowHTTPLoopback = true
        configuration.hooks.retry.initial = .milliseconds(10)
        configuration.hooks.retry.maximum = .milliseconds(50)
        configuration.hooks.idlePoll = .milliseconds(200)
    }

    /// An owner's session on `main` that sends requests and ops and reads their answers.
    final class Owner {
        let probe: WireProbe
        var mut = 0
        var req = 100
        init(_ probe: WireProbe) { self.probe = probe }

        /// Sends a request line (its `req` is filled in) and returns the answer (`ok`, `hooks` or `error`).
        func request(_ fields: String) async throws -> [String: Any] {
            req += 1
            try await probe.send(#"{"req":\#(req),\#(fields)}"#)
            while true {
                guard let answer = try await probe.nextObject() else { throw TestFailure("closed while waiting for req \(req)") }
                if answer["req"] as? Int == req { return answer }
            }
        }

        /// Applies an op and returns its seq.
        @discardableResult
        func apply(_ op: String) async throws -> Int {
            mut += 1
            try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":\#(op)}"#)
            let ack = try await probe.expect(type: "ack", skipping: ["ping", "delta", "presence", "presence.state"])
            guard ack["mut"] as? Int == mut, let seq = ack["seq"] as? Int else { throw TestFailure("not the ack of \(mut): \(ack)") }
            return seq
        }

        /// Adds a hook and returns its id.
        func addHook(_ url: String, events: String = #"["card.*","comment.add"]"#) async throws -> String {
            let answer = try await request(
                #""type":"hook.add","board":"main","url":"\#(url)","events":\#(events),"secret":"\#(HookDeliveryTests.secret)""#)
            guard answer["type"] as? String == "ok", let hook = answer["hook"] as? String else { throw TestFailure("hook.add: \(answer)") }
            #expect(answer["secret"] == nil, "a chosen secret is not echoed")
            return hook
        }

        /// The board's hooks.
        func hooks() async throws -> [[String: Any]] {
            let answer = try await request(#""type":"hook.list","board":"main""#)
            guard answer["type"] as? String == "hooks", let hooks = answer["hooks"] as? [[String: Any]] else {
                throw TestFailure("hook.list: \(answer)")
            }
            return hooks
        }
    }

    static func logs(_ server: TestServer) -> URL { server.directory.appendingPathComponent("logs") }

    @Test func signedChangesArriveInSeqOrderAfterRetriesAndNothingTwice() async throws {
        let metrics = ServerMetrics()
        try await withTestServer(configure: {
            Self.configure(&$0)
            $0.metrics = metrics
        }) { server in
            try await withHookReceiver(secret: Self.secret, fail: 3, logDirectory: Self.logs(server)) { receiver in
                let owner = Owner(try await server.connect())
                let hook = try await owner.addHook(receiver.url)
                var expected: [Int] = []
                for n in 1...6 { expected.append(try await owner.apply(#"{"kind":"card.add","card":"c\#(n)","title":"Card \#(n)"}"#)) }
                try await owner.apply(#"{"kind":"chat","text":"not for the hook"}"#)
                expected.append(try await owner.apply(#"{"kind":"comment.add","card":"c1","comment":"k1","text":"looks good"}"#))
                expected.append(try await owner.apply(#"{"kind":"card.move","card":"c2","to_column":"doing"}"#))
                let all = await receiver.wait { $0.count >= expected.count }
                #expect(all, "accepted: \(receiver.deliveries.map(\.seq)); receiver: \(receiver.log)")
                let deliveries = receiver.deliveries
                #expect(deliveries.map(\.seq) == expected)
                #expect(deliveries.allSatisfy { !$0.repeatDelivery && $0.board == "main" })
                #expect(deliveries.map(\.delivery) == expected.map { "\(hook).\($0)" })
                #expect(deliveries.last?.event == "card.move" && deliveries[6].event == "comment.add")
                #expect(receiver.log.components(separatedBy: "503 on purpose").count - 1 == 3, "\(receiver.log)")
                #expect(!receiver.log.contains("refused"), "every delivery is signed and fresh: \(receiver.log)")
                // The cursor is durable and at the last change; the failures were forgotten with the first success.
                var listed = try await owner.hooks()
                for _ in 0..<200 where listed.first?["delivered_seq"] as? Int != expected.last {
                    try await Task.sleep(for: .milliseconds(20))
                    listed = try await owner.hooks()
                }
                #expect(listed.count == 1 && listed[0]["hook"] as? String == hook)
                #expect(listed[0]["delivered_seq"] as? Int == expected.last && listed[0]["failures"] as? Int == 0)
                #expect(listed[0]["failing"] as? Bool == false && listed[0]["last_error"] == nil)
                #expect(metrics.value(of: #"corkd_hook_attempts_total{outcome="failed"}"#) == 3)
                await owner.probe.close()
            }
        }
    }

    @Test func aHookWithAQueryIsToldOnlyOfChangesToTheCardsThatMatchIt() async throws {
        try await withTestServer(configure: { Self.configure(&$0) }) { server in
            try await withHookReceiver(secret: Self.secret, logDirectory: Self.logs(server)) { receiver in
                let owner = Owner(try await server.connect())
                // A query that does not parse is refused with the parser's message.
                let bad = try await owner.request(
                    #""type":"hook.add","board":"main","url":"\#(receiver.url)","events":["*"],"query":"lable:incident""#)
                #expect(bad["code"] as? String == "bad_request", "\(bad)")
                #expect(bad["message"] as? String == #"field `query`: unknown filter "lable" at character 1 (did you mean label?)"#, "\(bad)")
                let answer = try await owner.request(
                    #""type":"hook.add","board":"main","url":"\#(receiver.url)","events":["*"],"query":"label:incident","secret":"\#(Self.secret)""#)
                let hook = try #require(answer["hook"] as? String, "\(answer)")
                // A change is judged on the board at delivery; before c2 gets the label below, the test waits until every
                // earlier change was judged, so the expectation does not depend on how far behind the worker is.
                try await owner.apply(##"{"kind":"label.create","label":"incident","name":"incident","color":"#d73a4a"}"##)
                var expected = [try await owner.apply(#"{"kind":"card.add","card":"c1","title":"Pager down","labels":["incident"]}"#)]
                try await owner.apply(#"{"kind":"card.add","card":"c2","title":"Tidy the wiki"}"#)
                try await owner.apply(#"{"kind":"chat","text":"about no card"}"#)
                try await owner.apply(#"{"kind":"comment.add","card":"c2","comment":"k1","text":"not an incident"}"#)
                expected.append(try await owner.apply(#"{"kind":"comment.add","card":"c1","comment":"k2","text":"on it"}"#))
                try await owner.apply(#"{"kind":"card.move","card":"c2","to_column":"doing"}"#)
                try await owner.apply(#"{"kind":"column.add","column":"qa","name":"QA"}"#)
                expected.append(try await owner.apply(#"{"kind":"card.move","card":"c1","to_column":"doing"}"#))
                var judged = try await owner.hooks()
                for _ in 0..<500 where (judged.first?["delivered_seq"] as? Int ?? 0) < expected.last! {
                    try await Task.sleep(for: .milliseconds(20))
                    judged = try await owner.hooks()
                }
                // A card that gets the label later is matched from then on (on the board at delivery).
                expected.append(try await owner.apply(#"{"kind":"card.label","card":"c2","label":"incident"}"#))
                let last = try await owner.apply(#"{"kind":"chat","text":"the last change, skipped"}"#)

                // Skipped changes move the cursor too: once it is at the last change, nothing more can come.
                var listed = try await owner.hooks()
                for _ in 0..<500 where listed.first?["delivered_seq"] as? Int != last {
                    try await Task.sleep(for: .milliseconds(20))
                    listed = try await owner.hooks()
                }
                #expect(listed.first?["delivered_seq"] as? Int == last, "\(listed)")
                #expect(listed.first?["hook"] as? String == hook && listed.first?["query"] as? String == "label:incident", "\(listed)")
                // (The receiver's output is read through a pipe: wait, bounded, for its lines.)
                _ = await receiver.wait { $0.count >= expected.count }
                #expect(receiver.deliveries.map(\.seq) == expected, "\(receiver.log)")
                #expect(receiver.deliveries.map(\.event) == ["card.add", "comment.add", "card.move", "card.label"])
                #expect(!receiver.log.contains("refused"), "\(receiver.log)")
                await owner.probe.close()
            }
        }
    }

    @Test func aHookFailingForTheWholeWindowIsMarkedFailingKeepsItsChangesAndRecovers() async throws {
        try await withTestServer(configure: {
            Self.configure(&$0)
            $0.hooks.retry.window = .zero
        }) { server in
            try await withHookReceiver(secret: Self.secret, fail: 30, logDirectory: Self.logs(server)) { receiver in
                let owner = Owner(try await server.connect())
                _ = try await owner.addHook(receiver.url)
                let first = try await owner.apply(#"{"kind":"card.add","card":"c1","title":"One"}"#)
                let second = try await owner.apply(#"{"kind":"card.add","card":"c2","title":"Two"}"#)
                var sawFailing = false
                let deadline = ContinuousClock.now + .seconds(20)
                while ContinuousClock.now < deadline, !sawFailing {
                    let hook = try await owner.hooks()[0]
                    if hook["failing"] as? Bool == true {
                        sawFailing = true
                        #expect(hook["last_error"] as? String == "HTTP 503" && (hook["failures"] as? Int ?? 0) >= 1)
                        #expect(hook["delivered_seq"] as? Int == first - 1, "nothing delivered while failing")
                    }
                }
                #expect(sawFailing)
                #expect(await receiver.wait { $0.count >= 2 }, "\(receiver.log)")
                #expect(receiver.deliveries.map(\.seq) == [first, second])
                // The receiver answered before the cursor was recorded: wait (bounded) for the record.
                var hook = try await owner.hooks()[0]
                for _ in 0..<200 where hook["delivered_seq"] as? Int != second {
                    try await Task.sleep(for: .milliseconds(20))
                    hook = try await owner.hooks()[0]
                }
                #expect(hook["failing"] as? Bool == false && hook["failures"] as? Int == 0 && hook["delivered_seq"] as? Int == second)
                await owner.probe.close()
            }
        }
    }

    @Test func aReceiverThatNeverAnswersDelaysNoAck() async throws {
        try await withTestServer(configure: {
            Self.configure(&$0)
            $0.hooks.requestTimeout = .seconds(120)
        }) { server in
            // Accepts connections and never answers.
            let python = try SpawnedProcess.tool("python3")
            let silent = try SpawnedProcess(
                executable: python,
                arguments: ["-c", "import socket\ns=socket.socket()\ns.bind(('127.0.0.1',0))\ns.listen(64)\nprint(s.getsockname()[1],flush=True)\nc=[]\nwhile True: c.append(s.accept())"],
                logDirectory: Self.logs(server), name: "silent")
            defer { silent.killAndReap() }
            var port = 0
            for _ in 0..<500 where port == 0 {
                port = Int(silent.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                try await Task.sleep(for: .milliseconds(10))
            }
            try #require(port > 0)
            let owner = Owner(try await server.connect())
            _ = try await owner.addHook("http://127.0.0.1:\(port)/", events: #"["*"]"#)
            // Every op is acknowledged (each within the probe's 10 s) while the hook's first delivery hangs for 120 s.
            var last = 0
            for n in 1...40 { last = try await owner.apply(#"{"kind":"card.add","card":"c\#(n)","title":"Card \#(n)"}"#) }
            #expect(last >= 40)
            let hook = try await owner.hooks()[0]
            #expect(hook["delivered_seq"] as? Int == last - 40, "nothing delivered: the receiver never answered")
            await owner.probe.close()
        }
    }

    @Test func onlyTheOwnerManagesHooksAndBadTargetsAreRefused() async throws {
        try await withTestServer { server in
            let owner = Owner(try await server.connect())
            // Feature detection: corkd lists `hooks` in welcome.features.
            let probe = try await WireProbe.connect(port: server.port, fingerprint: server.fingerprint)
            try await probe.send(#"{"type":"hello","version":1,"client":"test","token":"\#(server.ownerToken)"}"#)
            #expect(try await probe.expect(type: "welcome")["features"] as? [String] == ["hooks", "inbox", "hook_query"])
            await probe.close()

            func refusal(_ fields: String) async throws -> (code: String, message: String) {
                let answer = try await owner.request(fields)
                return (answer["code"] as? String ?? "\(answer)", answer["message"] as? String ?? "")
            }
            let add = #""type":"hook.add","board":"main","events":["card.*"],"url":"#
            #expect(try await refusal(add + #""http://127.0.0.1:9/""#).message.contains("only https://"))
            #expect(try await refusal(add + #""https://10.0.0.7/hook""#).message.contains("private address"))
            #expect(try await refusal(add + #""https://169.254.169.254/""#).code == "bad_request")
            #expect(try await refusal(#""type":"hook.add","board":"main","events":["cards.*"],"url":"https://example.com/""#).message.contains("events"))
            #expect(try await refusal(#""type":"hook.add","board":"main","events":["*"],"url":"https://example.com/","secret":"short""#).message.contains("secret"))
            #expect(try await refusal(#""type":"hook.add","board":"nope","events":["*"],"url":"https://example.com/""#).code == "not_found")
            #expect(try await refusal(#""type":"hook.remove","board":"main","hook":"h-none""#).code == "not_found")

            // A name is checked by what it resolves to: localhost is loopback, refused without the operator flag.
            let made = try await owner.request(add + #""https://localhost:9/hook""#)
            let hook = try #require(made["hook"] as? String)
            let secret = try #require(made["secret"] as? String, "a made secret is shown once")
            #expect(secret.count == 64)
            let test = try await owner.request(#""type":"hook.test","board":"main","hook":"\#(hook)""#)
            #expect(test["delivered"] as? Bool == false && (test["detail"] as? String ?? "").contains("loopback"), "\(test)")
            #expect(try await owner.hooks().first?["secret"] == nil, "hook.list never shows a secret")

            // An editor gets forbidden; a non-member not_found, as for a missing board.
            let editor = Owner(try await server.connect(token: try await server.invite("ed", role: .editor)))
            // The invite reaches the board through the admin queue: not_found until then.
            var code = ""
            for _ in 0..<200 where code != "forbidden" {
                code = try await editor.request(#""type":"hook.list","board":"main""#)["code"] as? String ?? ""
                if code != "forbidden" { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(code == "forbidden")
            #expect(try await editor.request(#""type":"hook.remove","board":"main","hook":"\#(hook)""#)["code"] as? String == "forbidden")
            #expect(try await owner.request(#""type":"hook.remove","board":"main","hook":"\#(hook)""#)["type"] as? String == "ok")
            #expect(try await owner.hooks().isEmpty)
            await editor.probe.close()
            await owner.probe.close()
        }
    }
}
