/// A new value for an optional field: set it, or clear it.
///
/// In an op, a field that is absent is left alone; `null` clears it (`.clear`); a value sets it (`.set`).
public enum Clearable<Value: Hashable & Sendable>: Hashable, Sendable {
    /// Give the field this value.
    case set(Value)
    /// Clear the field.
    case clear

    /// The value to store: the new value, or nil.
    public var value: Value? {
        if case .set(let v) = self { return v }
        return nil
    }

    /// `.set(v)` for a value, `.clear` for nil.
    public init(_ value: Value?) {
        self = value.map(Clearable.set) ?? .clear
    }
}
