/// The product's version, in one place: clients name it in `hello`, corkd in `welcome`, every executable in
/// `--version` (with the commit, from BuildInfo). Releases are in CHANGELOG.md.
public enum ProductVersion {
    /// This release.
    public static let version = "0.3.0"
}
