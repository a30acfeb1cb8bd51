import Models
import Testing

@Suite("Give-back, field by field (api-v1 §15.1)")
struct GiveBackFieldMergeTests {
    /// A type created at 10, its colour given back at 20, its icon written at 40 after a restore.
    func history() -> GiveBackFieldMerge {
        var merge = GiveBackFieldMerge()
        merge.add(["name": "Tea", "color": "#000000", "icon": "circle", "updated_at": "t10"], at: 10)
        merge.add(["name": "Tea", "color": "#111111", "icon": "circle", "updated_at": "t20"], at: 20)
        merge.add(["name": "Tea", "color": "#111111", "icon": "star", "updated_at": "t40"], at: 40)
        return merge
    }

    let held: [String: JSONValue] = ["name": "Tea", "color": "#111111", "icon": "star", "updated_at": "t40"]

    @Test("a field changed last before the item's time is taken; one changed after it keeps the server's value")
    func takesOlderFields() {
        let given: [String: JSONValue] = ["name": "Chai", "color": "#222222", "icon": "circle", "updated_at": "t30"]
        let merged = history().merge(given, over: held, acknowledged: 30, rowTime: 40)
        #expect(merged?["name"] == "Chai" && merged?["color"] == "#222222", "changed last at 10 and 20")
        #expect(merged?["icon"] == "star", "written at 40, after the item")
        #expect(merged?["updated_at"] == "t30", "never compared: the server stamps the row")
    }

    @Test("nothing newer to take, or a version the server still holds: nil (kept)")
    func keeps() {
        let older: [String: JSONValue] = ["name": "Tea", "color": "#050505", "icon": "circle", "updated_at": "t15"]
        #expect(history().merge(older, over: held, acknowledged: 15, rowTime: 40) == nil, "colour changed at 20")
        let tampered: [String: JSONValue] = ["name": "Tea", "color": "tampered", "icon": "circle", "updated_at": "t20"]
        #expect(
            history().merge(tampered, over: held, acknowledged: 20, rowTime: 40) == nil,
            "the server holds the version of 20: what differs was changed on the device")
        #expect(history().merge(held, over: held, acknowledged: 50, rowTime: 40) == nil, "equal: nothing to take")
    }

    @Test("a delete starts the entity anew; a field no entry shows counts at the row's time")
    func deleteAndUnknownFields() {
        var merge = history()
        merge.add(nil, at: 50)
        merge.add(["name": "Tea", "updated_at": "t60"], at: 60)
        #expect(merge.fieldTimes == ["name": 60, "updated_at": 60] && merge.versions == [60], "nothing before counts")
        let given: [String: JSONValue] = ["name": "Tea", "notes": "x"]
        #expect(GiveBackFieldMerge().merge(given, over: ["name": "Tea"], acknowledged: 30, rowTime: 40) == nil)
        let taken = GiveBackFieldMerge().merge(given, over: ["name": "Tea"], acknowledged: 50, rowTime: 40)
        #expect(taken?["notes"] == "x")
    }

    @Test("a member a give-back wrote as pending counts when it was written, not at the version's time")
    func pendingCountsWhenWritten() {
        var merge = GiveBackFieldMerge()
        // Created by a give-back of the version of 10, written at 70 with a queued edit of its colour.
        merge.add(
            ["name": "Tea", "color": "#333333", "icon": "circle", "updated_at": "t10"], at: 10, pending: ["color"],
            writtenAt: 70)
        #expect(merge.fieldTimes["name"] == 10 && merge.fieldTimes["color"] == 70 && merge.versions == [10])
        let held: [String: JSONValue] = ["name": "Tea", "color": "#333333", "icon": "circle", "updated_at": "t10"]
        let later: [String: JSONValue] = ["name": "Chai", "color": "#000000", "icon": "circle", "updated_at": "t20"]
        let merged = merge.merge(later, over: held, acknowledged: 20, rowTime: 10)
        #expect(merged?["name"] == "Chai", "acknowledged at 20, after the version of 10")
        #expect(merged?["color"] == "#333333", "the queued edit reached the server at 70, after 20")
    }

    @Test("event properties merge key by key: a key written after the item keeps out no older value of another")
    func propertiesKeyByKey() {
        var merge = GiveBackFieldMerge()
        merge.add(["notes": "n", "properties": ["fa": "a0"], "updated_at": "t10"], at: 10)
        merge.add(["notes": "n", "properties": ["fa": "a1"], "updated_at": "t40"], at: 40)
        #expect(merge.fieldTimes["properties.fa"] == 40 && merge.fieldTimes["properties"] == nil)
        let held: [String: JSONValue] = ["notes": "n", "properties": ["fa": "a1"], "updated_at": "t40"]
        let given: [String: JSONValue] = ["notes": "n", "properties": ["fa": "a0", "fb": "b1"], "updated_at": "t30"]
        let merged = merge.merge(given, over: held, acknowledged: 30, rowTime: 40)
        #expect(merged?["properties"] == ["fa": "a1", "fb": "b1"], "fb acknowledged at 30, fa written at 40")
        #expect(
            GiveBackFieldMergeTests.pendingKept["properties"] == ["fa": "held", "fb": "given"],
            "a pending property keeps the server's value, the others are given")
    }

    static let pendingKept = GiveBackFieldMerge.keepingPending(
        ["properties.fa", "notes"], in: ["notes": "mine", "properties": ["fa": "mine", "fb": "given"]],
        held: ["notes": "theirs", "properties": ["fa": "held"]])

    @Test(
        "api-v1 §6.8 a merge resumed from a checkpoint of its first entries dates every field as one fed them all; the versions stay behind"
    )
    func resumesFromACheckpoint() throws {
        var first = GiveBackFieldMerge()
        first.add(["name": "Tea", "color": "#000000", "icon": "circle", "updated_at": "t10"], at: 10)
        first.add(
            ["name": "Tea", "color": "#111111", "icon": "circle", "updated_at": "t20"], at: 20, pending: ["color"],
            writtenAt: 25)
        // Through its text, as the server stores it.
        let stored = try JSONText.parse(JSONText.string(first.checkpoint))
        var resumed = try #require(GiveBackFieldMerge(resuming: stored))
        resumed.add(["name": "Tea", "color": "#111111", "icon": "star", "updated_at": "t40"], at: 40)
        let whole = history()
        #expect(resumed.fieldTimes == ["name": 10, "color": 25, "icon": 40, "updated_at": 40])
        #expect(whole.fieldTimes["name"] == 10 && whole.fieldTimes["icon"] == 40)
        #expect(resumed.versions == [40], "a version compaction removed no longer counts as held")
        let given: [String: JSONValue] = ["name": "Chai", "color": "#111111", "icon": "circle", "updated_at": "t30"]
        let merged = resumed.merge(given, over: held, acknowledged: 30, rowTime: 40)
        #expect(merged?["name"] == "Chai" && merged?["icon"] == "star", "the name changed last at 10, the icon at 40")
        var deleted = first
        deleted.add(nil, at: 50)
        let afterDelete = try #require(GiveBackFieldMerge(resuming: deleted.checkpoint))
        #expect(afterDelete.fieldTimes.isEmpty, "a checkpoint after a delete holds nothing before it")
    }

    @Test("api-v1 §6.8 a checkpoint that does not parse resumes nothing")
    func malformedCheckpoint() {
        #expect(GiveBackFieldMerge(resuming: "text") == nil)
        #expect(GiveBackFieldMerge(resuming: ["field_times": ["name": "soon"], "previous": .null]) == nil)
        #expect(GiveBackFieldMerge(resuming: ["field_times": ["name": 1.5], "previous": .null]) == nil)
        #expect(GiveBackFieldMerge(resuming: ["field_times": [:], "previous": 3]) == nil)
        #expect(GiveBackFieldMerge(resuming: ["field_times": [:], "previous": .null]) != nil)
    }
}
