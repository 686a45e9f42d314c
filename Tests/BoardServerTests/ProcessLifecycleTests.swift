import BoardTesting
@testable import BoardStore
import BoardTransport
import BoardWire
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real `corkd` binary across its process boundary (tier 4): signals, a damaged store, plaintext on the TLS port,
/// and the admin CLI against a running server (RELIABILITY.md b1 T1, b3 A4, b5 D5).
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct ProcessLifecycleTests {
    @Test func startupPrintsTheAddressTheFingerprintAndTheOwnerInvite() async throws {
        try await withCorkd { corkd in
            let out = corkd.standardOutput
            let fingerprint = try corkd.pinned()
            #expect(out.contains("corkd listening on 127.0.0.1:\(corkd.port)"), "\(out)")
            #expect(out.contains("certificate fingerprint \(fingerprint)"), "\(out)")
            #expect(out.contains("as openssl x509 -fingerprint -sha256 prints it: \(fingerprint.opensslForm)"), "\(out)")
            #expect(out.contains(corkd.ownerURL), "the owner URL on stdout is the one in owner.url: \(out)")
            #expect(corkd.ownerURL.hasPrefix("cork://127.0.0.1:\(corkd.port)/main?token=ck_"))
            let attributes = try FileManager.default.attributesOfItem(
                atPath: corkd.dataDirectory.appendingPathComponent("owner.url").path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "owner.url holds a secret")
            // The fingerprint pins the certificate the server actually presents.
            let probe = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken)
            await probe.close()
        }
    }

    /// A database nothing answers for (PostgreSQL down): said at once, with the reason, and exit 1, which the unit
    /// restarts (the same start works once the database is back). It had waited a minute without a line, then
    /// refused with exit 2, which the unit never retries: a node booted during a database outage stayed down.
    @Test func aDatabaseThatDoesNotAnswerIsExitOneAtOnce() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let closed = try LoopbackPort.closed()
        let result = try await SpawnedProcess.run(
            CorkdProcess.executable,
            ["serve", "--data-dir", corkd.dataDirectory.path, "--host", "127.0.0.1", "--port", "0", "--web-port", "0",
             "--store", "postgres://corkd@127.0.0.1:\(closed)/corkd"],
            timeout: .seconds(40), logDirectory: corkd.logDirectory, name: "database-down", unprivileged: true)
        #expect(result.exit.reason == .exit && result.exit.status == 1, "\(result.exit) \(result.standardError)")
        let said = result.standardError
        #expect(said.contains("127.0.0.1:\(closed)") && said.contains("refused"), "\(said)")
        #expect(said.contains("the database cannot be reached; exiting 1"), "\(said)")
    }

    /// A port another corkd holds: the second says which address is in use and what to do, refuses to serve with
    /// exit 2 (a refusal to start, which the unit does not restart; it exited 1), and nothing else fails loudly on the
    /// way out (the web listener it had started stops with it, not as an error of its own).
    @Test func aPortInUseIsNamedAndTheRestStopsQuietly() async throws {
        try await withCorkd { first in
            let second = try CorkdProcess()
            defer { second.cleanup() }
            let result = try await SpawnedProcess.run(
                CorkdProcess.executable,
                ["serve", "--data-dir", second.dataDirectory.path, "--host", "127.0.0.1", "--port", "\(first.port)"],
                logDirectory: second.logDirectory, name: "busy-port", unprivileged: true)
            #expect(result.exit.reason == .exit && result.exit.status == 2, "\(result.exit)")
            let said = result.standardError
            #expect(said.contains("cannot listen on 127.0.0.1:\(first.port): the address is in use"), "\(said)")
            #expect(said.contains("corkd: refusing to serve."), "\(said)")
            #expect(!said.contains("CancellationError"), "\(said)")
            // The web page's port taken: named in the same words, and the services that had started stop without
            // warnings about a store they could not read.
            guard let webPort = first.webPort else { return }
            let web = try await SpawnedProcess.run(
                CorkdProcess.executable,
                ["serve", "--data-dir", second.dataDirectory.path, "--host", "127.0.0.1", "--port", "0", "--web-port", "\(webPort)"],
                logDirectory: second.logDirectory, name: "busy-web-port", unprivileged: true)
            #expect(web.exit.reason == .exit && web.exit.status == 2, "\(web.exit)")
            let webSaid = web.standardError
            #expect(webSaid.contains("cannot listen for the web page on 127.0.0.1:\(webPort): the address is in use"), "\(webSaid)")
            #expect(webSaid.contains("--web-port chooses another"), "\(webSaid)")
            for noise in ["bind(descriptor", "CancellationError", "cannot read the", "the listener failed"] {
                #expect(!webSaid.contains(noise), "\(noise): \(webSaid)")
            }
            // Refused before the board server listened: no banner saying it serves, no owner.url or listen.json.
            #expect(!web.standardOutput.contains("corkd listening"), "\(web.standardOutput)")
            for file in ["owner.url", "listen.json"] {
                #expect(!FileManager.default.fileExists(atPath: second.dataDirectory.appendingPathComponent(file).path), "\(file)")
            }
        }
    }

    /// The blocker an ordinary machine found: a socket option only root may set ended the accept loop on the first
    /// connection. Under root (CI) corkd runs as nobody here, so this fails if anything on the connection path needs
    /// a privilege again.
    @Test func asAnOrdinaryUserCorkdServesConnectionAfterConnection() async throws {
        try await withCorkd { corkd in
            if Unprivileged.isActive {
                let status = try String(contentsOfFile: "/proc/\(corkd.pid)/status", encoding: .utf8)
                let uid = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }
                #expect(uid?.split(whereSeparator: \.isWhitespace).dropFirst().allSatisfy { $0 == "65534" } == true,
                    "corkd should run as nobody under a root test run: \(uid ?? "no Uid line")")
            }
            for round in 1...3 {
                let probe = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken, clientID: "round-\(round)")
                try await probe.send(#"{"type":"ping","req":\#(round)}"#)
                let pong = try await probe.expect(type: "pong")
                #expect(pong["req"] as? Int == round)
                await probe.close()
            }
            #expect(corkd.server?.isRunning == true, "corkd exited: \(corkd.standardError.suffix(2000))")
            #expect(!corkd.standardError.contains("accept loop ended"), "\(corkd.standardError.suffix(2000))")
            // The log has each login and each refused one with the peer's address (the trail after an incident),
            // and never the token.
            let bad = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
            try await bad.send(#"{"type":"hello","version":1,"client":"process-test","token":"ck_not-a-token"}"#)
            _ = try await bad.expect(type: "error")
            await bad.close()
            let log = corkd.standardError
            #expect(log.contains("address=127.0.0.1") && log.contains("client=round-3") && log.contains("logged in"), "\(log.suffix(3000))")
            #expect(log.contains("code=auth_failed") && log.contains("login refused"), "\(log.suffix(3000))")
            #expect(!log.contains(corkd.ownerToken) && !log.contains("ck_not-a-token"), "a token reached the log")
        }
    }

    @Test func sigtermSaysByeToASubscriberClosesAndExitsZeroWithinFiveSeconds() async throws {
        try await withCorkd { corkd in
            let probe = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken, clientID: "term-1")
            try await probe.send(#"{"type":"subscribe","board":"main"}"#)
            _ = try await probe.expect(type: "snapshot")
            _ = try await probe.expect(type: "subscribed")
            try await probe.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"before the signal"}}"#)
            let ack = try await probe.expect(type: "ack")

            let signalled = ContinuousClock.now
            let exit = try await corkd.terminate(timeout: .seconds(5))
            let took = ContinuousClock.now - signalled
            #expect(exit.isSuccess, "corkd ended with \(exit); stderr: \(corkd.standardError.suffix(2000))")
            print("SIGTERM → exit: \(took)")

            _ = try await probe.expect(type: "delta")
            let bye = try await probe.expect(type: "bye")
            #expect(bye["reason"] as? String == "shutdown")
            let after = try await probe.expectClose()
            #expect(after.isEmpty, "nothing after bye but the close: \(after)")

            // The acknowledged change is still there after the restart.
            try await corkd.restart()
            let again = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken)
            try await again.send(#"{"type":"subscribe","board":"main"}"#)
            #expect(try await again.expect(type: "snapshot")["seq"] as? Int == ack["seq"] as? Int)
            await again.close()
        }
    }

    /// A load balancer keeps connections to the web port open and a browser its page's WebSocket: neither may hold
    /// corkd up on SIGTERM. The health port stops saying `serving` at once, and corkd exits as it does without them
    /// (an idle HTTP connection used to hold it for the minute of its idle timeout, and an open page for as long as
    /// the page stayed open, the whole time answering 200 to the load balancer).
    @Test func sigtermWithAnIdleWebConnectionAndAnOpenPageStillStopsAndTurnsUnhealthyAtOnce() async throws {
        try await withCorkd(options: ["--health", "127.0.0.1:\(try LoopbackPort.closed())"]) { corkd in
            let web = try #require(corkd.webPort)
            let health = try #require(corkd.healthPort)
            #expect(try await HTTPProbe.get("/health", port: health).status == 200)
            let idle = try await KeptAliveHTTP.open(port: web)
            let page = try await WebPageProbe.live(port: web, token: corkd.ownerToken)
            try await page.send(#"{"t":"open","board":"main"}"#)
            _ = try await page.next(where: { $0["t"] as? String == "board" })
            let server = try #require(corkd.server)

            server.send(signal: SIGTERM)
            let signalled = ContinuousClock.now
            var answer = 200
            let deadline = ContinuousClock.now + .seconds(10)
            while answer == 200, ContinuousClock.now < deadline {
                // Refused once corkd has exited: not serving either.
                answer = (try? await HTTPProbe.get("/health", port: health))?.status ?? 0
                if answer == 200 { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(answer != 200, "the health port still says serving 10 s after SIGTERM")
            print("SIGTERM → health \(answer): \(ContinuousClock.now - signalled)")
            let exit = await server.waitForExit(timeout: .seconds(20))
            print("SIGTERM → exit: \(ContinuousClock.now - signalled)")
            #expect(exit?.isSuccess == true, "corkd \(exit.map { "ended with \($0)" } ?? "did not exit within 20 s of SIGTERM"); stderr: \(corkd.standardError.suffix(12000))")
            #expect(await idle.closedByServer(within: .seconds(5)), "the kept-alive HTTP connection was not closed")
            idle.close()
        }
    }

    /// Protocol.md, "Connection lifecycle" 4 and "bye": on shutdown the server sends `bye` to **every** session.
    @Test func sigtermSaysByeToASessionThatIsNotSubscribedToo() async throws {
        try await withCorkd { corkd in
            let idle = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken, clientID: "idle-1")
            try await idle.send(#"{"type":"ping","req":"p"}"#)
            _ = try await idle.expect(type: "pong")
            let exit = try await corkd.terminate(timeout: .seconds(5))
            #expect(exit.isSuccess, "corkd ended with \(exit)")
            let lines = try await idle.expectClose()
            let types = lines.compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["type"] as? String
            }
            #expect(types == ["bye"], "an authenticated session without subscriptions got \(lines) before the close")
        }
    }

    /// A connection that has not said hello yet is told too, and closed at once (it has nothing to drain): it does
    /// not wait out the auth timeout, and it learns that the server is going, not that it was too slow.
    @Test func sigtermSaysByeToAConnectionThatHasNotSaidHello() async throws {
        try await withCorkd { corkd in
            let early = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned(), timeout: .seconds(20))
            try await early.send(#"{"type":"ping","req":"before-hello"}"#)
            _ = try await early.expect(type: "pong")
            let exit = try await corkd.terminate(timeout: .seconds(20))
            #expect(exit.isSuccess, "corkd ended with \(exit)")
            let lines = try await early.expectClose()
            let objects = lines.compactMap { line in try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] }
            #expect(objects.map { $0["type"] as? String } == ["bye"], "a connection before hello got \(lines) before the close")
            #expect(objects.first?["reason"] as? String == "shutdown")
        }
    }

    @Test func aCorruptPageInTheMiddleMakesCorkdRefuseToServeAndLeavesTheFileAlone() async throws {
        try await withCorkd { corkd in
            try await ProcessLifecycleTests.seedAndStop(corkd)
            let page = try await ProcessLifecycleTests.pageQuickCheckNotices(corkd, withLog: false)
            let pageSize = 4096
            let handle = try FileHandle(forWritingTo: corkd.storeFile)
            try handle.seek(toOffset: UInt64(page * pageSize))
            try handle.write(contentsOf: ProcessLifecycleTests.garbage(pageSize, seed: page))
            try handle.close()
            try await ProcessLifecycleTests.expectRefusal(corkd)
        }
    }

    @Test func aGarbageHeaderMakesCorkdRefuseToServeAndLeavesTheFileAlone() async throws {
        try await withCorkd { corkd in
            try await ProcessLifecycleTests.seedAndStop(corkd)
            let handle = try FileHandle(forWritingTo: corkd.storeFile)
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: ProcessLifecycleTests.garbage(100, seed: 7))
            try handle.close()
            try await ProcessLifecycleTests.expectRefusal(corkd)
        }
    }

    /// A store that passes its check but holds a board whose snapshot cannot be decoded is damage too: the same
    /// refusal and the same exit code (2) as a store that fails `quick_check`, never exit 1 as a server that failed
    /// while serving.
    @Test func aSnapshotThatCannotBeDecodedIsRefusedWithTheSameExitCode() async throws {
        try await withCorkd { corkd in
            try await ProcessLifecycleTests.seedAndStop(corkd)
            let sqlite = try SpawnedProcess.tool("sqlite3")
            let result = try await SpawnedProcess.run(
                sqlite, [corkd.storeFile.path, #"UPDATE snapshots SET state = '{"not":"a board"}';"#],
                timeout: .seconds(30), logDirectory: corkd.logDirectory, name: "sqlite3-damage")
            try #require(result.exit.isSuccess, "sqlite3: \(result.standardError)")
            try Unprivileged.handOver(corkd.root)
            let (exit, stderr) = try await corkd.startExpectingExit(timeout: .seconds(60))
            #expect(exit.reason == .exit && exit.status == 2, "\(exit); \(stderr.suffix(2000))")
            #expect(stderr.contains("the data directory is damaged"), "\(stderr.suffix(2000))")
            #expect(stderr.contains("board main"), "the message names the board: \(stderr.suffix(2000))")
        }
    }

    /// A restart after `kill -9` does not read the whole file when nothing wrote it since the
    /// crashed run's last checkpoint, recovers every acknowledged op from the log, and still refuses a file damaged
    /// after the crash.
    @Test func afterKillNineTheUnchangedStoreStartsWithoutQuickCheckAndADamagedOneIsRefused() async throws {
        try await withCorkd { corkd in
            try await ProcessLifecycleTests.seedAndStop(corkd)
            try await corkd.restart(options: ["--rate", "100000", "--burst", "100000"])
            let probe = try await Self.hello(corkd, token: corkd.ownerToken, clientID: "crash")
            // Enough to make the writer checkpoint (1,000 pages of log): the mark the restart trusts is then one
            // the checkpoint hook wrote, not the one the start wrote.
            let seeded = try #require(try FileManager.default.attributesOfItem(atPath: corkd.storeFile.path)[.size] as? Int)
            let description = String(repeating: "Checkpoint me, page after page. ", count: 90)
            var mut = 0
            func storeSize() -> Int { (try? FileManager.default.attributesOfItem(atPath: corkd.storeFile.path)[.size] as? Int) ?? 0 }
            while storeSize() <= seeded, mut < 4000 {
                for _ in 0..<50 {
                    mut += 1
                    try await probe.send(
                        #"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"card.add","card":"f\#(mut)","title":"Fill \#(mut)","description":"\#(description)"}}"#)
                }
                for _ in 0..<50 { _ = try await probe.expect(type: "ack") }
            }
            #expect(storeSize() > seeded, "\(mut) ops and no checkpoint wrote the file")
            // The checkpoints run beside the writer: the mark is stamped once the one that grew the file is done.
            let stamped = ContinuousClock.now + .seconds(10)
            while !SQLiteStore.isMarkedChecked(corkd.storeFile.path), ContinuousClock.now < stamped {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(SQLiteStore.isMarkedChecked(corkd.storeFile.path), "no checkpoint stamped the mark")
            for k in 1...12 {
                mut += 1
                try await probe.send(
                    #"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"card.add","card":"k\#(k)","title":"Crash \#(k)"}}"#)
                let reply = try await probe.expect(type: "ack")
                #expect(reply["mut"] as? Int == mut)
            }
            await probe.close()
            let exit = try await corkd.kill9()
            try #require(exit.reason == .uncaughtSignal, "\(exit)")
            let wal = corkd.storeFile.path + "-wal"
            let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
            #expect(walSize > 0, "the acknowledged ops should be in the log the kill left")

            try await corkd.restart()
            #expect(
                corkd.standardError.contains("stopped without closing, unchanged since its last checkpoint"),
                "stderr: \(corkd.standardError.suffix(2000))")
            let reader = try await Self.hello(corkd, token: corkd.ownerToken, clientID: "reader")
            let snapshot = try await Self.subscribeWhenMember(reader, within: .seconds(30))
            let cards = ((snapshot["state"] as? [String: Any])?["cards"] as? [[String: Any]]) ?? []
            let ids = Set(cards.compactMap { $0["id"] as? String })
            for mut in 1...12 { #expect(ids.contains("k\(mut)"), "card k\(mut) was acknowledged before the kill") }
            #expect(ids.contains("s30"), "the seed's last card is missing")
            await reader.close()

            _ = try await corkd.kill9()
            let page = try await ProcessLifecycleTests.pageQuickCheckNotices(corkd, withLog: true)
            let handle = try FileHandle(forWritingTo: corkd.storeFile)
            try handle.seek(toOffset: UInt64(page * 4096))
            try handle.write(contentsOf: ProcessLifecycleTests.garbage(4096, seed: page))
            try handle.close()
            try await ProcessLifecycleTests.expectRefusal(corkd)
        }
    }

    @Test func plaintextOnTheTLSPortIsClosedWithinOneSecondAndTLSClientsAreStillServed() async throws {
        try await withCorkd { corkd in
            let started = ContinuousClock.now
            let answer = try PlainSocket.sendAndDrain(
                port: corkd.port, bytes: Array(#"{"type":"hello","version":1,"client":"plain","token":"x"}"#.utf8) + [0x0A],
                timeout: .seconds(30))
            let took = ContinuousClock.now - started
            #expect(answer.closedByPeer, "the server kept the plaintext connection open for \(took)")
            print("plaintext → closed: \(took), \(answer.bytes.count) bytes back")
            #expect(!String(decoding: answer.bytes, as: UTF8.self).contains("\"type\""), "no protocol line in plaintext")
            #expect(corkd.server?.isRunning == true)

            let probe = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken)
            try await probe.send(#"{"type":"ping","req":"after-plaintext"}"#)
            #expect(try await probe.expect(type: "pong")["req"] as? String == "after-plaintext")
            await probe.close()
        }
    }

    @Test func anInviteWhileRunningLetsTheNewUserSubscribeWithinASecond() async throws {
        try await withCorkd { corkd in
            let url = try await corkd.invite("dave", role: "editor")
            let invited = ContinuousClock.now
            #expect(url.host == "127.0.0.1")
            #expect(url.port == corkd.port, "the URL names where the server listens")
            #expect(url.fingerprint.flatMap(Fingerprint.init) == (try corkd.pinned()))
            #expect(url.board == "main")
            let dave = try await ProcessLifecycleTests.hello(corkd, token: url.token, expectUser: "dave")
            let snapshot = try await ProcessLifecycleTests.subscribeWhenMember(dave, within: .seconds(30))
            let took = ContinuousClock.now - invited
            // Protocol: the membership is applied within a second (a figure here, not an assertion).
            print("corkd invite → subscribed: \(took)")
            // The membership is in the snapshot, or (when the subscribe raced its commit) in the delta right after it.
            let members = ((snapshot["state"] as? [String: Any])?["members"] as? [[String: Any]]) ?? []
            if !members.contains(where: { $0["id"] as? String == "dave" }) {
                let delta = try await dave.expect(type: "delta")
                let op = delta["op"] as? [String: Any]
                #expect(op?["kind"] as? String == "member.set" && op?["user"] as? String == "dave", "\(delta)")
                #expect(delta["seq"] as? Int == (snapshot["seq"] as? Int ?? -1) + 1)
                #expect(op?["role"] as? String == "editor")
            } else {
                #expect(members.contains { $0["id"] as? String == "dave" && $0["role"] as? String == "editor" })
            }
            try await dave.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"d1","title":"from dave"}}"#)
            #expect(try await dave.expect(type: "ack")["mut"] as? Int == 1)
            await dave.close()
        }
    }

    @Test func aRevokeWhileConnectedClosesTheSessionWithTokenRevokedWithinASecond() async throws {
        try await withCorkd { corkd in
            let url = try await corkd.invite("erin", role: "editor")
            let erin = try await ProcessLifecycleTests.hello(corkd, token: url.token, clientID: "erin-1", expectUser: "erin")
            _ = try await ProcessLifecycleTests.subscribeWhenMember(erin, within: .seconds(30))
            let owner = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken)

            let started = ContinuousClock.now
            let revoke = try corkd.launchAdmin(["revoke", "--user", "erin"])
            defer { revoke.killAndReap() }
            let error = try await erin.expect(type: "error", skipping: ["presence", "presence.state", "presence.left", "ping", "delta"])
            let took = ContinuousClock.now - started
            #expect(error["code"] as? String == "token_revoked")
            #expect(error["close"] as? Bool == true)
            print("corkd revoke → token_revoked: \(took)")
            let rest = try await erin.expectClose()
            #expect(rest.isEmpty, "nothing after token_revoked but the close: \(rest)")
            let exit = await revoke.waitForExit(timeout: .seconds(10))
            #expect(exit?.isSuccess == true, "corkd revoke: \(exit?.description ?? "still running"); \(revoke.standardError)")
            #expect(revoke.standardOutput.contains("revoked"))

            // The token no longer opens a session; other users are unaffected.
            let again = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
            try await again.send(#"{"type":"hello","version":1,"client":"test","token":"\#(url.token)"}"#)
            let refused = try await again.expect(type: "error")
            #expect(refused["code"] as? String == "token_revoked")
            #expect(refused["close"] as? Bool == true)
            _ = try await again.expectClose()
            try await owner.send(#"{"type":"ping","req":"owner-still-here"}"#)
            #expect(try await owner.expect(type: "pong")["req"] as? String == "owner-still-here")
            await owner.close()
        }
    }

    // MARK: Helpers

    /// A pinned TLS probe to the process, after `hello` → `welcome`.
    static func hello(
        _ corkd: CorkdProcess, token: String, clientID: String? = nil, expectUser: String? = nil
    ) async throws -> WireProbe {
        let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
        let id = clientID.map { #","client_id":"\#($0)""# } ?? ""
        try await probe.send(#"{"type":"hello","version":1,"client":"process-test","token":"\#(token)"\#(id)}"#)
        let welcome = try await probe.expect(type: "welcome")
        if let expectUser { #expect(welcome["user"] as? String == expectUser) }
        return probe
    }

    /// Subscribes to `main`, retrying while the invite's membership is not applied yet (`not_found`).
    static func subscribeWhenMember(_ probe: WireProbe, within limit: Duration) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + limit
        while true {
            try await probe.send(#"{"type":"subscribe","req":"s","board":"main"}"#)
            guard let reply = try await probe.nextObject() else { throw TestFailure("closed while subscribing") }
            switch reply["type"] as? String {
            case "snapshot":
                _ = try await probe.expect(type: "subscribed")
                return reply
            case "error" where reply["code"] as? String == "not_found" && ContinuousClock.now < deadline:
                try await Task.sleep(for: .milliseconds(50))
            default:
                throw TestFailure("subscribe answered \(reply)")
            }
        }
    }

    /// Writes a few dozen cards with long descriptions (a store of many pages), then stops corkd cleanly.
    static func seedAndStop(_ corkd: CorkdProcess) async throws {
        let probe = try await hello(corkd, token: corkd.ownerToken, clientID: "seed")
        let description = String(repeating: "The wire contract, page after page. ", count: 80)
        for mut in 1...30 {
            try await probe.send(
                #"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"card.add","card":"s\#(mut)","title":"Seed \#(mut)","description":"\#(description)"}}"#)
            let reply = try await probe.expect(type: "ack")
            #expect(reply["mut"] as? Int == mut)
        }
        await probe.close()
        let exit = try await corkd.terminate()
        try #require(exit.isSuccess, "a clean stop: \(exit)")
        // A clean stop checkpoints the log: the WAL is gone or empty (SQLite may keep the file at 0 bytes).
        let wal = corkd.storeFile.path + "-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        #expect(walSize == 0, "a clean stop checkpoints the log, but \(wal) holds \(walSize) bytes")
    }

    /// Starts corkd on the damaged store and checks that it refuses: non-zero exit within 10 s, a message naming the
    /// problem, and the store's bytes and the directory's files exactly as they were.
    static func expectRefusal(_ corkd: CorkdProcess) async throws {
        let before = try Data(contentsOf: corkd.storeFile)
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: corkd.dataDirectory.path).sorted()
        let (exit, stderr) = try await corkd.startExpectingExit(timeout: .seconds(10))
        #expect(!exit.isSuccess, "corkd served a damaged store: \(exit)")
        #expect(exit.reason == .exit, "a refusal is an orderly exit, not a crash: \(exit); \(stderr.suffix(2000))")
        #expect(exit.status == 2, "a damaged data directory is exit 2: \(exit)")
        #expect(stderr.contains("the data directory is damaged"), "\(stderr.suffix(2000))")
        let lowered = stderr.lowercased()
        #expect(lowered.contains("quick_check") || lowered.contains("corrupt"), "stderr: \(stderr.suffix(2000))")
        let after = try Data(contentsOf: corkd.storeFile)
        #expect(after == before, "corkd changed the damaged store's bytes")
        let filesAfter = try FileManager.default.contentsOfDirectory(atPath: corkd.dataDirectory.path).sorted()
        #expect(filesAfter == filesBefore, "the data directory changed")
    }

    /// A page in the second half of the store whose garbage `PRAGMA quick_check` notices (a free page, or one the
    /// log holds a newer copy of, would not be), found on copies: the damaged file alone, or with the log beside it.
    static func pageQuickCheckNotices(_ corkd: CorkdProcess, withLog: Bool) async throws -> Int {
        let data = try Data(contentsOf: corkd.storeFile)
        let pageSize = 4096
        let pages = data.count / pageSize
        try #require(pages >= 8, "the seeded store has only \(pages) pages")
        let sqlite3 = try SpawnedProcess.tool("sqlite3")
        for page in (pages / 2)..<pages {
            var damaged = data
            damaged.replaceSubrange(page * pageSize..<(page + 1) * pageSize, with: ProcessLifecycleTests.garbage(pageSize, seed: page))
            let directory = corkd.root.appendingPathComponent("probe-\(page)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let copy = directory.appendingPathComponent("store.sqlite")
            try damaged.write(to: copy)
            if withLog {
                try FileManager.default.copyItem(atPath: corkd.storeFile.path + "-wal", toPath: copy.path + "-wal")
            }
            let check = try await SpawnedProcess.run(
                sqlite3, (withLog ? [] : ["-readonly"]) + [copy.path, "PRAGMA quick_check;"], timeout: .seconds(10),
                logDirectory: corkd.logDirectory, name: "sqlite3-probe-\(page)")
            if check.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) != "ok" { return page }
        }
        throw TestFailure("no page in the second half of the store is one quick_check would notice")
    }

    /// Deterministic garbage bytes.
    static func garbage(_ count: Int, seed: Int) -> Data {
        var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        var bytes = [UInt8](repeating: 0, count: count)
        for index in bytes.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }
}

/// A plain TCP client (no TLS) with bounded waits, for what a TLS port must do with plaintext.
enum PlainSocket {
    struct Answer {
        var bytes: [UInt8]
        /// The server closed (EOF or reset) before the timeout.
        var closedByPeer: Bool
    }

    /// Connects to 127.0.0.1:`port`, sends `bytes`, and reads until the server closes or `timeout` passes.
    static func sendAndDrain(port: Int, bytes: [UInt8], timeout: Duration) throws -> Answer {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw TestFailure("connect() to port \(port) failed: errno \(errno)") }
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw TestFailure("send() sent \(sent) of \(bytes.count) bytes") }
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let remaining = deadline - ContinuousClock.now
            let ms = Int32(max(1, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, ms)
            if ready < 0 {
                if errno == EINTR { continue }
                throw TestFailure("poll() failed: errno \(errno)")
            }
            if ready == 0 { break }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[0..<count]
            } else if count == 0 || errno == ECONNRESET {
                return Answer(bytes: received, closedByPeer: true)
            } else if errno != EINTR && errno != EAGAIN {
                throw TestFailure("recv() failed: errno \(errno)")
            }
        }
        return Answer(bytes: received, closedByPeer: false)
    }
}

/// An HTTP/1.1 connection that made one request, read its answer and stays open, as a load balancer's or a
/// browser's kept-alive connection does.
final class KeptAliveHTTP {
    let channel: any Channel
    private let closed: NIOLockedValueBox<Bool>

    private init(channel: any Channel, closed: NIOLockedValueBox<Bool>) {
        self.channel = channel
        self.closed = closed
    }

    /// Connects, sends `GET /icon.svg` and waits (bounded) for the whole answer.
    static func open(port: Int) async throws -> KeptAliveHTTP {
        let answered = NIOLockedValueBox("")
        let closed = NIOLockedValueBox(false)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(answered: answered))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        channel.closeFuture.whenComplete { _ in closed.withLockedValue { $0 = true } }
        try await channel.writeAndFlush(ByteBuffer(string: "GET /icon.svg HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")).get()
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let text = answered.withLockedValue { $0 }
            if let head = text.range(of: "\r\n\r\n"),
                let length = text[..<head.lowerBound].split(separator: "\r\n")
                    .first(where: { $0.lowercased().hasPrefix("content-length:") })
                    .flatMap({ Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }),
                text.utf8.count - text[..<head.upperBound].utf8.count >= length
            {
                guard text.hasPrefix("HTTP/1.1 200") else { throw TestFailure("GET /icon.svg: \(text.prefix(200))") }
                return KeptAliveHTTP(channel: channel, closed: closed)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        channel.close(promise: nil)
        throw TestFailure("no whole answer to GET /icon.svg within 20 s: \(answered.withLockedValue { $0 }.prefix(200))")
    }

    /// Whether the server closed the connection, waiting at most `timeout`.
    func closedByServer(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if closed.withLockedValue({ $0 }) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return closed.withLockedValue { $0 }
    }

    func close() { channel.close(promise: nil) }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let answered: NIOLockedValueBox<String>
        init(answered: NIOLockedValueBox<String>) { self.answered = answered }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let text = String(buffer: unwrapInboundIn(data))
            answered.withLockedValue { $0 += text }
        }
    }
}
