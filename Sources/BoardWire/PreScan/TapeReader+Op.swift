import BoardCore

extension TapeReader {
    /// The `op` object at `index`: an undo or an op, its fields read as `Op.init(from:)` reads them. A value out of
    /// range (a colour, a day, a role, a rank) is unsure: the general path makes it `.invalid` with its raw JSON.
    func opRequest(_ index: Int) throws(Unsure) -> OpRequest {
        let o = try object(index)
        let kindText = try string("kind", in: o)
        if kindText == OpRequest.undoKind { return .undo(seq: try integer(try value("seq", in: o))) }
        guard let kind = Op.Kind(rawValue: kindText) else { throw Unsure() }
        return .op(try op(kind, in: o))
    }

    private func op(_ kind: Op.Kind, in o: Int) throws(Unsure) -> Op {
        try Op(kind: kind, reading: OpFields(tape: self, object: o))
    }

    /// An op object's fields on the tape. A value the tape cannot read as the op's decoder would (a wrong JSON type,
    /// a value out of range, a missing field) is unsure: the general path then reads the line and says what is wrong.
    struct OpFields: OpFieldReader {
        let tape: TapeReader
        let object: Int

        func text<T: OpText>(_ field: OpField) throws(Unsure) -> T {
            guard let value = T(opText: try tape.string(field.name, in: object)) else { throw Unsure() }
            return value
        }

        func optionalText<T: OpText>(_ field: OpField) throws(Unsure) -> T? {
            guard let text = try tape.optionalString(field.name, in: object) else { return nil }
            guard let value = T(opText: text) else { throw Unsure() }
            return value
        }

        func clearable<T: OpText>(_ field: OpField) throws(Unsure) -> Clearable<T>? {
            guard let index = tape.find(field.name, in: object) else { return nil }
            if tape.nodes[index].kind == .null { return .clear }
            guard let value = T(opText: try tape.string(index)) else { throw Unsure() }
            return .set(value)
        }

        func texts<T: OpText>(_ field: OpField) throws(Unsure) -> [T] {
            guard let array = try tape.optionalValue(field.name, in: object) else { return [] }
            guard tape.nodes[array].kind == .array else { throw Unsure() }
            var out: [T] = []
            out.reserveCapacity(Int(tape.nodes[array].value))
            var i = array + 1
            while i < tape.nodes[array].next {
                guard let value = T(opText: try tape.string(i)) else { throw Unsure() }
                out.append(value)
                i = tape.nodes[i].next
            }
            return out
        }

        func int(_ field: OpField) throws(Unsure) -> Int { try tape.int(field.name, in: object) }

        func optionalInt(_ field: OpField) throws(Unsure) -> Int? { try tape.optionalInt(field.name, in: object) }

        func optionalSeq(_ field: OpField) throws(Unsure) -> UInt64? {
            guard let index = try tape.optionalValue(field.name, in: object) else { return nil }
            return try tape.integer(index)
        }

        func bool(_ field: OpField) throws(Unsure) -> Bool {
            guard let value = try tape.optionalBool(field.name, in: object) else { throw Unsure() }
            return value
        }

        func optionalBool(_ field: OpField) throws(Unsure) -> Bool? { try tape.optionalBool(field.name, in: object) }

        func optionalTimestamp(_ field: OpField) throws(Unsure) -> Timestamp? {
            try tape.optionalInt(field.name, in: object).map { Timestamp(milliseconds: Int64($0)) }
        }

        func recurrence(_ field: OpField) throws(Unsure) -> Recurrence? {
            let rule = try tape.value(field.name, in: object)
            if tape.nodes[rule].kind == .null { return nil }
            let r = try tape.object(rule)
            return Recurrence(
                every: try tape.optionalString("every", in: r).map { text throws(Unsure) in
                    guard let every = Recurrence.Every(rawValue: text) else { throw Unsure() }
                    return every
                },
                days: try tape.optionalValue("days", in: r).map { _ throws(Unsure) in try strings("days", in: r) },
                day: try tape.optionalInt("day", in: r), afterDoneDays: try tape.optionalInt("after_done_days", in: r))
        }

        /// An array of strings.
        private func strings(_ name: StaticString, in o: Int) throws(Unsure) -> [String] {
            let array = try tape.value(name, in: o)
            guard tape.nodes[array].kind == .array else { throw Unsure() }
            var out: [String] = []
            var i = array + 1
            while i < tape.nodes[array].next {
                out.append(try tape.string(i))
                i = tape.nodes[i].next
            }
            return out
        }
    }
}
