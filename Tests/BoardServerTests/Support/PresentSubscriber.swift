import BoardTesting

extension TestServer {
    /// A session as `clientID`, subscribed to main and present there: past its snapshot, `subscribed` and the
    /// board's presence list, so what it reads next is what others do.
    func presentSubscriber(_ clientID: String) async throws -> WireProbe {
        let probe = try await connect(clientID: clientID)
        try await probe.send(#"{"type":"subscribe","board":"main"}"#)
        _ = try await probe.expect(type: "subscribed", skipping: ["snapshot", "presence.state", "delta", "ping"])
        _ = try await probe.expect(type: "presence.state")
        return probe
    }
}
