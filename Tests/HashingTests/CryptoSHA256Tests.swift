import Hashing
import Protocols
import Testing

/// The live digest through the `SHA256Hashing` boundary: the FIPS 180-4 vectors, which also pin the hex form
/// (lowercase, two digits a byte, leading zeros kept) that batch keys (S31) and fingerprints depend on.
@Suite("CryptoSHA256")
struct CryptoSHA256Tests {
    let hashing: any SHA256Hashing = CryptoSHA256()

    @Test(
        "matches the FIPS 180-4 test vectors",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func vectors(message: String, digest: String) {
        #expect(hashing.hexDigest(of: message) == digest)
        #expect(hashing.hexDigest(of: Array(message.utf8)) == digest)
    }

    @Test("one million 'a'")
    func longMessage() {
        #expect(
            hashing.hexDigest(of: [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
