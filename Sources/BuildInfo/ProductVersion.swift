import BoardWire

/// What a binary says about itself: the version (``BoardWire/ProductVersion``), the git commit it was built from
/// (recorded by the BuildCommit plugin) and the protocol version.
public enum BuildInfo {
    /// The git commit the binary was built from, or `unknown` (built outside a git checkout).
    public static let commit = buildCommit

    /// `TOOL 0.3.0 (commit 1a2b3c4d5e6f, protocol 1)`: what `--version` prints.
    public static func versionLine(_ tool: String) -> String {
        "\(tool) \(ProductVersion.version) (commit \(commit), protocol \(ProtocolVersion.current))"
    }
}
