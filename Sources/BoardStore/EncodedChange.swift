import BoardCore

/// A change as the server hands it to the store: the event and the JSON texts its row keeps, already encoded.
///
/// The server takes `op` and `activity` from the bytes of the change's `delta` line (`LineWriter.storedDelta`), so
/// the op and activity of a change are encoded once, for the wire and the store together; the store writes these
/// texts as they are. They must decode to `event.op` and `event.activity` (names included), and `inverse` to
/// `event.inverse`.
public struct EncodedChange: Sendable {
    /// The change.
    public var event: StoredEvent
    /// `event.op` as JSON text.
    public var op: String
    /// `event.activity` as JSON text, `names` included.
    public var activity: String
    /// `event.inverse` as JSON text.
    public var inverse: String?

    /// Makes a change ready for the store.
    public init(event: StoredEvent, op: String, activity: String, inverse: String?) {
        self.event = event
        self.op = op
        self.activity = activity
        self.inverse = inverse
    }
}
