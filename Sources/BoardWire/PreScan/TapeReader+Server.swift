import BoardCore

extension TapeReader {
    /// The `delta` a server line holds, read field by field as `ServerMessage.init(from:)` reads it; nil for any
    /// other message, or when the reader is unsure (the line then goes through `TapeDecoder`).
    ///
    /// A client reads a delta for every change on its board; the other server messages are rare and take the
    /// general path.
    func serverMessage() -> ServerMessage? { try? readDelta() }

    private func readDelta() throws(Unsure) -> ServerMessage {
        let root = 0
        guard nodes.first?.kind == .object else { throw Unsure() }
        try checkKeys(root)
        guard try equals(try value("type", in: root), "delta") else { throw Unsure() }
        guard case .op(let op) = try opRequest(try value("op", in: root)) else { throw Unsure() }
        var mut: UInt64?
        if let index = try optionalValue("mut", in: root) { mut = try integer(index) }
        return .delta(
            ServerMessage.Delta(
                board: try id("board", in: root), seq: try integer(try value("seq", in: root)),
                at: try timestamp("at", in: root), actor: try id("actor", in: root),
                clientID: try optionalID("client_id", in: root), mut: mut, op: op,
                activity: try activity(try object(try value("activity", in: root)))))
    }

    /// An activity record, as its synthesized `Decodable` reads it; unsure of one that carries `names` (deltas never
    /// do).
    private func activity(_ o: Int) throws(Unsure) -> Activity {
        if find("names", in: o) != nil { throw Unsure() }
        let changesIndex = try object(try value("changes", in: o))
        var changes: [String: FieldChange] = [:]
        changes.reserveCapacity(Int(nodes[changesIndex].value / 2))
        var i = changesIndex + 1
        while i < nodes[changesIndex].next {
            let pair = i + 1
            guard nodes[pair].kind == .array, nodes[pair].value == 2 else { throw Unsure() }
            let old = pair + 1
            changes[TapeReader.text(of: nodes[i], in: bytes, limits: limits)] = FieldChange(
                old: try json(old), new: try json(nodes[old].next))
            i = nodes[pair].next
        }
        var undoOf: UInt64?
        if let index = try optionalValue("undo_of", in: o) { undoOf = try integer(index) }
        return Activity(
            seq: try integer(try value("seq", in: o)), at: try timestamp("at", in: o), actor: try id("actor", in: o),
            kind: try string("kind", in: o), card: try optionalID("card", in: o), column: try optionalID("column", in: o),
            label: try optionalID("label", in: o), milestone: try optionalID("milestone", in: o),
            member: try optionalID("member", in: o), comment: try optionalID("comment", in: o),
            item: try optionalID("item", in: o), text: try optionalString("text", in: o), changes: changes,
            warning: try optionalString("warning", in: o), undoOf: undoOf)
    }

    /// A required timestamp (integer milliseconds).
    private func timestamp(_ name: StaticString, in o: Int) throws(Unsure) -> Timestamp {
        Timestamp(milliseconds: Int64(try integer(try value(name, in: o))))
    }

    /// Any JSON value, as `JSONValue.init(from:)` reads it (the scan lets no float through).
    private func json(_ index: Int) throws(Unsure) -> JSONValue {
        let node = nodes[index]
        switch node.kind {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .number: return .int(Int64(node.value))
        case .string: return .string(TapeReader.text(of: node, in: bytes, limits: limits))
        case .array:
            var values: [JSONValue] = []
            values.reserveCapacity(Int(node.value))
            var i = index + 1
            while i < node.next {
                values.append(try json(i))
                i = nodes[i].next
            }
            return .array(values)
        case .object:
            var values: [String: JSONValue] = [:]
            var i = index + 1
            while i < node.next {
                values[TapeReader.text(of: nodes[i], in: bytes, limits: limits)] = try json(i + 1)
                i = nodes[i + 1].next
            }
            return .object(values)
        }
    }
}
