import Foundation

/// What a running (or the last) server wrote to `listen.json` in its data directory: where clients reach it and
/// which certificate it serves, so that `corkd invite` and the other admin commands print URLs that work.
///
/// `{"host":"board.example.com","port":7421,"public_port":7420,"bind":"0.0.0.0","fingerprint":"sha256:…","members_max":5000}`
public struct ListenRecord: Codable, Hashable, Sendable {
    /// The host invite URLs name: `--public-host`, else the bound address unless it is a wildcard, else the
    /// machine's host name.
    public var host: String
    /// The TCP port it listens on.
    public var port: Int
    /// The port invite URLs name (`--public-port`, e.g. HAProxy's), when it differs from `port`.
    public var publicPort: Int?
    /// The port invite URLs name: `publicPort`, else `port`.
    public var advertisedPort: Int { publicPort ?? port }
    /// The address it is bound to (`--host`).
    public var bind: String?
    /// The fingerprint of the certificate it serves (`--cert` or the self-signed one).
    public var fingerprint: String?
    /// The `members_max` it enforces (`--members-max`).
    public var membersMax: Int?
    /// The web page's base URL (`http://127.0.0.1:7421/`), when the web listener runs.
    public var webURL: String?

    enum CodingKeys: String, CodingKey {
        case host, port, bind, fingerprint
        case publicPort = "public_port"
        case membersMax = "members_max"
        case webURL = "web_url"
    }

    /// The file's name in the data directory.
    public static let fileName = "listen.json"

    /// Makes a record.
    public init(
        host: String, port: Int, publicPort: Int? = nil, bind: String? = nil, fingerprint: String? = nil, membersMax: Int? = nil,
        webURL: String? = nil
    ) {
        self.host = host
        self.port = port
        self.publicPort = publicPort
        self.bind = bind
        self.fingerprint = fingerprint
        self.membersMax = membersMax
        self.webURL = webURL
    }

    /// Writes the record to `directory/listen.json` (atomically; private, like everything in the directory).
    public func write(in directory: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let file = directory.appendingPathComponent(Self.fileName)
        try encoder.encode(self).write(to: file, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    }

    /// The record in `directory`, if the server has written one.
    public static func read(in directory: URL) -> ListenRecord? {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent(fileName)) else { return nil }
        return try? JSONDecoder().decode(ListenRecord.self, from: data)
    }
}
