/// The release of this stack, printed by `trendyctl --version` and `trendy-server --version`.
public enum TrendyRelease {
    public static let version = "1.0.0"
}
