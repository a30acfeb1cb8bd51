/// What a server keeps of a write sent with an `Idempotency-Key` (api-v1 §7): the first successful answer, keyed by
/// its scope, and the fingerprint of the body it answered. trendy-server and the in-memory server keep the same
/// record and apply the same rule; only the form of the answer differs (the bytes sent, or the typed value).
public struct IdempotencyRecord<Answer: Sendable>: Sendable {
    /// What a key is unique within: one user, one method, one path (api-v1 §7).
    public struct Scope: Hashable, Sendable {
        /// The account that sent it.
        public let user: String
        /// The HTTP method.
        public let method: String
        /// The path as the server's dialect keys it (`Dialect.idempotencyPath` in trendy-server).
        public let path: String
        /// The `Idempotency-Key`.
        public let key: String

        /// A scope.
        public init(user: String, method: String, path: String, key: String) {
            self.user = user
            self.method = method
            self.path = path
            self.key = key
        }
    }

    /// `fingerprint(of:hexDigest:)` of the body the answer was given to.
    public let fingerprint: String
    /// The answer every replay repeats.
    public let answer: Answer

    /// A record of `answer` to a body of `fingerprint`.
    public init(fingerprint: String, answer: Answer) {
        self.fingerprint = fingerprint
        self.answer = answer
    }

    /// The answer a re-send replays: the stored one when its body has the same fingerprint; nil for another body,
    /// which the server refuses with 422 `idempotency_mismatch`.
    public func replay(forBodyWith fingerprint: String) -> Answer? {
        fingerprint == self.fingerprint ? answer : nil
    }

    /// The fingerprint of a request body: the SHA-256 (`hexDigest`) of its canonical JSON — sorted keys, no
    /// whitespace — so that a re-send spelled differently is the same request, or of its raw bytes when it is not
    /// JSON. Also the body parsed, when it was JSON, so that a handler need not parse it again.
    public static func fingerprint(
        of body: [UInt8], hexDigest: ([UInt8]) -> String
    ) -> (fingerprint: String, json: JSONValue?) {
        guard let json = try? JSONText.parse(body) else { return (hexDigest(body), nil) }
        return (hexDigest(Array(JSONText.string(json).utf8)), json)
    }
}
