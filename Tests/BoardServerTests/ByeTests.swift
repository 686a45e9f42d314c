import BoardServer
import BoardTesting
import BoardWire
import Foundation
import NIOCore
import Testing

/// A client that says `bye` is gone from the board at once (Protocol.md, "bye"), even if it then keeps its socket
/// open without answering the server's TLS `close_notify`: corkd's close waits for that answer (NIOSSL's shutdown
/// timeout, 5 s), and presence used to wait with it.
@Suite(.timeLimit(.minutes(2))) struct ByeTests {
    @Test func aByeLeavesTheBoardBeforeTheConnectionHasClosed() async throws {
        try await withTestServer { server in
            let owner = try await present(server.connect())
            let other = try await present(server.connect())
            let joined = try await owner.expect(type: "presence", skipping: ["ping"])

            // The bye is the last thing `other` says: corkd never gets its TLS layer's answer to corkd's close_notify,
            // so corkd's side of the connection stays open until NIOSSL's shutdown timeout.
            let mute = MuteAfterNextFlush()
            try await other.channel.channel.pipeline.addHandler(mute, position: .first).get()
            try await other.send(#"{"type":"bye","reason":"done for today"}"#)

            // corkd answers what came before the bye, shuts its side (close_notify, FIN) and leaves the board at
            // once, although `other` never answers the close_notify.
            let left = try await owner.expect(type: "presence.left", skipping: ["ping"])
            #expect(left["session"] as? String == joined["session"] as? String)

            try? await mute.abort(other.channel.channel)
            await owner.close()
        }
    }
}

/// A revoked user is gone from the board as soon as corkd has said `token_revoked`, even when their client keeps
/// its socket open and never answers corkd's TLS `close_notify` (before: 5 s later, when NIOSSL gave up waiting).
@Suite(.timeLimit(.minutes(2))) struct RevokeLeavesAtOnceTests {
    @Test func aRevokedSessionLeavesTheBoardBeforeTheConnectionHasClosed() async throws {
        try await withTestServer { server in
            let owner = try await present(server.connect())
            let token = try await server.invite("mallory")
            _ = try await owner.expect(type: "delta", skipping: ["ping"])  // mallory is a member now
            let mallory = try await present(server.connect(token: token))
            let joined = try await owner.expect(type: "presence", skipping: ["ping"])

            // Everything mallory's side would send from now on is dropped, its answer to close_notify included.
            let mute = MuteAfterNextFlush(muted: true)
            try await mallory.channel.channel.pipeline.addHandler(mute, position: .first).get()
            _ = try await server.store.revokeTokens(of: "mallory", now: WallClock().now())
            _ = try await server.store.enqueue(.revoke(user: "mallory"), now: WallClock().now())
            _ = try await mallory.expect(type: "error", skipping: ["ping", "presence"])

            let left = try await owner.expect(type: "presence.left", skipping: ["ping"])
            #expect(left["session"] as? String == joined["session"] as? String)
            #expect(mallory.channel.channel.isActive, "corkd's close is still waiting for close_notify: the leave did not")

            try await mute.abort(mallory.channel.channel)
            await owner.close()
        }
    }
}

/// `probe` subscribed to main and present there (its `presence.state` read).
private func present(_ probe: WireProbe) async throws -> WireProbe {
    try await probe.send(#"{"type":"subscribe","board":"main"}"#)
    _ = try await probe.expect(type: "presence.state", skipping: ["snapshot", "subscribed", "presence", "ping"])
    return probe
}

/// At the pipeline's head, below TLS: passes writes until the first flush, then drops every outbound byte and
/// ignores closes, like a peer that keeps its socket open and answers nothing. `abort` closes the socket.
private final class MuteAfterNextFlush: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    /// Touched on the channel's event loop only.
    private var muted: Bool

    /// `muted`: drop everything from the start.
    init(muted: Bool = false) { self.muted = muted }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if muted { promise?.succeed(()) } else { context.write(data, promise: promise) }
    }

    func flush(context: ChannelHandlerContext) {
        guard !muted else { return }
        muted = true
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if muted { promise?.succeed(()) } else { context.close(mode: mode, promise: promise) }
    }

    /// Closes the socket from this handler's place in the pipeline, under the TLS handler (which would wait for the
    /// peer's close_notify).
    func abort(_ channel: any Channel) async throws {
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.context(handlerType: MuteAfterNextFlush.self).close(promise: nil)
        }.get()
    }
}
