/// Why a file could not be read as a Trello board export: a code, and a message naming what is wrong.
public struct TrelloImportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// The file is not JSON at all.
        case notJSON = "not_json"
        /// The JSON is not a Trello board export (no `lists` or `cards` at the top level).
        case notTrello = "not_trello"
        /// A field is missing or has the wrong type; the message names it, e.g. `cards[3].idList`.
        case malformed
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence naming what is wrong.
    public var message: String

    /// Makes an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// The error for a `DecodingError` from reading an export: the path of the bad field and what is wrong with it.
    init(_ error: DecodingError) {
        func path(_ keys: [any CodingKey]) -> String {
            var out = ""
            for key in keys {
                if let index = key.intValue {
                    out += "[\(index)]"
                } else {
                    out += (out.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return out.isEmpty ? "the file" : out
        }
        switch error {
        case .keyNotFound(let key, let context):
            if context.codingPath.isEmpty {
                self.init(.notTrello, "not a Trello board export: it has no \"\(key.stringValue)\"")
            } else {
                self.init(.malformed, "\(path(context.codingPath + [key])) is missing")
            }
        case .typeMismatch(let type, let context):
            if context.codingPath.isEmpty {
                self.init(.notTrello, "not a Trello board export: the file is not a JSON object")
            } else {
                self.init(.malformed, "\(path(context.codingPath)) should be \(Self.describe(type))")
            }
        case .valueNotFound(let type, let context):
            self.init(.malformed, "\(path(context.codingPath)) is null; it should be \(Self.describe(type))")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                self.init(.notJSON, "the file is not valid JSON")
            } else {
                self.init(.malformed, "\(path(context.codingPath)) is not valid: \(context.debugDescription)")
            }
        @unknown default:
            self.init(.malformed, "the export could not be read: \(error)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Double.Type, is Int.Type: "a number"
        case is [Any].Type: "an array"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
