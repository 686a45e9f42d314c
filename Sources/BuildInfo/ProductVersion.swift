import Foundation
import BoardWire

/// What a binary says about itself: the version (``BoardWire/ProductVersion``), the git commit it was built from
/// (recorded by the BuildCommit plugin) and the protocol version.
public enum BuildInfo {
    /// The git commit the binary was built from, or `unknown` (built outside a git checkout).
    public static let commit = buildCommit

    /// `TOOL 0.3.0 (commit 1a2b3c4d5e6f, protocol 1)`: what `--version` prints.
    public static func versionLine(_ tool: String) -> String {
        "\(tool) \(ProductVersion.version) (commit \(commit), protocol \(ProtocolVersion.current))"
    }

    /// A usage error on one line, as every binary says it: ArgumentParser's `message` without its `Error: ` and line
    /// breaks, then the `--help` its `full` message points to, e.g. `Unknown option '--bogus'. Did you mean
    /// '--board'? (see 'cork move --help')`.
    public static func usageLine(message: String, full: String) -> String {
        var reason = message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        if reason.hasPrefix("Error: ") { reason.removeFirst("Error: ".count) }
        // ArgumentParser reads `-1` as an option's name wherever it does not expect a value, such as a positional
        // number (`cork column wip DOING -1`): what the user wrote is a negative number.
        if reason.hasPrefix("Unknown option '-"), let end = reason.dropFirst("Unknown option '".count).firstIndex(of: "'") {
            let word = reason[reason.index(reason.startIndex, offsetBy: "Unknown option '".count)..<end]
            if word.count > 1, word.dropFirst().allSatisfy(\.isASCII), word.dropFirst().allSatisfy(\.isNumber) {
                reason = "\(word) is a negative number, which is not valid here"
            }
        }
        if let see = full.range(of: "See '"), let end = full[see.upperBound...].firstIndex(of: "'") {
            reason += " (see '\(full[see.upperBound..<end])')"
        }
        return reason
    }
}
