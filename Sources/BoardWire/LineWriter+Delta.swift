import BoardCore

// The hand-written half of the delta path: `Activity` and `JSONValue` written field by field, in the order and
// with the omissions of their `Encodable` conformances (`Activity.swift`, `JSONValue.swift`); an op's fields come
// from `Op.writeFields(to:)`, as its `Encodable` conformance writes them. Going through the `Encoder` protocol
// costs a box per keyed container and a generic-metadata lookup per optional field; this costs neither.
// `LineWriterTests` checks every op kind, with and without its optional fields, against `JSONEncoder`.

extension JSONByteWriter {
    /// A string field: `,"name":"value"` (the literal carries the comma and key).
    @inline(__always) func field(_ key: StaticString, _ value: String) {
        put(key)
        writeString(value)
    }

    @inline(__always) func field<Tag>(_ key: StaticString, _ value: Identifier<Tag>) {
        put(key)
        writeString(value.rawValue)
    }

    @inline(__always) func field<Tag>(_ key: StaticString, _ value: Identifier<Tag>?) {
        if let value { field(key, value) }
    }

    @inline(__always) func field(_ key: StaticString, _ value: String?) {
        if let value { field(key, value) }
    }

    @inline(__always) func field(_ key: StaticString, _ value: Int) {
        put(key)
        writeSigned(Int64(value))
    }

    @inline(__always) func field(_ key: StaticString, _ value: Int?) {
        if let value { field(key, value) }
    }

    @inline(__always) func field(_ key: StaticString, _ value: UInt64) {
        put(key)
        writeUnsigned(value)
    }

    @inline(__always) func field(_ key: StaticString, _ value: UInt64?) {
        if let value { field(key, value) }
    }

    @inline(__always) func field(_ key: StaticString, _ value: Bool) {
        put(key)
        writeBool(value)
    }

    @inline(__always) func field(_ key: StaticString, _ value: Bool?) {
        if let value { field(key, value) }
    }

    func field<Tag>(_ key: StaticString, _ values: [Identifier<Tag>]) {
        put(key)
        put(UInt8(ascii: "["))
        for (i, v) in values.enumerated() {
            if i > 0 { put(UInt8(ascii: ",")) }
            writeString(v.rawValue)
        }
        put(UInt8(ascii: "]"))
    }

    /// An op as a flat object, `kind` first, nil fields left out (as `Op.encode(to:)`: both write
    /// `Op.writeFields(to:)`).
    func writeOp(_ op: Op) {
        put(#"{"kind":"#)
        writeString(op.kind)
        var fields = OpFields(writer: self)
        fields.writeOp(op)
        put(UInt8(ascii: "}"))
    }

    /// An op's fields as bytes: `,"name":value` each.
    struct OpFields: OpFieldWriter {
        let writer: JSONByteWriter

        mutating func writeOp(_ op: Op) {
            op.writeFields(to: &self)
        }

        @inline(__always) private func key(_ field: OpField) {
            writer.put(UInt8(ascii: ","), UInt8(ascii: "\""))
            writer.put(field.name)
            writer.put(UInt8(ascii: "\""), UInt8(ascii: ":"))
        }

        mutating func text<T: OpText>(_ field: OpField, _ value: T) {
            key(field)
            writer.writeString(value.opText)
        }

        mutating func texts<T: OpText>(_ field: OpField, _ values: [T]) {
            key(field)
            writer.put(UInt8(ascii: "["))
            for (i, v) in values.enumerated() {
                if i > 0 { writer.put(UInt8(ascii: ",")) }
                writer.writeString(v.opText)
            }
            writer.put(UInt8(ascii: "]"))
        }

        mutating func int(_ field: OpField, _ value: Int) {
            key(field)
            writer.writeSigned(Int64(value))
        }

        mutating func seq(_ field: OpField, _ value: UInt64) {
            key(field)
            writer.writeUnsigned(value)
        }

        mutating func bool(_ field: OpField, _ value: Bool) {
            key(field)
            writer.writeBool(value)
        }

        mutating func timestamp(_ field: OpField, _ value: Timestamp) {
            key(field)
            writer.writeSigned(value.milliseconds)
        }

        mutating func recurrence(_ field: OpField, _ value: Recurrence) {
            key(field)
            writer.writeJSONValue(value.json)
        }

        mutating func null(_ field: OpField) {
            key(field)
            writer.writeNull()
        }
    }

    /// An activity record, fields in declaration order, nil ones left out, `changes` always written (as the
    /// synthesized `Activity.encode(to:)`) with its keys sorted; `names` only when `withNames` (a delta's record
    /// leaves them out).
    func writeActivity(_ a: Activity, withNames: Bool = true) {
        put(#"{"seq":"#)
        writeUnsigned(a.seq)
        put(#","at":"#)
        writeSigned(a.at.milliseconds)
        field(#","actor":"#, a.actor)
        field(#","kind":"#, a.kind)
        field(#","card":"#, a.card)
        field(#","column":"#, a.column)
        field(#","label":"#, a.label)
        field(#","milestone":"#, a.milestone)
        field(#","member":"#, a.member)
        field(#","comment":"#, a.comment)
        field(#","item":"#, a.item)
        field(#","text":"#, a.text)
        put(#","changes":{"#)
        var first = true
        for (key, change) in a.changes.sorted(by: { $0.key < $1.key }) {
            if !first { put(UInt8(ascii: ",")) }
            first = false
            writeString(key)
            put(UInt8(ascii: ":"), UInt8(ascii: "["))
            writeJSONValue(change.old)
            put(UInt8(ascii: ","))
            writeJSONValue(change.new)
            put(UInt8(ascii: "]"))
        }
        put(UInt8(ascii: "}"))
        field(#","warning":"#, a.warning)
        field(#","undo_of":"#, a.undoOf)
        if withNames, let names = a.names { writeNames(names) }
        put(UInt8(ascii: "}"))
    }

    /// `,"names":{…}`: the record's names, nil fields left out, dictionary keys sorted (one encoding per record).
    func writeNames(_ names: ActivityNames) {
        put(#","names":{"#)
        var first = true
        func key(_ literal: StaticString) {
            if !first { put(UInt8(ascii: ",")) }
            first = false
            put(literal)
        }
        func dictionary(_ literal: StaticString, _ values: [String: String]?) {
            guard let values else { return }
            key(literal)
            put(UInt8(ascii: "{"))
            for (i, id) in values.keys.sorted().enumerated() {
                if i > 0 { put(UInt8(ascii: ",")) }
                writeString(id)
                put(UInt8(ascii: ":"))
                writeString(values[id]!)
            }
            put(UInt8(ascii: "}"))
        }
        if let title = names.title {
            key(#""title":"#)
            writeString(title)
        }
        if let number = names.number {
            key(#""number":"#)
            writeSigned(Int64(number))
        }
        dictionary(#""columns":"#, names.columns)
        dictionary(#""labels":"#, names.labels)
        dictionary(#""milestones":"#, names.milestones)
        dictionary(#""cards":"#, names.cards)
        if let item = names.item {
            key(#""item":"#)
            writeString(item)
        }
        put(UInt8(ascii: "}"))
    }

    /// A JSON value (object keys in dictionary order: key order carries no meaning on the wire).
    func writeJSONValue(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let b): writeBool(b)
        case .int(let i): writeSigned(i)
        case .string(let s): writeString(s)
        case .array(let items):
            put(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { put(UInt8(ascii: ",")) }
                writeJSONValue(item)
            }
            put(UInt8(ascii: "]"))
        case .object(let members):
            put(UInt8(ascii: "{"))
            var first = true
            for (key, item) in members.sorted(by: { $0.key < $1.key }) {
                if !first { put(UInt8(ascii: ",")) }
                first = false
                writeString(key)
                put(UInt8(ascii: ":"))
                writeJSONValue(item)
            }
            put(UInt8(ascii: "}"))
        }
    }
}
