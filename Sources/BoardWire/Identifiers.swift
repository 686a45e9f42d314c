import BoardCore

/// Tags identifiers of client installations (see ``ClientID``).
public enum ClientTag {}

/// Tags identifiers of server sessions (see ``SessionID``).
public enum SessionTag {}

/// Identifies a client installation across reconnects; exactly-once delivery is keyed by user and client id.
public typealias ClientID = Identifier<ClientTag>

/// Identifies one authenticated connection; presence is per session.
public typealias SessionID = Identifier<SessionTag>
