import BoardCore
import BoardWire
import NIOCore

/// Who is connected: connection counts for the caps, and every session by user (for revocation and shutdown).
actor SessionDirectory {
    private var sessions: [SessionID: SessionRef] = [:]
    private var byUser: [UserID: Set<SessionID>] = [:]
    private var unauthenticated: [String: Int] = [:]
    private(set) var connections = 0
    let connectionsMax: Int
    let perUserMax: Int
    let preauthPerIP: Int

    init(connectionsMax: Int, perUserMax: Int, preauthPerIP: Int) {
        self.connectionsMax = connectionsMax
        self.perUserMax = perUserMax
        self.preauthPerIP = preauthPerIP
    }

    /// Counts a new, not yet authenticated connection from `address`; false when the server, or that address's
    /// allowance of unauthenticated connections (`preauth_per_ip`), is full.
    func open(from address: String) -> Bool {
        guard connections < connectionsMax, unauthenticated[address, default: 0] < preauthPerIP else { return false }
        connections += 1
        unauthenticated[address, default: 0] += 1
        return true
    }

    /// The connection from `address` authenticated (or closed before it did): it no longer counts as pre-auth.
    func leftPreauth(_ address: String) {
        guard let count = unauthenticated[address] else { return }
        unauthenticated[address] = count > 1 ? count - 1 : nil
    }

    /// Un-counts a connection and forgets its session.
    func close(_ session: SessionID?) {
        connections -= 1
        guard let session, let ref = sessions.removeValue(forKey: session) else { return }
        byUser[ref.user]?.remove(session)
        if byUser[ref.user]?.isEmpty == true { byUser[ref.user] = nil }
    }

    /// Registers an authenticated session; false when the user has too many.
    func register(_ session: SessionRef) -> Bool {
        guard (byUser[session.user]?.count ?? 0) < perUserMax else { return false }
        sessions[session.id] = session
        byUser[session.user, default: []].insert(session.id)
        return true
    }

    /// The user's sessions.
    func sessions(of user: UserID) -> [SessionRef] {
        (byUser[user] ?? []).compactMap { sessions[$0] }
    }

    /// Every session.
    func all() -> [SessionRef] { Array(sessions.values) }
}
