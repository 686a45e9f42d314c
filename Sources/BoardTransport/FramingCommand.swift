/// An outbound user event that changes the pipeline's limits once the session is authenticated.
///
/// Send it from any thread with `channel.triggerUserOutboundEvent(FramingCommand.authenticated)` right after the
/// session writes `welcome`. ``OutboxHandler`` raises its cap from `preauthOutboxBytes` to `outboxBytes` and passes
/// the event on; ``LineFramer`` raises its line cap from `preauthLineMax` to `lineMax` and completes the promise.
public enum FramingCommand: Hashable, Sendable {
    /// The peer is authenticated: switch to the post-auth line and outbox caps.
    case authenticated
    /// The server is done listening: ``LineFramer`` drops every further byte and tells the handlers after it that
    /// the input is closed (`ChannelEvent.inputClosed`, which ends a `NIOAsyncChannel`'s inbound stream), at once.
    /// For a connection the server closes on its own (a revoked token, shutdown): under TLS the close itself waits
    /// for the peer's `close_notify` (up to NIOSSL's 5 s shutdown timeout), and nothing the peer sends meanwhile
    /// may reach the session, nor the session stay on its boards that long.
    case endInput
}

/// Outbound user events that mark bulk writes: catch-up deltas and snapshots sent in answer to a request.
///
/// Writes between ``beginBulk`` and ``endBulk`` are not counted against the outbox cap (a resume may legitimately
/// send several megabytes at once, bounded by the retained history), but they are still timed by the write
/// deadline, so a peer that stops reading is still found. Live fan-out stays capped. Send both events and the
/// writes in one event-loop hop so nothing interleaves.
public enum OutboxCommand: Hashable, Sendable {
    /// The following writes are bulk.
    case beginBulk
    /// Bulk writes end here.
    case endBulk
}
