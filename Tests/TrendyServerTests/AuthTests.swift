import Crypto
import Foundation
import Models
import Testing
import TrendyServerTesting

@testable import TrendyServer

@Suite("Authentication")
struct AuthTests {
    static let secret = LiveTrendyServer.testSecret

    func jwt(header: String = #"{"alg":"HS256","typ":"JWT"}"#, claims: String, secret: [UInt8] = secret) -> String {
        let head = Self.base64url(Array(header.utf8))
        let body = Self.base64url(Array(claims.utf8))
        let signature = Self.base64url(
            Array(
                HMAC<SHA256>.authenticationCode(for: Array("\(head).\(body)".utf8), using: SymmetricKey(data: secret))))
        return "\(head).\(body).\(signature)"
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test("a valid HS256 JWT authenticates its sub; a static token its mapped user")
    func validTokens() async throws {
        let user = UUID().uuidString.lowercased()
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.staticTokens["static-1"] = user
        try await ServerHarness.with(configuration) { harness in
            let exp = Int(Date().timeIntervalSince1970) + 600
            let token = jwt(claims: #"{"sub":"\#(user.uppercased())","exp":\#(exp),"aud":"authenticated","role":"x"}"#)
            let type = try await harness.eventType("Mine")
            _ = type
            let viaStatic = try await harness.send("GET", "/api/v1/event-types", token: "static-1")
            let viaJWT = try await harness.send("GET", "/api/v1/event-types", token: token)
            #expect(viaStatic.status == 200 && viaJWT.status == 200)
            #expect(viaStatic.text == viaJWT.text, "both name the same user")
            let lowercaseScheme = try await harness.send(
                "GET", "/api/v1/event-types", headers: ["Authorization": "bearer static-1"])
            #expect(lowercaseScheme.status == 200)
        }
    }

    @Test(
        "every rejected token is the same 401: expired, not yet valid, wrong signature, alg none, bad sub, unknown",
        arguments: [
            "expired", "not-yet-valid", "wrong-signature", "alg-none", "alg-hs512", "sub-not-uuid", "no-exp", "junk",
        ])
    func rejectedTokens(kind: String) async throws {
        let user = UUID().uuidString.lowercased()
        let now = Int(Date().timeIntervalSince1970)
        let token: String
        switch kind {
        case "expired": token = jwt(claims: #"{"sub":"\#(user)","exp":\#(now - 60)}"#)
        case "not-yet-valid": token = jwt(claims: #"{"sub":"\#(user)","exp":\#(now + 600),"nbf":\#(now + 120)}"#)
        case "wrong-signature":
            token = jwt(claims: #"{"sub":"\#(user)","exp":\#(now + 600)}"#, secret: Array("other".utf8))
        case "alg-none":
            token =
                Self.base64url(Array(#"{"alg":"none"}"#.utf8)) + "."
                + Self.base64url(Array(#"{"sub":"\#(user)","exp":\#(now + 600)}"#.utf8)) + "."
        case "alg-hs512": token = jwt(header: #"{"alg":"HS512"}"#, claims: #"{"sub":"\#(user)","exp":\#(now + 600)}"#)
        case "sub-not-uuid": token = jwt(claims: #"{"sub":"alice","exp":\#(now + 600)}"#)
        case "no-exp": token = jwt(claims: #"{"sub":"\#(user)"}"#)
        default: token = "not-a-token"
        }
        try await ServerHarness.with { harness in
            let response = try await harness.send("GET", "/api/v1/event-types", token: token)
            #expect(response.status == 401 && response.problemType == "unauthorized")
            #expect(response.header("WWW-Authenticate") == "Bearer")
            #expect(response.json?["action"] as? String == "authenticate")
            #expect(!response.text.contains(token), "the token is never echoed")
        }
    }

    @Test("no Authorization header is 401; /health needs none")
    func missingHeader() async throws {
        try await ServerHarness.with { harness in
            #expect(
                try await harness.send("GET", "/api/v1/changes/latest-cursor", authenticated: false).status == 401)
            let health = try await harness.send("GET", "/health", authenticated: false)
            #expect(health.status == 200 && health.json?["status"] as? String == "ok")
        }
    }

    @Test("without a token source the server refuses to start and says why")
    func noTokenSource() async throws {
        var configuration = ServerConfiguration()
        configuration.jwtSecret = nil
        await #expect(throws: ConfigurationError.noTokenSource) { try await TrendyServer(configuration: configuration) }
        #expect(ConfigurationError.noTokenSource.description.contains("--token"))
    }

    @Test("a tokens file maps TOKEN:USER_ID lines, skipping blanks and comments, and rejects bad lines")
    func tokensFile() throws {
        var configuration = ServerConfiguration()
        try configuration.addTokens(
            fromFileContents:
                "# team\n\nalice:0190F5C0-3F00-7A11-8B22-000000000001\nbob:5b3c1d2e-8f4a-4b6c-9d0e-1f2a3b4c5d6e\n")
        #expect(
            configuration.staticTokens == [
                "alice": "0190f5c0-3f00-7a11-8b22-000000000001", "bob": "5b3c1d2e-8f4a-4b6c-9d0e-1f2a3b4c5d6e",
            ])
        #expect(throws: ConfigurationError.self) { try configuration.addTokens(fromFileContents: "carol:not-a-uuid") }
    }

    /// Signed by Python's `hmac` (an implementation independent of ours) with a 131-byte key, longer than a
    /// SHA-256 block, so the key is hashed first (RFC 2104 §2); a changed signature byte must be refused.
    @Test("a token signed by another HS256 implementation verifies; a changed signature does not")
    func foreignToken() throws {
        let token =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwMTkwZjVjMC0zZjAwLTdhMTEtOGIyMi0wMDAwMDAwMDAwMDEiLCJleHAiOjQx"
            + "MDI0NDQ4MDB9.cR5JqY4m585fQ0GEdSGo21J5C4I0LAlY-KKj64uLFws"
        let key = [UInt8](repeating: 0xAA, count: 131)
        #expect(try JWT.verify(token, secret: key, now: Date()) == "0190f5c0-3f00-7a11-8b22-000000000001")
        // "c" → "d" changes a bit of the first signature byte.
        let flipped = token.replacingOccurrences(of: "MDB9.cR5", with: "MDB9.dR5")
        #expect(flipped != token)
        #expect(throws: JWT.Rejection.signature) { try JWT.verify(flipped, secret: key, now: Date()) }
        let minted = JWT.sign(
            claims: ["sub": "0190f5c0-3f00-7a11-8b22-000000000001", "exp": 4_102_444_800], secret: key)
        #expect(try JWT.verify(minted, secret: key, now: Date()) == "0190f5c0-3f00-7a11-8b22-000000000001")
    }
}
