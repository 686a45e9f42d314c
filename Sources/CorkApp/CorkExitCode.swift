/// The exit codes of the one-shot `cork` commands, for scripts and bots.
///
/// | code | meaning |
/// |---|---|
/// | 0 | done |
/// | 1 | something else failed (a file that cannot be read or written, a request other than an op that timed out) |
/// | 2 | usage: a bad option or argument, a reference that names nothing exactly (ambiguous), a bad query |
/// | 3 | the server rejected the op (`code: message` on stderr) |
/// | 4 | cannot connect: unreachable, TLS or fingerprint failure, bad or revoked token, changed host key |
/// | 5 | not found: no such card, column, label, milestone, checklist item, member or board (or not a member of the
/// board); nothing of the user's to undo or redo |
/// | 6 | outcome unknown: an op was sent but the connection failed (or the time ran out) before its answer; it may
/// have been applied |
public enum CorkExitCode: Int32, Hashable, Sendable, CaseIterable {
    /// Done.
    case ok = 0
    /// Something else failed.
    case failure = 1
    /// Bad usage.
    case usage = 2
    /// The server rejected the op.
    case rejected = 3
    /// Cannot connect, TLS or authentication failed.
    case cannotConnect = 4
    /// Something named does not exist.
    case notFound = 5
    /// An op was sent, and whether it was applied is unknown.
    case outcomeUnknown = 6

    /// The table above as plain text, for `cork --help`.
    public static let helpText = """
        Exit codes:
          0  done
          1  something else failed (a file that cannot be read or written, a
             request other than an op that timed out)
          2  usage error (bad option or argument, ambiguous reference, bad
             query, an argument that is not UTF-8)
          3  the server rejected the op (or would: an invalid or too large
             field is refused before sending); `cork: code: message` on stderr
          4  cannot connect: unreachable server, no TLS answer, fingerprint
             mismatch, bad or revoked token, too many sessions (server_full)
          5  not found: card, column, label, milestone, checklist item, member
             or board (or not a member of it); nothing of yours to undo or redo
          6  outcome unknown: an op was sent, then the connection failed or
             the time ran out before its answer; it may have been applied
             (retrying `add --ref` is safe; for others check `cork history`)
        """
}
