import Foundation

/// `Examples/webhook_receiver.py` in a process of its own on 127.0.0.1 (a free port), printing every delivery it
/// accepted (signature and timestamp verified) as one JSON line; the tests read them back.
///
/// Not `Sendable`: one task owns it. `withHookReceiver` stops it on every path.
public final class HookReceiver {
    /// `Examples/webhook_receiver.py`.
    public static let script = CorkdProcess.packageRoot.appendingPathComponent("Examples/webhook_receiver.py")

    /// One delivery the receiver accepted.
    public struct Delivery: Sendable, Hashable {
        /// The body's `delivery` (also `X-Corkboard-Delivery`).
        public var delivery: String
        /// The change's seq.
        public var seq: Int
        /// The change's kind (`card.add`), or `hook.test`.
        public var event: String
        /// The board.
        public var board: String
        /// Whether the receiver had accepted this delivery id before.
        public var repeatDelivery: Bool
    }

    public let process: SpawnedProcess
    /// Where it listens: `http://127.0.0.1:PORT/`.
    public private(set) var url = ""

    /// Starts the receiver with `secret`, answering 503 to the first `fail` valid deliveries.
    public init(secret: String, fail: Int = 0, logDirectory: URL, name: String = "webhook-receiver") async throws {
        let python = try SpawnedProcess.tool("python3")
        var environment = ProcessInfo.processInfo.environment
        environment["CORK_HOOK_SECRET"] = secret
        process = try SpawnedProcess(
            executable: python, arguments: [Self.script.path, "--port", "0", "--json", "--fail", "\(fail)"],
            logDirectory: logDirectory, name: name, environment: environment)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let line = process.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                url = String(line.dropFirst("listening on ".count))
                return
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.killAndReap()
        throw TestFailure("the webhook receiver did not start; stderr: \(process.standardError)")
    }

    /// Every delivery accepted so far, in the order they arrived.
    public var deliveries: [Delivery] {
        process.standardOutput.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("{"), let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let delivery = object["delivery"] as? String, let seq = object["seq"] as? Int,
                let event = object["event"] as? String, let board = object["board"] as? String
            else { return nil }
            return Delivery(delivery: delivery, seq: seq, event: event, board: board, repeatDelivery: object["repeat"] as? Bool ?? false)
        }
    }

    /// What the receiver wrote to stderr (refusals, the 503s it answered on purpose).
    public var log: String { process.standardError }

    /// Waits until `condition` holds for the deliveries so far; false after `timeout`.
    public func wait(timeout: Duration = .seconds(30), until condition: ([Delivery]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(deliveries) { return true }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return condition(deliveries)
    }

    /// Stops the receiver.
    public func stop() { process.killAndReap() }
}

/// Runs `body` with a started receiver, stopped on every path.
public func withHookReceiver<T>(
    secret: String, fail: Int = 0, logDirectory: URL, _ body: (HookReceiver) async throws -> T
) async throws -> T {
    let receiver = try await HookReceiver(secret: secret, fail: fail, logDirectory: logDirectory)
    defer { receiver.stop() }
    return try await body(receiver)
}
