import Foundation
import Hashing
import Models
import Protocols
import Synchronization

/// The sync digest (api-v1 §14), computed over the model's state the way trendy-server computes it over its tables.
extension InMemoryTrendyServer {
    /// `GET /sync/digest`: `user`'s digest at the latest cursor.
    public func digest(user: String) throws(NetworkError) -> SyncDigest {
        let (cursor, hashes) = try digestHashes(user: user)
        var builder = DigestBuilder()
        for item in hashes { builder.add(item.type, id: item.id, hash: item.hash) }
        return builder.digest(cursor: cursor)
    }

    /// The digest of `entities` as a server holding exactly them at `cursor` answers it: what a test computes on
    /// its own side to hold a server's digest to the algorithm.
    public static func digest(of entities: [APIEntity], cursor: Int64) throws -> SyncDigest {
        let hashing = CryptoSHA256()
        var builder = DigestBuilder()
        for entity in entities {
            builder.add(
                entity.entityType, id: entity.id.lowercased(),
                hash: hashing.digest(of: try EntityDigest.canonicalBytes(entity)))
        }
        return builder.digest(cursor: cursor)
    }

    /// `GET /sync/digest?bucket=xx`: the entities of one bucket with their hashes; 400 for a bad bucket name.
    public func digestBucket(user: String, bucket: String) throws(NetworkError) -> SyncDigestBucket {
        guard EntityDigest.isBucketName(bucket) else {
            throw Problems.badRequest("bucket must be two lowercase hex digits")
        }
        let (cursor, hashes) = try digestHashes(user: user)
        let items = hashes.filter { EntityDigest.bucket(of: $0.id) == bucket }.sorted { $0.id < $1.id }.map {
            SyncDigestBucket.Item(
                entityType: $0.type.rawValue, id: $0.id, hash: DigestSum(hash: $0.hash).hexString)
        }
        return SyncDigestBucket(cursor: cursor, bucket: bucket, items: items)
    }

    /// Every entity of the user with its SHA-256, read with the cursor in one snapshot of the state.
    private func digestHashes(
        user: String
    ) throws(NetworkError) -> (cursor: Int64, hashes: [(type: MutationEntityType, id: String, hash: [UInt8])]) {
        let (cursor, entities) = state.withLock { state -> (Int64, [APIEntity]) in
            var entities: [APIEntity] = state.eventTypes.values.filter { $0.userId == user }.map { .eventType($0) }
            entities += state.events.values.filter { $0.userId == user }.map { .event($0) }
            entities += state.geofences.values.filter { $0.userId == user }.map { .geofence($0) }
            entities += state.definitions.values.filter { $0.userId == user }.map { .propertyDefinition($0) }
            return (state.changes.last { $0.userId == user }?.id ?? 0, entities)
        }
        let hashing = CryptoSHA256()
        do {
            return (
                cursor,
                try entities.map { entity in
                    (
                        entity.entityType, entity.id.lowercased(),
                        hashing.digest(of: try EntityDigest.canonicalBytes(entity))
                    )
                }
            )
        } catch {
            throw Problems.failure(500, "internal", "digest: \(error)")
        }
    }
}
