import ArgumentParser
import BoardCore
import BoardServer
import BoardStore
import BoardWeb
import BoardWire
import Foundation
import Logging
import NIOSSL

/// `corkd serve`'s web page options.
struct WebOptions: ParsableArguments {
    @Option(
        name: .customLong("web-port"),
        help: "The web page's port (default: 7421 when --port is 7420, otherwise any free port, printed at start; 0 picks one).")
    var port: Int?

    @Option(
        name: .customLong("web-host"),
        help: "The address the web page listens on (default: --host). Plain HTTP only on a loopback address; any other serves HTTPS with the server's certificate.")
    var host: String?

    @Option(
        name: .customLong("public-web-url"),
        help: "The web page's URL as browsers reach it, put in invite links (behind HAProxy: the proxy's https://… URL).")
    var publicURL: String?

    @Option(
        name: .customLong("web-key"),
        help: "The key that seals web session cookies (32 bytes; default: web-cookie.key in the data directory, made at first start). Several nodes behind one proxy share one.")
    var keyFile: String?

    @Option(
        name: .customLong("web-allow-origin"),
        help: "An origin besides the page's own whose browser pages may open the protocol's WebSocket (/v1); repeatable.")
    var allowedOrigins: [String] = []

    @Flag(name: .customLong("no-web"), help: "Serve no web page.")
    var disabled = false

    /// The web listener for these options, or nil with `--no-web`.
    func server(
        serverPort: Int, serverHost: String, advertisedHost: String, tls: NIOSSLContext, settings: ServerConfiguration,
        accepted: AcceptedConnections, store: any BoardStore, logger: Logger, directory: URL, ownerToken: String?,
        listenFile: ListenFile
    ) throws -> WebServer? {
        guard !disabled else { return nil }
        let bindHost = host ?? serverHost
        let port = self.port ?? (serverPort == InviteURL.defaultPort ? InviteURL.defaultPort + 1 : 0)
        guard (0...65535).contains(port) else { throw CorkdExit.usage("--web-port must be 0–65535") }
        let cookie: WebCookie
        do {
            cookie = try keyFile.map { path in
                guard let data = FileManager.default.contents(atPath: path) else { throw WebError("cannot read --web-key \(path)") }
                return try WebCookie(key: data)
            } ?? WebCookie.loadOrCreate(at: directory.appendingPathComponent(WebCookie.keyFileName))
        }
        var configuration = WebConfiguration(cookie: cookie)
        configuration.host = bindHost
        configuration.port = port
        configuration.tls = WebConfiguration.isLoopback(bindHost) ? nil : tls
        configuration.limits = settings.limits
        configuration.allowedOrigins = allowedOrigins
        configuration.unsubscribe = { user, token in await MailUnsubscribe.apply(user: user, token: token, store: store) }
        configuration.version = settings.serverName.split(separator: "/").last.map(String.init) ?? "0"
        let secure = configuration.tls != nil
        let publicURL = self.publicURL
        let ownerFile = directory.appendingPathComponent(InviteURL.ownerFileName)
        return WebServer(configuration: configuration, accepted: accepted, logger: logger) { address in
            let boundPort = address.port ?? port
            let shownHost = advertisedHost.contains(":") ? "[\(advertisedHost)]" : advertisedHost
            let base = publicURL ?? "\(secure ? "https" : "http")://\(shownHost):\(boundPort)/"
            await listenFile.setWebURL(base)
            var lines = ["web page on \(bindHost):\(boundPort): \(base)"]
            // The token only on the first start: later starts would put the owner's token in the journal each time.
            if let ownerToken {
                let owner = InviteURL(host: "", board: settings.defaultBoard, token: ownerToken, fingerprint: nil)
                lines.append("owner in a browser: \(owner.webLink(base: base))")
            } else if FileManager.default.fileExists(atPath: ownerFile.path) {
                lines.append("owner in a browser: \(base)#token=…&board=\(settings.defaultBoard) (the token is in \(ownerFile.path))")
            }
            // After the server's own banner (its address, fingerprint and the owner's invite URL), not before it.
            await listenFile.printAfterServerBanner(lines.joined(separator: "\n") + "\n")
        }
    }
}

/// listen.json, written by both listeners as each comes up (the server's address first, the web page's URL when
/// known), so that `corkd invite` can name both.
actor ListenFile {
    let directory: URL
    let logger: Logger
    var record: ListenRecord?
    var webURL: String?
    /// Whether the server printed its banner; the web listener's lines, when they came first.
    var bannerPrinted = false
    var heldLines: String?

    init(directory: URL, logger: Logger) {
        self.directory = directory
        self.logger = logger
    }

    func update(_ record: ListenRecord) {
        self.record = record
        write()
    }

    func setWebURL(_ url: String) {
        webURL = url
        write()
    }

    /// Prints the web listener's lines now if the server's banner is out, or right after it.
    func printAfterServerBanner(_ text: String) {
        if bannerPrinted { Console.out(text) } else { heldLines = text }
    }

    /// The server printed its banner: the web listener's lines follow if they are waiting.
    func serverBannerPrinted() {
        bannerPrinted = true
        if let heldLines { Console.out(heldLines) }
        heldLines = nil
    }

    private func write() {
        guard var record else { return }
        record.webURL = webURL
        do {
            try record.write(in: directory)
        } catch {
            logger.warning("cannot write \(ListenRecord.fileName); corkd invite will not know the address", metadata: ["error": "\(error)"])
        }
    }
}
