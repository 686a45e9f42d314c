import BoardCore

/// What the store knows about a presented token: whose it is and whether it may still be used.
public struct TokenCheck: Hashable, Sendable {
    /// The token's user.
    public var user: UserID
    /// Whether the token had expired at the time asked about (`token_expired`).
    public var expired: Bool
    /// Whether the token was revoked (`token_revoked`).
    public var revoked: Bool

    /// Makes a token check.
    public init(user: UserID, expired: Bool, revoked: Bool) {
        self.user = user
        self.expired = expired
        self.revoked = revoked
    }

    /// Whether the token may be used: neither expired nor revoked.
    public var isValid: Bool { !expired && !revoked }
}
