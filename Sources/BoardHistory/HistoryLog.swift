import Foundation

/// Reading and writing recorded histories: one ``HistoryRecord`` per JSON line.
public enum HistoryLog {
    /// A problem with a history file.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, with the line number.
        public var description: String
    }

    /// Parses JSON lines (blank lines skipped); throws naming the first line that is not a record.
    public static func parse(_ text: String) throws -> [HistoryRecord] {
        let decoder = JSONDecoder()
        var records: [HistoryRecord] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            do {
                records.append(try decoder.decode(HistoryRecord.self, from: Data(line.utf8)))
            } catch {
                throw Failure(description: "line \(number + 1): not a history record: \(error)")
            }
        }
        return records
    }

    /// One record as a JSON line (without the newline).
    public static func line(_ record: HistoryRecord) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(record), as: UTF8.self)) ?? "{}"
    }
}
