import Foundation
import Logging
import NIOConcurrencyHelpers

/// Keeps a test server's last log lines in memory, so a server that fails to stop can say where it was.
final class RecentLog: Sendable {
    private let lines = NIOLockedValueBox<[String]>([])
    private let keep: Int

    init(keep: Int = 200) {
        self.keep = keep
    }

    /// A logger writing here at `level` and above.
    func logger(label: String, level: Logger.Level) -> Logger {
        var logger = Logger(label: label) { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    /// The kept lines, oldest first.
    var text: String {
        lines.withLockedValue { $0.joined(separator: "\n") }
    }

    fileprivate func append(_ line: String) {
        lines.withLockedValue { lines in
            lines.append(line)
            if lines.count > keep { lines.removeFirst(lines.count - keep) }
        }
    }

    private struct Handler: LogHandler {
        let log: RecentLog
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
            let tail = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let time = String(format: "%.3f", Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1_000))
            log.append("\(time) \(event.level) \(event.message)\(tail)")
        }
    }
}
