import BoardCore

extension WireError {
    /// Maps any decoding failure to the wire error the server answers with; the one place that does so.
    ///
    /// `isJSON` says whether the line parses as a JSON object at all: Foundation reports a number out of range
    /// for its field (a negative `seq`, say) as invalid JSON, which is `bad_request`, not `bad_json`.
    public static func decoding(_ error: any Error, isJSON: Bool) -> WireError {
        switch error {
        case let error as WireError: return error
        case let error as MessageTypeError: return WireError(.unknownType, error.description)
        case let error as OpDecodingError:
            switch error {
            case .unknownKind: return WireError(.unknownOp, error.description)
            case .invalidValue: return WireError(.badRequest, error.description)
            }
        case let error as DecodingError: return decoding(error, isJSON: isJSON)
        default: return WireError(.badRequest, "the message could not be read")
        }
    }

    private static func decoding(_ error: DecodingError, isJSON: Bool) -> WireError {
        switch error {
        case .keyNotFound(let key, let context):
            return WireError(.badRequest, "missing field \(path(context.codingPath + [key]))")
        case .valueNotFound(_, let context):
            return WireError(.badRequest, "field \(path(context.codingPath)) must not be null")
        case .typeMismatch(let type, let context):
            if context.codingPath.isEmpty { return WireError(.badJSON, "a line must be one JSON object") }
            return WireError(.badRequest, "field \(path(context.codingPath)) must be \(jsonKind(of: type))")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return isJSON
                    ? WireError(.badRequest, "a number is out of range for its field (negative or too large)")
                    : WireError(.badJSON, "the line is not valid JSON")
            }
            return WireError(.badRequest, "field \(path(context.codingPath)): \(context.readableReason)")
        @unknown default:
            return WireError(.badRequest, "the message could not be read")
        }
    }

    /// A coding path as the field names a person reads: `op.card`, `activities[2].seq`.
    static func path(_ keys: [any CodingKey]) -> String {
        var out = ""
        for key in keys {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                out += out.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return out.isEmpty ? "(line)" : "`\(out)`"
    }

    /// The JSON kind a Swift type is read from, for messages.
    static func jsonKind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is UInt64.Type, is UInt.Type, is Int32.Type: "an integer"
        case is RequestID.Type: "an integer or a string"
        default:
            String(describing: type).hasPrefix("Array") ? "an array"
                : String(describing: type).hasPrefix("Dictionary") ? "an object" : "a \(type)"
        }
    }
}
