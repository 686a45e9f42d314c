import BoardCore

extension ClientMessage {
    /// `inbox`: the user's inbox, newest first; answered by `inbox` (feature `inbox`).
    public struct InboxRequest: Hashable, Sendable, Codable {
        /// Echoed in the reply.
        public var req: RequestID?
        /// Only the entries not read yet.
        public var unread: Bool?
        /// At most this many entries (1–200; default 50).
        public var limit: Int?
        /// Only entries with a smaller id: the next page.
        public var before: Int64?

        /// Makes the request.
        public init(req: RequestID? = nil, unread: Bool? = nil, limit: Int? = nil, before: Int64? = nil) {
            self.req = req
            self.unread = unread
            self.limit = limit
            self.before = before
        }
    }

    /// `inbox.read`: marks entries read (`ids`), or every entry (`all`); answered by `ok`, and every session of the
    /// user is sent `inbox.read` (feature `inbox`).
    public struct InboxRead: Hashable, Sendable, Codable {
        /// Echoed in the reply.
        public var req: RequestID?
        /// The entries to mark read.
        public var ids: [Int64]?
        /// Mark every entry read.
        public var all: Bool?

        /// Makes the request.
        public init(req: RequestID? = nil, ids: [Int64]? = nil, all: Bool? = nil) {
            self.req = req
            self.ids = ids
            self.all = all
        }
    }
}

extension ServerMessage {
    /// `inbox`: a page of the user's inbox, newest first, and how many entries are unread in all.
    public struct InboxPage: Hashable, Sendable, Codable {
        /// The request's `req`.
        public var req: RequestID?
        /// The entries, newest first.
        public var entries: [InboxEntry]
        /// Unread entries in the whole inbox.
        public var unread: Int

        /// Makes a page.
        public init(req: RequestID?, entries: [InboxEntry], unread: Int) {
            self.req = req
            self.entries = entries
            self.unread = unread
        }
    }

    /// `inbox.entry`: a new entry for the user, sent to each of their sessions as it arrives.
    public struct InboxNew: Hashable, Sendable, Codable {
        /// The entry.
        public var entry: InboxEntry
        /// Unread entries in the whole inbox, this one included.
        public var unread: Int

        /// Makes the message.
        public init(entry: InboxEntry, unread: Int) {
            self.entry = entry
            self.unread = unread
        }
    }

    /// `inbox.read`: entries were marked read (on any of the user's clients), sent to each of their sessions.
    public struct InboxMarked: Hashable, Sendable, Codable {
        /// The entries now read.
        public var ids: [Int64]
        /// Unread entries left.
        public var unread: Int

        /// Makes the message.
        public init(ids: [Int64], unread: Int) {
            self.ids = ids
            self.unread = unread
        }
    }
}

extension ClientMessage {
    /// `notify`: reads the user's mail settings, changing those given first; answered by `notify` (feature `inbox`).
    public struct NotifyRequest: Hashable, Sendable, Codable {
        /// Echoed in the reply.
        public var req: RequestID?
        /// The mail address; `""` removes it (no more mail).
        public var email: String?
        /// The level on every board without one of its own.
        public var level: NotifySettings.Level?
        /// How long an entry stays unread before it is mailed, in ms.
        public var delayMs: Int64?
        /// With `board_level`: the board whose level changes.
        public var board: BoardID?
        /// The board's own level; `"default"` would be spelled by leaving the board out of `boards` — send `null`
        /// (the JSON null) to remove it.
        public var boardLevel: Clearable<NotifySettings.Level>?

        enum CodingKeys: String, CodingKey {
            case req, email, level, board
            case delayMs = "delay_ms"
            case boardLevel = "board_level"
        }

        /// Makes the request.
        public init(
            req: RequestID? = nil, email: String? = nil, level: NotifySettings.Level? = nil, delayMs: Int64? = nil,
            board: BoardID? = nil, boardLevel: Clearable<NotifySettings.Level>? = nil
        ) {
            self.req = req
            self.email = email
            self.level = level
            self.delayMs = delayMs
            self.board = board
            self.boardLevel = boardLevel
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            req = try c.decodeIfPresent(RequestID.self, forKey: .req)
            email = try c.decodeIfPresent(String.self, forKey: .email)
            level = try c.decodeIfPresent(NotifySettings.Level.self, forKey: .level)
            delayMs = try c.decodeIfPresent(Int64.self, forKey: .delayMs)
            board = try c.decodeIfPresent(BoardID.self, forKey: .board)
            if c.contains(.boardLevel) {
                boardLevel = try c.decodeNil(forKey: .boardLevel) ? .clear : .set(try c.decode(NotifySettings.Level.self, forKey: .boardLevel))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(req, forKey: .req)
            try c.encodeIfPresent(email, forKey: .email)
            try c.encodeIfPresent(level, forKey: .level)
            try c.encodeIfPresent(delayMs, forKey: .delayMs)
            try c.encodeIfPresent(board, forKey: .board)
            switch boardLevel {
            case .set(let level)?: try c.encode(level, forKey: .boardLevel)
            case .clear?: try c.encodeNil(forKey: .boardLevel)
            case nil: break
            }
        }
    }
}

extension ServerMessage {
    /// `notify`: the user's mail settings, the answer to `notify`.
    public struct NotifyReply: Hashable, Sendable, Codable {
        /// The request's `req`.
        public var req: RequestID?
        /// The settings.
        public var settings: NotifySettings

        /// Makes the reply.
        public init(req: RequestID?, settings: NotifySettings) {
            self.req = req
            self.settings = settings
        }
    }
}
