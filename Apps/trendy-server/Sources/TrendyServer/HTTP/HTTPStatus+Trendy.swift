import HTTPTypes

extension HTTPResponse.Status {
    /// 207, the batch answer when some item failed (api-v1 §5.3.5).
    static let multipleOutcomes = HTTPResponse.Status(code: 207, reasonPhrase: "Multi-Status")
}
