import Models

/// HMAC-SHA-256 (RFC 2104) on the dependency-free SHA-256 of `Models`.
enum HMACSHA256 {
    static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        let blockSize = 64
        var key = key.count > blockSize ? SHA256.hash(key) : key
        key += [UInt8](repeating: 0, count: blockSize - key.count)
        var inner = SHA256()
        inner.update(key.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(key.map { $0 ^ 0x5C })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// Compares in time independent of where the inputs differ.
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
