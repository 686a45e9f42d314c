/// One caller waiting for one value, with a deadline. Stored in the ``BoardClient`` actor's tables and resumed
/// exactly once by it (value, error, or timeout from its timer loop), always after being removed from its table.
struct Waiter<Value: Sendable>: Sendable {
    /// Unique within the client: how a cancelled caller finds its own waiter.
    let id: UInt64
    let deadline: ContinuousClock.Instant
    let what: String
    let continuation: CheckedContinuation<Value, any Error>

    func resolve(_ result: Result<Value, ClientError>) {
        continuation.resume(with: result.mapError { $0 as any Error })
    }

    /// The error a timed-out wait ends with.
    var timeoutError: ClientError { ClientError(.timeout, "no answer in time while waiting for \(what)") }

    /// The error a wait whose task was cancelled ends with.
    var cancelledError: ClientError { ClientError(.stopped, "cancelled while waiting for \(what)") }
}

/// Narrows an error from a continuation to the client's error type.
func clientError(_ error: any Error) -> ClientError {
    (error as? ClientError) ?? ClientError(.stopped, "\(error)")
}
