import BoardClient
import BoardCore
import BoardTesting
import Foundation
import Testing

/// A caller's task cancelled while it waits on the client (an op's outcome, an answer, the board) ends the wait at
/// once with `stopped`. The waits used to end only through the client's timer loop, which the same cancellation
/// stops: a task group that gave up on one failed client then waited forever for the nine others.
@Suite(.timeLimit(.minutes(1))) struct ClientCancellationTests {
    @Test func aCancelledWaitForAnOutcomeEndsAtOnceWithStopped() async throws {
        try await withTestServer { server in
            // Nothing listens on the endpoint: the op stays queued and its outcome never comes.
            var configuration = ClientConfiguration(
                endpoints: [.init(host: "127.0.0.1", port: try LoopbackPort.closed())], trust: .pinned(server.fingerprint),
                token: server.ownerToken, board: "main")
            configuration.reconnect = ReconnectPolicy(initial: .milliseconds(50), maximum: .milliseconds(200))
            let (results, sink) = AsyncStream.makeStream(of: String.self)
            let (submitted, submittedSink) = AsyncStream.makeStream(of: Void.self)
            let work = Task {
                do {
                    try await withClient(configuration) { client in
                        let mut = try await client.submit(.chat(text: "never sent"))
                        submittedSink.yield()
                        _ = try await client.outcome(of: mut, timeout: .seconds(600))
                    }
                    sink.yield("returned")
                } catch let error as ClientError {
                    sink.yield("\(error.code): \(error.message)")
                } catch {
                    sink.yield("\(error)")
                }
            }
            for await _ in submitted { break }
            try await Task.sleep(for: .milliseconds(200))
            work.cancel()
            // A bound for the test, not a timing assertion: a wait that never ends reports itself here.
            let bound = Task {
                try? await Task.sleep(for: .seconds(20))
                sink.yield("hung: the cancelled wait did not end")
            }
            var iterator = results.makeAsyncIterator()
            let outcome = await iterator.next() ?? "no outcome"
            bound.cancel()
            #expect(outcome.hasPrefix("stopped: cancelled while waiting for the outcome of op"), "\(outcome)")
        }
    }
}
