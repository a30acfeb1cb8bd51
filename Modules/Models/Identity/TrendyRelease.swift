/// The release of this stack, printed by `trendyctl --version` and `trendy-server --version`.
public enum TrendyRelease {
    /// The semantic version of the release (CHANGELOG.md names its commit).
    public static let version = "1.0.0"
}
