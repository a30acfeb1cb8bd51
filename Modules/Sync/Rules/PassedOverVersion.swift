import Foundation
import Models

/// sync-engine R15, the pull's side: a version this device holds acknowledged, written after its feed position, that
/// the feed passes over.
///
/// Every write the server acknowledged is in its feed after the position the device pulled from, so a page that
/// brings a later change of the entity first brings that version's own entry (its echo). When it does not, the
/// server's history went around the version: a copy put back by hand from before it, still holding the device's
/// position, on which another device wrote the entity since. Applying the later change would take the version's
/// fields away without a trace, so the entity is given back first and read back after (a `giveBack` debt, R4); the
/// server's field merge keeps what was written since. A change compaction removed can hide an echo too
/// (api-v1 §6.8): the give-back then finds the server holding the version already, and the read-back writes its
/// state. A held delete is passed over by a later version of the incarnation it ended (api-v1 §15.1), which only a
/// server that lost the delete can hold: the delete goes back, and ends that incarnation again.
enum PassedOverVersion {
    /// What a page's entries do to the versions a device holds: those they pass over, and the entries that must not
    /// be written.
    struct Judgment {
        /// The entities whose held version a later version comes before (for a held delete, a later version of the
        /// incarnation it ended).
        var passedOver: [(type: MutationEntityType, id: String)] = []
        /// Change ids of entries that bring an older version of an entity before its held version's echo: written,
        /// they would take that version's fields away (or bring back what a held delete removed), and if the echo
        /// never comes (the server lost it) the row would go back without them. The echo, when it comes, holds
        /// everything they did.
        var older: Set<Int64> = []
    }

    /// The entities of `entries` (a page, in feed order) whose held version (`held`, by lowercased id) was
    /// acknowledged after the time of `position`, where the pull began, and is passed over: a later version of it
    /// comes before its echo; and the entries of such entities that bring an older version first. `settled` carries
    /// from page to page the entities the pull is done with: echoed, named, or first met with nothing to watch for
    /// (no such version held, a delete, or a re-creation after a held delete). Only an entity's entries before it
    /// settles count: the pull's own pages record later versions as they apply them.
    static func judge(
        _ entries: [ChangeEntry], held: [String: AcknowledgedVersion], pullingFrom position: FeedPosition,
        settled: inout Set<String>
    ) -> Judgment {
        guard let positionTime = position.createdAt?.millisecondsSince1970 else { return Judgment() }
        var judgment = Judgment()
        for entry in entries {
            guard let version = entry.acknowledgedVersion, !settled.contains(version.id) else { continue }
            guard !version.deleted, let mine = held[version.id],
                mine.acknowledgedAt.millisecondsSince1970 > positionTime
            else {
                settled.insert(version.id)
                continue
            }
            let mineAt = mine.acknowledgedAt.millisecondsSince1970
            let versionAt = version.acknowledgedAt.millisecondsSince1970
            if mine.deleted {
                // api-v1 §15.1 on the device's side: a delete ends the incarnation it finds, so a version of an
                // incarnation created no later than the held delete is one that delete ended. Later than the delete,
                // it shows the server lost the delete (a re-sent create dated when it was queued, on a copy put
                // back by hand); earlier, the delete's echo may still follow. A version created after it is a
                // re-creation, written as it comes.
                guard let created = version.createdAt?.millisecondsSince1970,
                    GiveBackItem.deleteEnds(incarnationBegan: created, deletedAt: mineAt)
                else {
                    settled.insert(version.id)
                    continue
                }
                if versionAt > mineAt {
                    settled.insert(version.id)
                    judgment.passedOver.append((version.entityType, version.id))
                } else {
                    judgment.older.insert(entry.id)
                }
            } else if versionAt == mineAt {
                settled.insert(version.id)
            } else if versionAt > mineAt {
                settled.insert(version.id)
                judgment.passedOver.append((version.entityType, version.id))
            } else {
                // An older version: the echo may still follow, and brings what this one did.
                judgment.older.insert(entry.id)
            }
        }
        return judgment
    }

    /// The entities whose held version (`held`), acknowledged after the time of `position`, a pull that read the
    /// feed from `position` to its head without a break did not settle: the echo every acknowledged write leaves in
    /// the feed never came, so the server's history went around the version (a copy put back by hand from before
    /// it), and a later change of the entity, coming after this pull, would pass it over unseen.
    static func missingAtTheHead(
        held: [AcknowledgedVersion], pullingFrom position: FeedPosition, settled: Set<String>
    ) -> [(type: MutationEntityType, id: String)] {
        guard let positionTime = position.createdAt?.millisecondsSince1970 else { return [] }
        return held.filter {
            !$0.deleted && $0.acknowledgedAt.millisecondsSince1970 > positionTime
                && !settled.contains($0.id.lowercased())
        }.map { ($0.entityType, $0.id.lowercased()) }
    }
}
