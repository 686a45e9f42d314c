import BoardCore
import BoardWire
import NIOCore

/// Who is connected: connection counts for the caps, and every session by user (for revocation and shutdown).
actor SessionDirectory {
    private var sessions: [SessionID: SessionRef] = [:]
    private var byUser: [UserID: Set<SessionID>] = [:]
    private var unauthenticated: [String: Int] = [:]
    /// The connections that have not authenticated yet (they get `bye` at shutdown too).
    private var preauth: Set<Outbox> = []
    /// Recent failed logins per address (monotonic milliseconds, `ServerClock.monotonicMs`), for slowing down brute
    /// force.
    private var authFailures: [String: [Int64]] = [:]
    /// Failed logins per address per minute before answers to that address are delayed.
    static let authFailuresAllowed = 10
    private(set) var connections = 0
    let connectionsMax: Int
    /// Connections one user may hold, read at each new session (it can change while the server runs).
    let perUserMax: @Sendable () -> Int
    let preauthPerIP: Int

    init(connectionsMax: Int, perUserMax: Int, preauthPerIP: Int) {
        self.init(connectionsMax: connectionsMax, preauthPerIP: preauthPerIP, perUserMax: { perUserMax })
    }

    init(connectionsMax: Int, preauthPerIP: Int, perUserMax: @escaping @Sendable () -> Int) {
        self.connectionsMax = connectionsMax
        self.perUserMax = perUserMax
        self.preauthPerIP = preauthPerIP
    }

    /// Counts a new, not yet authenticated connection from `address`; false when the server, or that address's
    /// allowance of unauthenticated connections (`preauth_per_ip`), is full.
    func open(from address: String, outbox: Outbox) -> Bool {
        guard connections < connectionsMax, unauthenticated[address, default: 0] < preauthPerIP else { return false }
        connections += 1
        unauthenticated[address, default: 0] += 1
        preauth.insert(outbox)
        return true
    }

    /// The connection from `address` authenticated (or closed before it did): it no longer counts as pre-auth.
    func leftPreauth(_ address: String, _ outbox: Outbox) {
        guard preauth.remove(outbox) != nil else { return }
        preauth.releaseSparseCapacity()
        guard let count = unauthenticated[address] else { return }
        unauthenticated[address] = count > 1 ? count - 1 : nil
    }

    /// Records a failed login from `address` at `nowMs`; returns how long to wait before answering it: `delay` once
    /// the address is over `authFailuresAllowed`.
    func authFailed(from address: String, nowMs: Int64, delay: Duration) -> Duration {
        var recent = (authFailures[address] ?? []).filter { nowMs - $0 < 60_000 }
        recent.append(nowMs)
        authFailures[address] = recent
        if authFailures.count > 10_000 { authFailures = authFailures.filter { !$0.value.isEmpty } }
        return recent.count > Self.authFailuresAllowed ? delay : .zero
    }

    /// Un-counts a connection and forgets its session.
    func close(_ session: SessionID?) {
        connections -= 1
        guard let session, let ref = sessions.removeValue(forKey: session) else { return }
        sessions.releaseSparseCapacity()
        byUser[ref.user]?.remove(session)
        if byUser[ref.user]?.isEmpty == true { byUser[ref.user] = nil }
    }

    /// Storage the session table holds, in sessions (it shrinks as sessions close: `SparseCapacity`).
    var sessionCapacity: Int { sessions.capacity }

    /// Registers an authenticated session; false when the user has too many.
    func register(_ session: SessionRef) -> Bool {
        guard (byUser[session.user]?.count ?? 0) < perUserMax() else { return false }
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

    /// Every connection's outbox (for `bye` at shutdown): the sessions', and those of connections that have not
    /// authenticated yet.
    func outboxes() -> (sessions: [Outbox], preauth: [Outbox]) { (sessions.values.map(\.outbox), Array(preauth)) }
}
