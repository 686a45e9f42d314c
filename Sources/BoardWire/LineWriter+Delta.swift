import BoardCore

// The hand-written half of the delta path: `Op`, `Activity` and `JSONValue` written field by field, in the order
// and with the omissions of their `Encodable` conformances (`Op+Codable.swift`, `Activity.swift`,
// `JSONValue.swift`). Going through the `Encoder` protocol costs a box per keyed container and a generic-metadata
// lookup per optional field; this costs neither. `LineWriterTests` checks every op kind, with and without its
// optional fields, against `JSONEncoder`, so a change to a conformance that is not mirrored here fails there.

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

    func field(_ key: StaticString, _ value: Day?) {
        if let value { field(key, value.description) }
    }

    func field(_ key: StaticString, _ value: HexColor?) {
        guard let value else { return }
        put(key)
        put(UInt8(ascii: "\""), UInt8(ascii: "#"))
        for c in [value.red, value.green, value.blue] {
            put(LineWriter.hexDigit(c >> 4), LineWriter.hexDigit(c & 0xF))
        }
        put(UInt8(ascii: "\""))
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

    /// A clearable field: absent when nil, `null` when cleared.
    @inline(__always) func clearable<Value>(
        _ key: StaticString, _ value: Clearable<Value>?, _ write: (StaticString, Value) -> Void
    ) {
        switch value {
        case nil: break
        case .clear?:
            put(key)
            writeNull()
        case .set(let v)?: write(key, v)
        }
    }

    func placement(_ p: Placement) {
        field(#","after":"#, p.after)
        field(#","before":"#, p.before)
        field(#","index":"#, p.index)
        if let rank = p.rank { field(#","rank":"#, rank.rawValue) }
    }

    /// An op as a flat object, `kind` first, nil fields left out (as `Op.encode(to:)`).
    func writeOp(_ op: Op) {
        put(#"{"kind":"#)
        writeString(op.kind)
        switch op {
        case .renameBoard(let name): field(#","name":"#, name)
        case .setRemindHours(let hours):
            put(#","hours":"#)
            if let hours { writeSigned(Int64(hours)) } else { writeNull() }
        case .setMember(let user, let role, let name):
            field(#","user":"#, user)
            field(#","role":"#, role.rawValue)
            field(#","name":"#, name)
        case .removeMember(let user): field(#","user":"#, user)
        case .addColumn(let column, let name, let index):
            field(#","column":"#, column)
            field(#","name":"#, name)
            field(#","index":"#, index)
        case .renameColumn(let column, let name):
            field(#","column":"#, column)
            field(#","name":"#, name)
        case .moveColumn(let column, let index):
            field(#","column":"#, column)
            field(#","index":"#, index)
        case .removeColumn(let column): field(#","column":"#, column)
        case .setWIPLimit(let column, let limit):
            field(#","column":"#, column)
            if let limit {
                field(#","limit":"#, limit.limit)
                field(#","hard":"#, limit.hard)
            } else {
                put(#","limit":null"#)
            }
        case .setInProgress(let column, let on):
            field(#","column":"#, column)
            field(#","in_progress":"#, on)
        case .addCard(let a):
            field(#","card":"#, a.card)
            field(#","column":"#, a.column)
            placement(a.placement)
            field(#","title":"#, a.title)
            if !a.description.isEmpty { field(#","description":"#, a.description) }
            field(#","due":"#, a.due)
            if !a.labels.isEmpty { field(#","labels":"#, a.labels) }
            if !a.assignees.isEmpty { field(#","assignees":"#, a.assignees) }
            field(#","milestone":"#, a.milestone)
            field(#","ref":"#, a.ref)
            field(#","created_at":"#, a.createdAt.map { Int($0.milliseconds) })
        case .editCard(let e):
            field(#","card":"#, e.card)
            field(#","title":"#, e.title)
            field(#","description":"#, e.description)
            field(#","base_seq":"#, e.baseSeq)
            clearable(#","due":"#, e.due) { field($0, $1.description) }
            clearable(#","milestone":"#, e.milestone) { field($0, $1) }
            clearable(#","ref":"#, e.ref) { field($0, $1) }
        case .moveCard(let card, let column, let p, let force):
            field(#","card":"#, card)
            field(#","to_column":"#, column)
            placement(p)
            field(#","force":"#, force)
        case .addLabel(let card, let label), .removeLabel(let card, let label):
            field(#","card":"#, card)
            field(#","label":"#, label)
        case .assign(let card, let user), .unassign(let card, let user):
            field(#","card":"#, card)
            field(#","user":"#, user)
        case .blockCard(let card, let by), .unblockCard(let card, let by):
            field(#","card":"#, card)
            field(#","by":"#, by)
        case .setRecurrence(let card, let recurrence):
            field(#","card":"#, card)
            put(#","recur":"#)
            writeJSONValue(recurrence?.json ?? .null)
        case .closeCard(let card), .reopenCard(let card), .archiveCard(let card), .restoreCard(let card),
            .purgeCard(let card), .watchCard(let card), .unwatchCard(let card):
            field(#","card":"#, card)
        case .addChecklistItem(let card, let item, let text, let done, let index):
            field(#","card":"#, card)
            field(#","item":"#, item)
            field(#","text":"#, text)
            if done { field(#","done":"#, done) }
            field(#","index":"#, index)
        case .editChecklistItem(let card, let item, let text, let done):
            field(#","card":"#, card)
            field(#","item":"#, item)
            field(#","text":"#, text)
            field(#","done":"#, done)
        case .removeChecklistItem(let card, let item):
            field(#","card":"#, card)
            field(#","item":"#, item)
        case .addComment(let card, let comment, let text), .editComment(let card, let comment, let text):
            field(#","card":"#, card)
            field(#","comment":"#, comment)
            field(#","text":"#, text)
        case .deleteComment(let card, let comment):
            field(#","card":"#, card)
            field(#","comment":"#, comment)
        case .createLabel(let label, let name, let color):
            field(#","label":"#, label)
            field(#","name":"#, name)
            field(#","color":"#, color)
        case .updateLabel(let label, let name, let color):
            field(#","label":"#, label)
            field(#","name":"#, name)
            field(#","color":"#, color)
        case .deleteLabel(let label): field(#","label":"#, label)
        case .createMilestone(let milestone, let title, let description, let due):
            field(#","milestone":"#, milestone)
            field(#","title":"#, title)
            field(#","description":"#, description)
            field(#","due":"#, due)
        case .updateMilestone(let milestone, let title, let description, let due):
            field(#","milestone":"#, milestone)
            field(#","title":"#, title)
            field(#","description":"#, description)
            clearable(#","due":"#, due) { field($0, $1.description) }
        case .closeMilestone(let m), .reopenMilestone(let m), .deleteMilestone(let m):
            field(#","milestone":"#, m)
        case .chat(let text): field(#","text":"#, text)
        }
        put(UInt8(ascii: "}"))
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
