import BoardTesting
import BoardTransport
import Foundation
import Testing

/// Clients that share no code with corkd against the real binary: Python's `ssl` + `json` and `openssl s_client`
/// (RELIABILITY.md b1 T2).
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct InteropTests {
    /// `Tests/Interop/worked_session.py`.
    static let script = CorkdProcess.packageRoot.appendingPathComponent("Tests/Interop/worked_session.py")

    @Test func aPythonStdlibClientPlaysTheWorkedSession() async throws {
        let python = try SpawnedProcess.tool("python3")
        try await withCorkd { corkd in
            let fingerprint = try corkd.pinned()
            let result = try await SpawnedProcess.run(
                python, [InteropTests.script.path, "127.0.0.1", "\(corkd.port)", corkd.ownerToken, "\(fingerprint)"],
                timeout: .seconds(30), logDirectory: corkd.logDirectory, name: "python-worked-session")
            #expect(result.exit.isSuccess, "python3 worked_session.py: \(result.exit)\n\(result.standardError)\(result.standardOutput)")
            #expect(result.standardOutput.contains("worked session ok"), "\(result.standardOutput)")
            // It runs again on the same server (fresh ids, seqs taken from the board).
            let again = try await SpawnedProcess.run(
                python, [InteropTests.script.path, "127.0.0.1", "\(corkd.port)", corkd.ownerToken, "\(fingerprint)"],
                timeout: .seconds(30), logDirectory: corkd.logDirectory, name: "python-worked-session-2")
            #expect(again.exit.isSuccess, "second run: \(again.exit)\n\(again.standardError)")
        }
    }

    /// The same worked session over the protocol's WebSocket (`/v1` on the web listener; Protocol.md, "WebSocket").
    @Test func aPythonStdlibClientPlaysTheWorkedSessionOverWebSocket() async throws {
        let python = try SpawnedProcess.tool("python3")
        try await withCorkd { corkd in
            let port = try #require(corkd.webPort)
            for run in 1...2 {
                let result = try await SpawnedProcess.run(
                    python, [InteropTests.script.path, "--websocket", "ws://127.0.0.1:\(port)/v1", corkd.ownerToken],
                    timeout: .seconds(30), logDirectory: corkd.logDirectory, name: "python-worked-session-ws-\(run)")
                #expect(result.exit.isSuccess, "run \(run): \(result.exit)\n\(result.standardError)\(result.standardOutput)")
                #expect(result.standardOutput.contains("worked session ok"), "\(result.standardOutput)")
                // Runs back to back drain the user's rate bucket (burst 40, 20 ops/s); let it refill.
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    @Test func thePythonClientRefusesACertificateThatIsNotThePinnedOne() async throws {
        let python = try SpawnedProcess.tool("python3")
        try await withCorkd { corkd in
            let wrong = "sha256:" + String(repeating: "0", count: 64)
            let result = try await SpawnedProcess.run(
                python, [InteropTests.script.path, "127.0.0.1", "\(corkd.port)", corkd.ownerToken, wrong],
                timeout: .seconds(30), logDirectory: corkd.logDirectory, name: "python-wrong-pin")
            #expect(result.exit.reason == .exit && result.exit.status == 1, "\(result.exit)")
            #expect(result.standardError.contains("fingerprint mismatch"), "\(result.standardError)")
            #expect(!result.standardOutput.contains("ok"))
        }
    }

    @Test func opensslSClientCompletesTheSessionByHand() async throws {
        let openssl = try SpawnedProcess.tool("openssl")
        try await withCorkd { corkd in
            let client = try SpawnedProcess(
                executable: openssl,
                arguments: ["s_client", "-quiet", "-connect", "127.0.0.1:\(corkd.port)", "-servername", "localhost"],
                logDirectory: corkd.logDirectory, name: "s_client-by-hand", withInput: true)
            defer { client.killAndReap() }
            // Like a person pasting lines: each answer arrives before the next line goes out.
            let steps: [(line: String, answer: String)] = [
                (#"{"type":"hello","version":1,"client":"cork/0.1.0","token":"\#(corkd.ownerToken)","client_id":"cork-alice-laptop"}"#, #""type":"welcome""#),
                (#"{"type":"boards","req":1}"#, #""type":"boards""#),
                (#"{"type":"subscribe","req":2,"board":"main"}"#, #""type":"presence.state""#),
                (#"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"c3","column":"todo","title":"Ship corkd","due":"2026-02-15"}}"#, #""type":"delta""#),
                (#"{"type":"op","board":"main","mut":2,"op":{"kind":"card.close","card":"nope"}}"#, #""type":"reject""#),
                (#"{"type":"ping","req":"t1"}"#, #""type":"pong""#),
            ]
            for step in steps {
                try client.write(step.line + "\n")
                let arrived = await client.waitForOutput(containing: step.answer, timeout: .seconds(10))
                try #require(arrived, "no \(step.answer) after \(step.line.prefix(60)); stdout: \(client.standardOutput.suffix(1500)); stderr: \(client.standardError.suffix(1500))")
            }
            try client.write(#"{"type":"bye","reason":"client"}"# + "\n")
            let exit = await client.waitForExit(timeout: .seconds(5))
            #expect(exit != nil, "the server did not close the connection within 5 s of bye")

            let messages = InteropTests.objects(client.standardOutput)
            let types = messages.compactMap { $0["type"] as? String }
            #expect(types == ["welcome", "boards", "snapshot", "subscribed", "presence.state", "ack", "delta", "reject", "pong"], "\(types)")
            let ack = messages.first { $0["type"] as? String == "ack" }
            let delta = messages.first { $0["type"] as? String == "delta" }
            #expect(ack?["mut"] as? Int == 1)
            #expect(ack?["seq"] as? Int == 1)
            #expect(delta?["seq"] as? Int == 1)
            #expect(delta?["client_id"] as? String == "cork-alice-laptop")
            #expect(messages.first { $0["type"] as? String == "reject" }?["code"] as? String == "not_found")
            #expect(messages.first { $0["type"] as? String == "pong" }?["req"] as? String == "t1")
        }
    }

    /// Protocol.md, "Worked session": "The same lines work from a script: openssl s_client -quiet … < session.jsonl".
    @Test func opensslSClientFedAFileGetsAnAnswerToEveryOp() async throws {
        let openssl = try SpawnedProcess.tool("openssl")
        try await withCorkd { corkd in
            let session = [
                #"{"type":"hello","version":1,"client":"cork/0.1.0","token":"\#(corkd.ownerToken)","client_id":"cork-alice-laptop"}"#,
                #"{"type":"boards","req":1}"#,
                #"{"type":"subscribe","req":2,"board":"main"}"#,
                #"{"type":"op","board":"main","mut":1,"op":{"kind":"card.add","card":"c3","column":"todo","title":"Ship corkd"}}"#,
                #"{"type":"ping","req":"t1"}"#,
                #"{"type":"bye","reason":"client"}"#,
            ].joined(separator: "\n") + "\n"
            let result = try await SpawnedProcess.run(
                openssl, ["s_client", "-quiet", "-connect", "127.0.0.1:\(corkd.port)", "-servername", "localhost"],
                input: session, timeout: .seconds(10), logDirectory: corkd.logDirectory, name: "s_client-file")
            let types = InteropTests.objects(result.standardOutput).compactMap { $0["type"] as? String }
            #expect(types.starts(with: ["welcome", "boards", "snapshot", "subscribed", "presence.state"]), "\(types)")
            #expect(types.contains("pong"), "\(types)")
            // The op was committed (the board is at seq 1 afterwards) …
            let probe = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken)
            try await probe.send(#"{"type":"boards","req":1}"#)
            let boards = try await probe.expect(type: "boards")["boards"] as? [[String: Any]]
            #expect(boards?.first?["seq"] as? Int == 1)
            await probe.close()
            // … so its ack (and delta) must have reached the client before the close that follows bye.
            #expect(types.contains("ack") && types.contains("delta"), "the op was applied but the client saw only \(types)")
        }
    }

    @Test func tls11IsRefusedByTheServerWhileTLS12AndTLS13Succeed() async throws {
        let openssl = try SpawnedProcess.tool("openssl")
        try await withCorkd { corkd in
            func handshake(_ options: [String], _ name: String) async throws -> SpawnedProcess.Result {
                try await SpawnedProcess.run(
                    openssl,
                    ["s_client"] + options + ["-connect", "127.0.0.1:\(corkd.port)", "-servername", "localhost"],
                    timeout: .seconds(10), logDirectory: corkd.logDirectory, name: name)
            }
            // SECLEVEL=0 makes OpenSSL 3 actually offer TLS 1.1, so a failure is the server's refusal (its alert).
            let old = try await handshake(["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"], "tls1_1")
            #expect(!old.exit.isSuccess, "a TLS 1.1 handshake succeeded: \(old.standardOutput.prefix(2000))")
            #expect(old.standardError.contains("alert protocol version"), "not refused by the server: \(old.standardError)")
            #expect(!old.standardError.contains("no protocols available"), "refused locally: \(old.standardError)")

            // TLS 1.2 without ECDHE + AEAD (a CBC suite) is refused too; an AEAD suite is the control.
            let cbc = try await handshake(["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA@SECLEVEL=0"], "tls1_2-cbc")
            #expect(!cbc.exit.isSuccess, "a CBC suite was accepted: \(cbc.standardOutput.prefix(2000))")
            #expect(cbc.standardError.contains("alert handshake failure"), "\(cbc.standardError)")
            let aead = try await handshake(["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"], "tls1_2-aead")
            #expect(aead.exit.isSuccess, "\(aead.standardError)")
            #expect(aead.standardOutput.contains("New, TLSv1.2, Cipher is ECDHE-ECDSA-AES128-GCM-SHA256"))

            let tls12 = try await handshake(["-tls1_2"], "tls1_2")
            #expect(tls12.exit.isSuccess, "TLS 1.2: \(tls12.exit); \(tls12.standardError)")
            #expect(tls12.standardOutput.contains("New, TLSv1.2,"), "\(tls12.standardOutput.prefix(2000))")
            let tls13 = try await handshake(["-tls1_3"], "tls1_3")
            #expect(tls13.exit.isSuccess, "TLS 1.3: \(tls13.exit); \(tls13.standardError)")
            #expect(tls13.standardOutput.contains("New, TLSv1.3,"), "\(tls13.standardOutput.prefix(2000))")

            // The certificate openssl sees is the one the invite URL pins (Protocol.md, "Invite URLs").
            let pem = try #require(InteropTests.firstPEM(tls13.standardOutput), "no certificate in s_client's output")
            let x509 = try await SpawnedProcess.run(
                openssl, ["x509", "-noout", "-fingerprint", "-sha256"], input: pem, timeout: .seconds(10),
                logDirectory: corkd.logDirectory, name: "x509")
            let printed = x509.standardOutput.split(separator: "=", maxSplits: 1).last.map(String.init) ?? ""
            #expect(Fingerprint("sha256:" + printed.trimmingCharacters(in: .whitespacesAndNewlines)) == (try corkd.pinned()),
                "openssl x509 printed \(x509.standardOutput)")
            #expect(corkd.server?.isRunning == true)
        }
    }

    // MARK: Helpers

    /// Every line of `text` that is a JSON object.
    static func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
    }

    /// The first PEM certificate block in `text`.
    static func firstPEM(_ text: String) -> String? {
        guard let start = text.range(of: "-----BEGIN CERTIFICATE-----"),
            let end = text.range(of: "-----END CERTIFICATE-----", range: start.upperBound..<text.endIndex)
        else { return nil }
        return String(text[start.lowerBound..<end.upperBound]) + "\n"
    }
}
