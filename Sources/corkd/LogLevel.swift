import Logging
import Synchronization

/// The level corkd's loggers follow: set from `--log-level` (or `log_level`) at start and again on SIGHUP, so a
/// reload changes what every existing logger writes.
enum LogLevel {
    private static let level = Atomic<Int>(index(.info))

    static var current: Logger.Level {
        get { Logger.Level.allCases[level.load(ordering: .relaxed)] }
        set { level.store(index(newValue), ordering: .relaxed) }
    }

    private static func index(_ level: Logger.Level) -> Int { Logger.Level.allCases.firstIndex(of: level) ?? 2 }

    /// Log lines to stderr at ``current``, unless a logger sets a level of its own.
    struct Handler: LogHandler {
        var inner: StreamLogHandler
        /// A level this logger was given itself (a component silenced on purpose); nil follows ``current``.
        var own: Logger.Level?

        init(label: String) { inner = StreamLogHandler.standardError(label: label) }

        var logLevel: Logger.Level {
            get { own ?? LogLevel.current }
            set { own = newValue }
        }

        var metadata: Logger.Metadata {
            get { inner.metadata }
            set { inner.metadata = newValue }
        }

        var metadataProvider: Logger.MetadataProvider? {
            get { inner.metadataProvider }
            set { inner.metadataProvider = newValue }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { inner[metadataKey: key] }
            set { inner[metadataKey: key] = newValue }
        }

        func log(event: LogEvent) { inner.log(event: event) }
    }
}
