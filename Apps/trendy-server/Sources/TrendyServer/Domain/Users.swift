import Foundation
import HTTPTypes
import Models

enum Users {
    /// Creates the user on its first authenticated request (api-v1 §10).
    static func ensure(_ db: any StorageTransaction, id: String, now: Int64) throws {
        try db.execute(
            sql: "INSERT INTO users (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", arguments: [id, now])
    }
}
