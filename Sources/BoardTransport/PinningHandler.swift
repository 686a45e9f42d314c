import Foundation
import NIOCore
import NIOSSL
import X509

/// Checks the server's leaf certificate against a pinned fingerprint, and names the reason when it differs.
///
/// ``verify(_:promise:)`` is the NIOSSL custom verification callback. It accepts a leaf whose SHA-256 of the DER
/// equals the pin. A certificate issued by a CA changes at every renewal, and a client that pinned the old one
/// would be locked out: a leaf with another fingerprint is therefore accepted when its chain verifies against the
/// renewal roots (the system's trusted roots) and names the host the client dialled, as a browser would accept it.
/// A self-signed certificate never does, so a changed self-signed certificate is still refused.
///
/// NIOSSL reports a refused certificate as a generic handshake failure, so the handler sits right after the
/// `NIOSSLClientHandler` and replaces that error with ``TransportError/pinMismatch(expected:actual:)``.
final class PinningHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let pin: Fingerprint
    private let hostname: String?
    private let renewalRoots: CertificateStore?
    private var mismatch: TransportError?

    /// A check of `pin`; `hostname` is the name (or IP address) the client dialled, which a renewed certificate
    /// must name; `renewalRoots` nil stands for the system's trusted roots.
    init(pin: Fingerprint, hostname: String?, renewalRoots: CertificateStore?) {
        self.pin = pin
        self.hostname = hostname
        self.renewalRoots = renewalRoots
    }

    /// The verification callback; runs on the channel's event loop during the handshake.
    func verify(_ certificates: [NIOSSLCertificate], promise: EventLoopPromise<NIOSSLVerificationResult>) {
        let actual = certificates.first.flatMap { try? Fingerprint(certificate: $0) }
        if let actual, actual == pin { return promise.succeed(.certificateVerified) }
        let refusal = TransportError.pinMismatch(expected: pin, actual: actual)
        let chain = certificates.compactMap { try? Certificate(derEncoded: $0.toDERBytes()) }
        guard let hostname, let leaf = chain.first, chain.count == certificates.count else {
            mismatch = refusal
            return promise.succeed(.failed)
        }
        let roots = renewalRoots ?? .systemTrustRoots
        let (name, address) = Transport.isIPLiteral(hostname) ? (nil, hostname) : (hostname, nil)
        let handler = NIOLoopBound(self, eventLoop: promise.futureResult.eventLoop)
        Task {
            var verifier = Verifier(rootCertificates: roots) {
                RFC5280Policy(validationTime: Date())
                ServerIdentityPolicy(serverHostname: name, serverIP: address)
            }
            let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(chain.dropFirst()))
            guard case .validCertificate = result else {
                // The reason first, on the loop; NIOSSL's handling of the result is queued after it.
                promise.futureResult.eventLoop.execute { handler.value.mismatch = refusal }
                return promise.succeed(.failed)
            }
            promise.succeed(.certificateVerified)
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
