import ArgumentParser
import Foundation
import Logging

/// Options every subcommand shares.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The data directory (store, certificate, owner.url).")
    var dataDirectory: String = "corkd-data"

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    var url: URL { URL(fileURLWithPath: dataDirectory) }

    func logger(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        return logger
    }
}
