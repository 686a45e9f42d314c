/// The protocol versions this library speaks, and how two peers agree on one (Protocol.md, "Versioning").
///
/// A client sends its highest version in `hello`. A server that speaks it answers `welcome` with that version;
/// otherwise it answers `error` `unsupported_version` listing the versions it speaks, keeps the connection open,
/// and the client says `hello` again with the highest version both sides speak.
public enum ProtocolVersion {
    /// The newest version this library speaks.
    public static let current = 1

    /// Every version this library speaks, ascending.
    public static let supported: [Int] = [1]

    /// Whether this library speaks `version`.
    public static func isSupported(_ version: Int) -> Bool { supported.contains(version) }

    /// The version to retry with after `unsupported_version`: the highest version in both `theirs` and `ours`,
    /// or nil when the two peers share none.
    public static func fallback(from theirs: [Int], ours: [Int] = supported) -> Int? {
        Set(theirs).intersection(ours).max()
    }
}
