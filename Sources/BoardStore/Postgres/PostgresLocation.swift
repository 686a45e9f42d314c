import Foundation

/// Where a PostgreSQL store lives: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|require]`
/// (`postgresql://` too). The password may also come from `$PGPASSWORD`.
public struct PostgresLocation: Hashable, Sendable, CustomStringConvertible {
    /// How the connection is encrypted.
    public enum TLSMode: String, Hashable, Sendable {
        /// Plain TCP (the default: a database on loopback or a private network).
        case disable
        /// TLS, the server's certificate checked against the system's trust roots.
        case require
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    /// Makes a location.
    public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String, tls: TLSMode = .disable) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
    }

    /// Parses a URL; nil when it is not a PostgreSQL URL this store can use (`parse` says why).
    public init?(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let parsed = try? Self.parse(text, environment: environment) else { return nil }
        self = parsed
    }

    /// Parses a URL or says, in a sentence, what is wrong with it.
    public static func parse(
        _ text: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(StoreError) -> PostgresLocation {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql"
        else { throw StoreError(.notFound, "\(Self.redacted(text)) is not a postgres:// URL") }
        guard let host = components.host, !host.isEmpty else {
            throw StoreError(.notFound, "the store URL names no host (postgres://USER@HOST:PORT/DATABASE)")
        }
        guard let user = components.user, !user.isEmpty else {
            throw StoreError(.notFound, "the store URL names no user (postgres://USER@HOST:PORT/DATABASE)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw StoreError(.notFound, "the store URL names no database (postgres://USER@HOST:PORT/DATABASE)")
        }
        var tls = TLSMode.disable
        for item in components.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("sslmode", let value?):
                guard let mode = TLSMode(rawValue: value) else {
                    throw StoreError(.notFound, "sslmode must be disable or require, not \(value)")
                }
                tls = mode
            default:
                throw StoreError(.notFound, "unknown store URL parameter \(item.name) (only sslmode)")
            }
        }
        return PostgresLocation(
            host: host, port: components.port ?? 5432, user: user,
            password: components.password ?? environment["PGPASSWORD"], database: database, tls: tls)
    }

    /// The URL without its password, for logs and messages.
    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)\(tls == .require ? "?sslmode=require" : "")"
    }

    /// `text` with any password replaced by `***`, for messages about a URL that did not parse.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "the store URL"
    }
}
