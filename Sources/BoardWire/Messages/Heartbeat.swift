/// The payload of `ping` and `pong`, which both sides send: an optional request id that the `pong` echoes.
public struct Heartbeat: Hashable, Sendable, Codable {
    /// The id to echo in the `pong`.
    public var req: RequestID?

    /// Makes a ping or pong payload.
    public init(req: RequestID? = nil) { self.req = req }
}
