import BoardCore
import BoardWire
import NIOCore

/// The sessions present on a board, each entry's JSON kept encoded and the sessions kept in order, so that the
/// `presence.state` a joining session gets is a concatenation of ready bytes.
///
/// Sorting and encoding every entry for every join made a thousand people joining one board cost about 3 s of CPU
/// (the sort 31 % and the encoder 18 % of the join's profile). Here an entry is encoded once when it
/// changes and placed by binary search; the line is byte for byte what `Lines.line(.presenceState(…))` writes for the
/// entries sorted by session.
struct PresenceTable {
    /// Each present session's entry.
    private(set) var entries: [SessionID: ServerMessage.PresenceEntry] = [:]
    /// The present sessions in ascending order.
    private var order: [SessionID] = []
    /// Each entry as compact JSON.
    private var encoded: [SessionID: [UInt8]] = [:]

    /// Whether no session is present.
    var isEmpty: Bool { entries.isEmpty }

    /// The session's entry; setting `nil` removes it.
    subscript(session: SessionID) -> ServerMessage.PresenceEntry? {
        get { entries[session] }
        set {
            guard let newValue else {
                removeValue(forKey: session)
                return
            }
            if entries.updateValue(newValue, forKey: session) == nil {
                order.insert(session, at: insertionIndex(of: session))
            }
            encoded[session] = (try? LineWriter.encode(newValue)) ?? []
        }
    }

    /// Removes the session's entry and returns it, if it had one.
    @discardableResult
    mutating func removeValue(forKey session: SessionID) -> ServerMessage.PresenceEntry? {
        guard let removed = entries.removeValue(forKey: session) else { return nil }
        order.remove(at: insertionIndex(of: session))
        encoded[session] = nil
        return removed
    }

    /// Removes every entry.
    mutating func removeAll() {
        entries = [:]
        order = []
        encoded = [:]
    }

    /// The `presence.state` line of `board` with every entry in session order, its `\n` included.
    func stateLine(board: BoardID) -> ByteBuffer {
        let empty = Lines.line(.presenceState(ServerMessage.PresenceSnapshot(board: board, sessions: [])))
        let bytes = empty.readableBytesView
        // `sessions` is the envelope's last key: the line ends with `[]}` and a newline; the entries go between.
        guard !order.isEmpty, bytes.count >= 4, bytes.suffix(4).elementsEqual(Array("[]}\n".utf8)),
            order.allSatisfy({ encoded[$0]?.isEmpty == false })
        else { return order.isEmpty ? empty : slowStateLine(board: board) }
        let size = order.reduce(bytes.count) { $0 + (encoded[$1]?.count ?? 0) + 1 }
        var line = ByteBufferAllocator().buffer(capacity: size)
        line.writeBytes(bytes.dropLast(3))
        for (i, session) in order.enumerated() {
            if i > 0 { line.writeInteger(UInt8(ascii: ",")) }
            line.writeBytes(encoded[session] ?? [])
        }
        line.writeBytes(bytes.suffix(3))
        return line
    }

    /// The same line through the encoder (should the envelope ever not end as expected).
    private func slowStateLine(board: BoardID) -> ByteBuffer {
        Lines.line(.presenceState(ServerMessage.PresenceSnapshot(board: board, sessions: order.compactMap { entries[$0] })))
    }

    /// Where `session` is, or would go, in `order`.
    private func insertionIndex(of session: SessionID) -> Int {
        var low = 0
        var high = order.count
        while low < high {
            let middle = (low + high) / 2
            if order[middle] < session { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension PresenceTable: Sequence {
    /// The entries, in no particular order.
    func makeIterator() -> Dictionary<SessionID, ServerMessage.PresenceEntry>.Iterator { entries.makeIterator() }
}
