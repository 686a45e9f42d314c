import BoardWire
import BoardTransport
import Foundation
import NIOSSL

/// The one place that decides which certificate the server serves and which fingerprint URLs pin, used by
/// `corkd serve` and by every admin command that prints a URL.
///
/// - With `--cert` (and, to serve, `--key`): that chain; URLs pin its leaf.
/// - Without: the self-signed `cert.pem`/`key.pem` in the data directory, which only `serve` creates.
/// - An admin command given no `--cert` pins what the server last served, as recorded in `listen.json`, so an
///   invite printed for a server started with `--cert` pins that certificate without repeating the flag.
public enum ServerCertificate {
    /// The certificate to serve: the chain, its key and the leaf's fingerprint; `created` when this call made the
    /// self-signed one.
    public struct Served: Sendable {
        /// The chain, leaf first.
        public var chain: [NIOSSLCertificate]
        /// The private key.
        public var key: NIOSSLPrivateKey
        /// The leaf's fingerprint.
        public var fingerprint: Fingerprint
        /// Whether the self-signed certificate was created now.
        public var created: Bool
    }

    /// The certificate `serve` uses: `certificatePath`/`keyPath` when given (both are needed), else the data
    /// directory's self-signed one, created for `hosts` when missing.
    public static func forServing(
        certificatePath: String?, keyPath: String?, directory: URL, hosts: [String]
    ) throws(ServerError) -> Served {
        if let certificatePath {
            guard let keyPath else { throw ServerError(.configuration, "--cert needs --key") }
            let chain = try chain(certificatePath)
            let key: NIOSSLPrivateKey
            do {
                key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            } catch {
                throw ServerError(.configuration, "cannot read the key \(keyPath): \(error)")
            }
            return Served(chain: chain, key: key, fingerprint: try fingerprint(of: chain, certificatePath), created: false)
        }
        guard keyPath == nil else { throw ServerError(.configuration, "--key needs --cert") }
        do {
            let loaded = try SelfSignedCertificate.loadOrCreate(in: directory, hosts: hosts)
            return Served(chain: loaded.chain, key: loaded.key, fingerprint: loaded.fingerprint, created: loaded.created)
        } catch {
            throw ServerError(.configuration, "the self-signed certificate in \(directory.path): \(error)")
        }
    }

    /// The fingerprint URLs pin, for an admin command; never creates a certificate.
    ///
    /// `certificatePath` (the same `--cert` the server was given) wins; else the fingerprint the server recorded
    /// in `listen.json`; else the data directory's self-signed certificate. `configuration` if there is none.
    public static func fingerprintForURLs(certificatePath: String?, directory: URL) throws(ServerError) -> Fingerprint {
        if let certificatePath {
            return try fingerprint(of: try chain(certificatePath), certificatePath)
        }
        if let recorded = ListenRecord.read(in: directory)?.fingerprint, let fingerprint = Fingerprint(recorded) {
            return fingerprint
        }
        let path = directory.appendingPathComponent(SelfSignedCertificate.certificateFileName).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw ServerError(
                .configuration,
                "no certificate to pin: \(path) does not exist and the server has recorded none in listen.json; start "
                    + "corkd once, or give the --cert the server uses")
        }
        return try fingerprint(of: try chain(path), path)
    }

    private static func chain(_ path: String) throws(ServerError) -> [NIOSSLCertificate] {
        do {
            return try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw ServerError(.configuration, "cannot read the certificate \(path): \(error)")
        }
    }

    private static func fingerprint(of chain: [NIOSSLCertificate], _ path: String) throws(ServerError) -> Fingerprint {
        guard let leaf = chain.first else { throw ServerError(.configuration, "\(path) holds no certificate") }
        do {
            return try Fingerprint(certificate: leaf)
        } catch {
            throw ServerError(.configuration, "cannot hash the certificate in \(path): \(error)")
        }
    }
}
