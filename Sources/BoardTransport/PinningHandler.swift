import NIOCore
import NIOSSL

/// Checks the server's leaf certificate against a pinned fingerprint, and names the reason when it differs.
///
/// ``verify(_:promise:)`` is the NIOSSL custom verification callback: it accepts only a leaf whose SHA-256 of the
/// DER equals the pin. NIOSSL reports a refused certificate as a generic handshake failure, so the handler sits
/// right after the `NIOSSLClientHandler` and replaces that error with ``TransportError/pinMismatch(expected:actual:)``.
final class PinningHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let pin: Fingerprint
    private var mismatch: TransportError?

    init(pin: Fingerprint) {
        self.pin = pin
    }

    /// The verification callback; runs on the channel's event loop during the handshake.
    func verify(_ certificates: [NIOSSLCertificate], promise: EventLoopPromise<NIOSSLVerificationResult>) {
        let actual = certificates.first.flatMap { try? Fingerprint(certificate: $0) }
        if let actual, actual == pin {
            promise.succeed(.certificateVerified)
        } else {
            mismatch = .pinMismatch(expected: pin, actual: actual)
            promise.succeed(.failed)
        }
    }

    /// Replaces the handshake failure caused by a refused pin with the pin error.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let mismatch {
            self.mismatch = nil
            context.fireErrorCaught(mismatch)
        } else {
            context.fireErrorCaught(error)
        }
    }
}

@available(*, unavailable)
extension PinningHandler: Sendable {}
