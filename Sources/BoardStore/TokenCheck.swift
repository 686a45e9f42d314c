import BoardCore

/// What the store knows about a presented token: whose it is and whether it may still be used.
public struct TokenCheck: Hashable, Sendable {
    /// The token's user.
    public var user: UserID
    /// Whether the token had expired at the time asked about (`token_expired`).
    public var expired: Bool
    /// Whether the token was revoked (`token_revoked`).
    public var revoked: Bool
    /// The user's account role on the server: `owner` for the administrator, `bot` for a bot account, nil otherwise.
    public var account: Role?

    /// Makes a token check.
    public init(user: UserID, expired: Bool, revoked: Bool, account: Role? = nil) {
        self.user = user
        self.expired = expired
        self.revoked = revoked
        self.account = account
    }

    /// Whether the token may be used: neither expired nor revoked.
    public var isValid: Bool { !expired && !revoked }
}
