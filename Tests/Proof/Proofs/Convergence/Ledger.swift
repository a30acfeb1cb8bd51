import Models

/// What the clients did that the verdict needs: which ids each created, deleted and discarded.
struct Ledger {
    struct Creation {
        let client: String
        let kind: MutationEntityType
        /// The event type of an event or a property definition.
        let parentType: String?
    }

    var created: [String: Creation] = [:]
    /// Ids deleted locally, with the client that deleted them.
    var deleted: [String: String] = [:]
    /// Ids whose mutations a client discarded, by client.
    var discarded: [String: Set<String>] = [:]
    /// Ids a client imported back after some client deleted them (api-v1 §7 restores): their delete no longer
    /// stands for sure, whichever reached the server last wins.
    var restored: Set<String> = []
    /// Ids whose refused give-back (kept as the whole row, sync-engine R15) a user sent again: its stale fields may
    /// replace newer ones, by that choice.
    var sentWholeByChoice: Set<String> = []

    /// True when the entity was deleted by some client, or went with its deleted event type.
    func wasDeleted(_ id: String) -> Bool {
        if deleted[id] != nil { return true }
        if let parent = created[id]?.parentType, deleted[parent] != nil { return true }
        return false
    }

    /// True when some client gave up on one of the entity's writes (or its type's).
    func wasDiscarded(_ id: String) -> Bool {
        let parent = created[id]?.parentType
        return discarded.values.contains { $0.contains(id) || parent.map($0.contains) == true }
    }
}
