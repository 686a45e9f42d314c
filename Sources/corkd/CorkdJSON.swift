import Foundation

/// corkd's `--json` output: one compact object per line, keys sorted.
enum CorkdJSON {
    /// `value` as one line of JSON with a newline.
    static func line(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
