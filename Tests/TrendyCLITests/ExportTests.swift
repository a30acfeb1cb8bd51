import Foundation
import Models
import Testing
import TrendyServerTesting

/// `export` writes a file `import` takes, whatever the database holds beside what the server has.
@Suite("trendyctl export")
struct ExportTests {
    /// A device keeps an event whose create the server refused because another device deleted its type (sync-engine
    /// sync-engine §9.1: no local write is lost). Its type is gone here, so the export cannot carry it: it used to
    /// write the event anyway, and `import` refused the whole file ("no event type …; nothing was imported").
    @Test(
        "an export beside a dead letter whose type another device deleted imports elsewhere, and says what it left out")
    func deadLetterWithoutItsType() async throws {
        try await withTwoDevices { _, laptop, phone in
            _ = try await laptop.json("types", "add", "Tea")
            _ = try await laptop.json("types", "add", "Walk")
            let kept = try #require(
                try await laptop.json("events", "add", "Walk", "--notes", "kept")["id"]?.stringValue)
            #expect(try await laptop.json("sync")["outcome"] == "synced")
            #expect(try await phone.json("sync")["outcome"] == "synced")

            let orphan = try #require(try await laptop.json("events", "add", "Tea")["id"]?.stringValue)
            _ = try await phone.json("types", "rm", "Tea", "--yes")
            #expect(try await phone.json("sync")["outcome"] == "synced")
            var failed = false
            for _ in 0..<6 where !failed {
                _ = try await laptop.run("sync", "--json")
                failed =
                    try await laptop.json("queue", "list").arrayValue?.contains {
                        $0["entity_id"]?.stringValue == orphan && $0["state"] == "failed"
                    } == true
            }
            #expect(failed, "the refused create is a dead letter")
            #expect(try await laptop.run("types", "show", "Tea").status == 1, "the type is gone on the laptop too")
            #expect(try await laptop.json("events", "show", orphan)["id"]?.stringValue == orphan, "the event is kept")

            let file = laptop.home.appendingPathComponent("backup.json").path
            let export = try await laptop.run("export", "--output", file)
            #expect(export.status == 0, "\(export)")
            #expect(export.stderr.contains("left out 1 event(s) that name a type or geofence"), "\(export)")
            let document = try JSONText.parse(String(contentsOfFile: file, encoding: .utf8))
            #expect(document["events"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [kept])

            let fresh = try CLI()
            let imported = try await fresh.run("import", file, "--json")
            #expect(imported.status == 0, "\(imported)")
            #expect(try await fresh.json("events", "list").arrayValue?.compactMap { $0["id"]?.stringValue } == [kept])
        }
    }

    /// A device with one event of `notes`, exported in each format and carried by `carry` (the arguments of an
    /// `import` on a fresh device, and its stdin): the fresh device must list the event exactly as the first.
    func expectRoundTrip(
        notes: String, _ carry: (CLI, String) async throws -> (arguments: [String], stdin: String?)
    ) async throws {
        let laptop = try CLI()
        _ = try await laptop.json("types", "add", "Tea")
        _ = try await laptop.json("events", "add", "Tea", "--notes", notes)
        let exported = try await laptop.json("events", "list")
        for format in ["csv", "json"] {
            let (arguments, stdin) = try await carry(laptop, format)
            let fresh = try CLI()
            let imported = try await fresh.run(arguments, stdin: stdin)
            #expect(imported.status == 0, "\(format): \(imported)")
            #expect(try await fresh.json("events", "list") == exported, "\(format)")
        }
    }

    /// A spreadsheet or a Windows editor saves a file with a UTF-8 byte order mark, and an editor leaves blank lines
    /// at the end: `import` used to refuse both ("the CSV header has no id column", "not JSON … at byte 0").
    @Test("import reads a file saved with a byte order mark and blank lines at the end, as editors save them")
    func importReadsAnEditorsFile() async throws {
        try await expectRoundTrip(notes: "he said \"hi\", then\nleft") { laptop, format in
            let file = laptop.home.appendingPathComponent("saved.\(format)")
            #expect(try await laptop.run("export", "--output", file.path).status == 0)
            try (Data([0xEF, 0xBB, 0xBF]) + (try Data(contentsOf: file)) + Data("\r\n\r\n".utf8)).write(to: file)
            return (["import", file.path], nil)
        }
    }

    @Test("import - tells JSON from CSV by the content when no --format or extension says: export | import - works")
    func importFromStdinWithoutFormat() async throws {
        try await expectRoundTrip(notes: "piped") { laptop, format in
            (["import", "-"], try await laptop.run("export", "--format", format).stdout)
        }
        let unknown = try await CLI().run(["import", "-"], stdin: "hello\n")
        #expect(unknown.status == 64 && unknown.stderr.contains("pass --format json or --format csv"), "\(unknown)")
    }
}
