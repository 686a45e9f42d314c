/// One thing a soak client saw or did, as one JSON line of a recorded history (`t` says which).
///
/// - `sent`: the client sent op `mut` to `board` (`resend`: again, after a reconnect or a retryable reject);
/// - `ack` / `reject`: the server's answer to `mut` (`seq` of the ack, `code` of the reject; `noop` acks carry no
///   seq of their own);
/// - `start`: a connection `conn` of `client` began following `board` at `seq` (a snapshot, `resume` false, or a
///   resume inside the retained history, `resume` true; `epoch` of the stream);
/// - `delta`: connection `conn` received delta `seq` made by `origin`'s op `mut`;
/// - `replica`: after quiescence the client's replica of `board` is at `seq` with `hash`;
/// - `final`: the server's board after the last restart: its `seq`, its `hash` and every applied op (`applied`,
///   by seq), read back from the store;
/// - `derived`: what the server derives from the log (`what`: inbox mentions, recurring cards' next occurrences,
///   reminders), read back from the store after the last restart: the keys the history says it must have derived
///   (`expected`), the keys of what it stored (`found`, one per stored item, so a double shows twice), and those
///   stored incomplete (`partial`).
public struct HistoryRecord: Codable, Hashable, Sendable {
    /// The kind of record.
    public enum Kind: String, Codable, Sendable {
        case sent, ack, reject, start, delta, replica, final, derived
    }

    /// An op the server applied, as the final read-back lists it.
    public struct Applied: Codable, Hashable, Sendable {
        /// Its seq.
        public var seq: UInt64
        /// The client id that sent it.
        public var client: String
        /// That client's mutation number.
        public var mut: UInt64

        /// Makes an entry.
        public init(seq: UInt64, client: String, mut: UInt64) {
            self.seq = seq
            self.client = client
            self.mut = mut
        }
    }

    /// The kind.
    public var t: Kind
    /// The board.
    public var board: String
    /// The client id (the recorder), for every kind but `final`.
    public var client: String?
    /// The connection number of `client` (`start`, `delta`).
    public var conn: Int?
    /// The mutation number (`sent`, `ack`, `reject`, `delta`).
    public var mut: UInt64?
    /// The seq (`ack`, `start`, `delta`, `replica`, `final`).
    public var seq: UInt64?
    /// The stream epoch (`start`, `delta`).
    public var epoch: String?
    /// The client whose op made a delta.
    public var origin: String?
    /// A reject's code.
    public var code: String?
    /// A board hash (`replica`, `final`).
    public var hash: String?
    /// A resend (`sent`), a resume (`start`).
    public var resend: Bool?
    /// A resume inside the retained history (`start`).
    public var resume: Bool?
    /// An ack of an op that changed nothing (no seq of its own).
    public var noop: Bool?
    /// Every applied op (`final`).
    public var applied: [Applied]?
    /// What was derived (`derived`): `mention`, `occurrence`, `reminder`, ….
    public var what: String?
    /// The keys that must have been derived, once each (`derived`).
    public var expected: [String]?
    /// The keys of what was stored, one per stored item (`derived`).
    public var found: [String]?
    /// The keys of what was stored incomplete (`derived`).
    public var partial: [String]?

    /// Makes a record; set the fields its kind uses.
    public init(_ t: Kind, board: String, client: String? = nil) {
        self.t = t
        self.board = board
        self.client = client
    }
}
