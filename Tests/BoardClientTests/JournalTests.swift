import BoardClient
import BoardCore
import BoardTesting
import BoardWire
import Foundation
import Testing

/// A bot that dies and restarts with its journal loses nothing and doubles nothing.
@Suite struct JournalTests {
    static func temporaryJournal() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("cork-journal-\(UUID().uuidString)/journal.json")
    }

    @Test func opsQueuedOfflineSurviveARestartAndAreAppliedOnce() async throws {
        try await withTestServer { server in
            let journal = Self.temporaryJournal()
            defer { try? FileManager.default.removeItem(at: journal.deletingLastPathComponent()) }
            // First life: the server is unreachable (a closed port); three chats queue and the process "dies".
            var offline = LiveClientTests.configuration(server)
            offline.endpoints = [.init(host: "127.0.0.1", port: 1)]
            offline.journal = journal
            try await withClient(offline) { client in
                for n in 1...3 { try await client.submit(.chat(text: "queued \(n)")) }
                #expect(await client.pendingOps.count == 3)
            }
            // Second life: same journal, the real server.
            var online = LiveClientTests.configuration(server)
            online.journal = journal
            try await withClient(online) { client in
                _ = try await client.ready()
                for mut in UInt64(1)...3 {
                    guard case .applied = try await client.outcome(of: mut) else {
                        Issue.record("op \(mut) was not applied")
                        return
                    }
                }
                let chats = try await client.history(limit: 100).activities.compactMap(\.text)
                #expect(chats == ["queued 1", "queued 2", "queued 3"])
            }
            let saved = try JSONDecoder().decode(ClientJournal.self, from: Data(contentsOf: journal))
            #expect(saved.pending.isEmpty)
            #expect(saved.nextMut == 4)
            #expect(saved.clientID != nil)
        }
    }

    @Test func opsAppliedButNeverAcknowledgedAreNotAppliedAgainAfterARestart() async throws {
        try await withTestServer { server in
            // A client sent muts 1 and 2 and the server applied them, but it died before reading the acks.
            let probe = try await server.connect(clientID: "bot-1")
            for (mut, text) in [(1, "first"), (2, "second")] {
                try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"\#(text)"}}"#)
                _ = try await probe.expect(type: "ack")
            }
            await probe.close()
            // Its journal still lists them, plus mut 3, which never left the machine.
            let journal = Self.temporaryJournal()
            defer { try? FileManager.default.removeItem(at: journal.deletingLastPathComponent()) }
            try FileManager.default.createDirectory(at: journal.deletingLastPathComponent(), withIntermediateDirectories: true)
            let pending = [(1, "first"), (2, "second"), (3, "third")].map { mut, text in
                PendingOp(board: "main", mut: UInt64(mut), request: .op(.chat(text: text)))
            }
            try JSONEncoder().encode(ClientJournal(clientID: "bot-1", nextMut: 4, pending: pending)).write(to: journal)

            var configuration = LiveClientTests.configuration(server)
            configuration.journal = journal
            try await withClient(configuration) { client in
                _ = try await client.ready()
                var seqs: [UInt64] = []
                for mut in UInt64(1)...3 {
                    guard case .applied(let seq) = try await client.outcome(of: mut) else {
                        Issue.record("op \(mut) did not complete as applied")
                        return
                    }
                    seqs.append(seq)
                }
                #expect(seqs == seqs.sorted())
                let chats = try await client.history(limit: 100).activities.compactMap(\.text)
                #expect(chats == ["first", "second", "third"])
            }
        }
    }

    @Test func aSecondProcessCannotUseAJournalInUse() async throws {
        let journal = Self.temporaryJournal()
        defer { try? FileManager.default.removeItem(at: journal.deletingLastPathComponent()) }
        var configuration = ClientConfiguration(
            endpoints: [.init(host: "127.0.0.1", port: 1)], trust: .systemRoots, token: "x", board: "main")
        configuration.journal = journal
        try await withClient(configuration) { _ in
            do {
                try await withClient(configuration) { _ in Issue.record("a second client opened the same journal") }
            } catch let error as ClientError {
                #expect(error.code == .journal)
            }
        }
    }

    @Test func submitReturnsOnceItsOpIsOnDiskWhileConcurrentSubmitsShareTheWriter() async throws {
        let journal = Self.temporaryJournal()
        defer { try? FileManager.default.removeItem(at: journal.deletingLastPathComponent()) }
        var configuration = ClientConfiguration(
            endpoints: [.init(host: "127.0.0.1", port: 1)], trust: .systemRoots, token: "x", board: "main")
        configuration.journal = journal
        try await withClient(configuration) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 1...20 {
                    group.addTask {
                        let mut = try await client.submit(.chat(text: "chat \(n)"))
                        // The file is replaced by rename, so a read sees a whole journal; offline, nothing completes,
                        // so every later journal still holds this op.
                        let saved = try JSONDecoder().decode(ClientJournal.self, from: Data(contentsOf: journal))
                        #expect(saved.pending.contains { $0.mut == mut }, "op \(mut) returned before it was on disk")
                    }
                }
                try await group.waitForAll()
            }
            #expect(await client.pendingOps.count == 20)
        }
        let saved = try JSONDecoder().decode(ClientJournal.self, from: Data(contentsOf: journal))
        #expect(saved.pending.map(\.mut) == Array(1...20))
        #expect(saved.nextMut == 21)
    }
}
