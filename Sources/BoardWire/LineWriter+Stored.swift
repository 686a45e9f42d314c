import BoardCore

extension LineWriter {
    /// A `delta` line and the JSON texts the store keeps for the same change, both from one encoding.
    ///
    /// `op` is the bytes of the line's `op` value; `activity` is the bytes of its `activity` value completed with the
    /// record's `names` member (which deltas leave out, Protocol.md "Activity records"), so the op and the activity
    /// are encoded once for the wire and the store together.
    public struct StoredDelta: Sendable {
        /// The `delta` line with its `\n`, for every subscriber and the recent log.
        public var line: [UInt8]
        /// The op as the store keeps it: the line's `op` value.
        public var op: String
        /// The activity record as the store keeps it: the line's `activity` value plus `names`, when it has any.
        public var activity: String
    }

    /// The `delta` line of a change and its op and activity texts for the store (see `StoredDelta`).
    public static func storedDelta(
        board: BoardID, seq: UInt64, at: Timestamp, actor: UserID, clientID: ClientID?, mut: UInt64?, op: Op,
        activity: Activity
    ) -> StoredDelta {
        let writer = JSONByteWriter(capacity: initialCapacity)
        let ranges = writer.writeDeltaObject(
            board: board, seq: seq, at: at, actor: actor, clientID: clientID, mut: mut, op: op, activity: activity)
        writer.put(0x0A)
        return writer.withWritten { bytes in
            let opText = String(decoding: UnsafeBufferPointer(rebasing: bytes[ranges.op]), as: UTF8.self)
            let activityText: String
            if let names = activity.names {
                // The activity object without its closing brace, then `,"names":{…}` and the brace.
                let member = JSONByteWriter(capacity: 128)
                member.writeNames(names)
                var record: [UInt8] = []
                record.reserveCapacity(ranges.activity.count + member.count + 1)
                record.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[ranges.activity.dropLast()]))
                member.withWritten { record.append(contentsOf: $0) }
                record.append(UInt8(ascii: "}"))
                activityText = String(decoding: record, as: UTF8.self)
            } else {
                activityText = String(decoding: UnsafeBufferPointer(rebasing: bytes[ranges.activity]), as: UTF8.self)
            }
            return StoredDelta(line: Array(bytes), op: opText, activity: activityText)
        }
    }
}
