import BoardTransport
import BoardWire
import Foundation

/// One server account to connect as, from an invite URL: where, which board, the token, and how to trust the server.
struct Target: Sendable {
    var host: String
    var port: Int
    var board: String
    var token: String
    var tls: ClientTLS

    /// Parses `cork://HOST:PORT/BOARD?token=…&fp=sha256:…`; `board` overrides the URL's board.
    init(url text: String, board override: String?) throws(LoadError) {
        guard let url = InviteURL(text.trimmingCharacters(in: .whitespaces)) else {
            throw LoadError("invalid_url", "not a cork:// invite URL: \(text.prefix(40))…")
        }
        let trust: ServerTrust
        if let fp = url.fingerprint {
            do { trust = .pinned(try Fingerprint.parse(fp)) } catch {
                throw LoadError("invalid_url", "bad fingerprint in invite URL: \(error)")
            }
        } else {
            trust = .systemRoots
        }
        do { tls = try ClientTLS(trust: trust) } catch { throw LoadError("tls", "cannot build the TLS context: \(error)") }
        host = url.host
        port = url.port
        board = override ?? url.board?.rawValue ?? "main"
        token = url.token
    }
}

extension Target {
    /// An account on a server cork-load prepared itself (`--spawn`).
    init(host: String, port: Int, board: String, token: String, tls: ClientTLS) {
        self.host = host
        self.port = port
        self.board = board
        self.token = token
        self.tls = tls
    }
}
