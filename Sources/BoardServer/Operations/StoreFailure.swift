import BoardStore
import BoardWire

/// What a client is told when the store fails under its request: the one mapping from the store's failures to the
/// codes of Protocol.md ("Errors"), so a failure means the same code wherever it surfaces.
enum StoreUse {
    /// A read (a mark, a page of history, a catch-up): nothing was changed.
    case read
    /// A write (a commit, a new board, a hook): nothing was written unless the code says otherwise.
    case write
}

extension StoreError {
    /// The code of an `error` line for a request this failure stopped. A failed read is `storage_busy` (nothing was
    /// changed; it may be asked again). A write refused for space is `storage_full`; one that may succeed if sent
    /// again (locked, or another node committed first) is `storage_busy`; a missing thing is `not_found`; anything
    /// else is a broken invariant, `internal`.
    func wireCode(during use: StoreUse) -> ErrorCode {
        if use == .read { return .storageBusy }
        switch code {
        case .full: return .storageFull
        case .busy, .headMoved: return .storageBusy
        case .notFound: return .notFound
        case .corrupt, .duplicate, .io, .internal: return .internal
        }
    }

    /// The code of a `reject` for an op this failure stopped (the same mapping as ``wireCode(during:)``).
    func rejectCode(during use: StoreUse) -> RejectCode {
        switch wireCode(during: use) {
        case .storageFull: .storageFull
        case .storageBusy: .storageBusy
        case .notFound: .rejected(.notFound)
        default: .internal
        }
    }
}
