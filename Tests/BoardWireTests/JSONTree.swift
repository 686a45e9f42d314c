import Foundation

/// A JSON value parsed by `JSONSerialization`, kept strict: booleans, integers and floats stay distinct.
indirect enum JSONTree: Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case array([JSONTree])
    case object([String: JSONTree])

    /// Parses one JSON text.
    static func parse(_ text: some Collection<UInt8>) throws -> JSONTree {
        try JSONTree(any: JSONSerialization.jsonObject(with: Data(text), options: [.fragmentsAllowed]))
    }

    /// Parses one JSON text given as a string.
    static func parse(_ text: String) throws -> JSONTree { try parse(Array(text.utf8)) }

    private init(any value: Any) {
        switch value {
        case is NSNull: self = .null
        case let s as String: self = .string(s)
        case let n as NSNumber:
            switch String(cString: n.objCType) {
            case "c" where n.intValue == 0 || n.intValue == 1: self = .bool(n.boolValue)
            case "d", "f": self = .float(n.doubleValue)
            default: self = .int(n.int64Value)
            }
        case let a as [Any]: self = .array(a.map(JSONTree.init(any:)))
        case let o as [String: Any]: self = .object(o.mapValues(JSONTree.init(any:)))
        default: self = .string("<unsupported \(type(of: value))>")
        }
    }

    /// Whether a float appears anywhere inside.
    var containsFloat: Bool {
        switch self {
        case .float: true
        case .array(let a): a.contains { $0.containsFloat }
        case .object(let o): o.values.contains { $0.containsFloat }
        default: false
        }
    }

    /// The value at `key` of an object.
    subscript(key: String) -> JSONTree? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The string, when this is one.
    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Where `self` and `other` first differ, as a path and the two values, or nil when they are equal.
    func firstDifference(from other: JSONTree, at path: String = "$") -> String? {
        switch (self, other) {
        case (.object(let a), .object(let b)):
            for key in Set(a.keys).union(b.keys).sorted() {
                guard let x = a[key] else { return "\(path).\(key): missing in the doc line, encoder added \(b[key]!)" }
                guard let y = b[key] else { return "\(path).\(key): in the doc line (\(x)) but dropped by the encoder" }
                if let d = x.firstDifference(from: y, at: "\(path).\(key)") { return d }
            }
            return nil
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return "\(path): \(a.count) elements vs \(b.count)" }
            for (i, (x, y)) in zip(a, b).enumerated() {
                if let d = x.firstDifference(from: y, at: "\(path)[\(i)]") { return d }
            }
            return nil
        default:
            return self == other ? nil : "\(path): doc has \(self), encoder wrote \(other)"
        }
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let b): String(b)
        case .int(let i): String(i)
        case .float(let d): String(d)
        case .string(let s): "\"\(s)\""
        case .array(let a): "[" + a.map(\.description).joined(separator: ",") + "]"
        case .object(let o): "{" + o.keys.sorted().map { "\"\($0)\":\(o[$0]!)" }.joined(separator: ",") + "}"
        }
    }
}
