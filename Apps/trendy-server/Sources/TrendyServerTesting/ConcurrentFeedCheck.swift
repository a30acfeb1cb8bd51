import Foundation
import Models
import Synchronization
import TrendyServer

/// The gap-free feed, checked the hard way: many writers of one user send creates through several instances on one
/// database while readers page `/api/v1/changes` through them. Every reader must see every change exactly once, in
/// increasing order, and end on the same list as the feed read afterwards (docs/server.md, "The change feed under
/// concurrent writers"). A reader that moved past an id committed late would miss it for ever: that is the bug.
public enum ConcurrentFeedCheck {
    public struct Report: Sendable, CustomStringConvertible {
        public var created = 0
        public var changes = 0
        public var pagesRead = 0
        public var findings: [String] = []

        public var description: String {
            "\(created) events created, \(changes) changes, \(pagesRead) pages read, \(findings.count) findings"
        }
    }

    /// Runs one round on `instances` servers sharing `storage` (one instance for an in-memory store).
    public static func run(
        storage: ServerConfiguration.Storage, instances: Int = 2, writers: Int = 8, writesPerWriter: Int = 20,
        readers: Int = 3
    ) async throws -> Report {
        var configuration = LiveTrendyServer.testConfiguration()
        configuration.storage = storage
        var servers: [LiveTrendyServer] = []
        do {
            for _ in 0..<instances { servers.append(try await LiveTrendyServer.start(configuration)) }
            let report = try await check(servers, writers: writers, writesPerWriter: writesPerWriter, readers: readers)
            for server in servers { await server.stop() }
            return report
        } catch {
            for server in servers { await server.stop() }
            throw error
        }
    }

    private static func check(
        _ servers: [LiveTrendyServer], writers: Int, writesPerWriter: Int, readers: Int
    ) async throws -> Report {
        let token = servers[0].newUser().token
        let type = UUIDv7.generate(at: Date())
        let created = try await send(
            "POST", servers[0], "/api/v1/event-types", token,
            #"{"id":"\#(type)","name":"Feed","color":"red","icon":"dot"}"#)
        guard created.status == 201 else { throw CheckError("creating the event type: \(created.text)") }

        let writing = WritersRunning()
        let base = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01, far from any other test's events
        async let written: Int = withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    var events = 0
                    for write in 0..<writesPerWriter {
                        let server = servers[(writer + write) % servers.count]
                        // Singles and batches of three: a batch's changes are consecutive ids of one transaction.
                        let count = write % 3 == 2 ? 3 : 1
                        let items = (0..<count).map { item in
                            let offset = Double(((writer * writesPerWriter + write) * 3 + item)) / 1000
                            let at = RFC3339.string(from: base.addingTimeInterval(offset))
                            return #"{"id":"\#(UUIDv7.generate(at: Date()))","event_type_id":"\#(type)","#
                                + #""timestamp":"\#(at)","is_all_day":false,"source_type":"manual","properties":{}}"#
                        }
                        let answer =
                            count == 1
                            ? try await send("POST", server, "/api/v1/events", token, items[0])
                            : try await send(
                                "POST", server, "/api/v1/events/batch", token,
                                #"{"events":[\#(items.joined(separator: ","))]}"#)
                        guard (200..<300).contains(answer.status) else {
                            throw CheckError("writer \(writer), write \(write): \(answer.status) \(answer.text)")
                        }
                        events += count
                    }
                    return events
                }
            }
            var total = 0
            for try await events in group { total += events }
            return total
        }
        async let seen: [Reading] = withThrowingTaskGroup(of: Reading.self) { group in
            for reader in 0..<readers {
                group.addTask {
                    try await read(servers[reader % servers.count], token, pageSize: 3 + reader * 7) {
                        writing.value.withLock { $0 }
                    }
                }
            }
            var all: [Reading] = []
            for try await result in group { all.append(result) }
            return all
        }
        let events: Int
        do {
            events = try await written
            writing.value.withLock { $0 = false }
        } catch {
            writing.value.withLock { $0 = false }
            _ = try? await seen
            throw error
        }
        let results = try await seen

        var report = Report(created: events)
        let feed = try await read(servers[0], token, pageSize: 500) { false }
        report.findings += feed.findings
        // The event type's create, then one change per event.
        report.changes = feed.ids.count
        if feed.ids.count != events + 1 {
            report.findings.append("the feed holds \(feed.ids.count) changes for \(events) events and 1 type")
        }
        for (index, result) in results.enumerated() {
            report.pagesRead += result.pages
            report.findings += result.findings.map { "reader \(index): \($0)" }
            if result.ids != feed.ids {
                let missing = Set(feed.ids).subtracting(result.ids).sorted()
                report.findings.append(
                    "reader \(index) saw \(result.ids.count) of \(feed.ids.count) changes; missing "
                        + missing.prefix(10).map(String.init).joined(separator: ", "))
            }
        }
        return report
    }

    /// What one reader saw. A struct, not a tuple, as a task group's child result (docs/reliability.md, "Optimizer
    /// defects and their shapes").
    struct Reading: Sendable {
        /// The change ids in the order read.
        let ids: [Int64]
        let pages: Int
        let findings: [String]
    }

    /// Pages the feed from 0 until it reaches the end of a page requested after `more()` turned false.
    private static func read(
        _ server: LiveTrendyServer, _ token: String, pageSize: Int, more: @Sendable () -> Bool
    ) async throws -> Reading {
        var cursor: Int64 = 0
        var ids: [Int64] = []
        var pages = 0
        var findings: [String] = []
        while true {
            let writersRunning = more()
            let answer = try await send("GET", server, "/api/v1/changes?since=\(cursor)&limit=\(pageSize)", token, nil)
            pages += 1
            guard answer.status == 200, let page = answer.json, let changes = page["changes"] as? [[String: Any]],
                let next = (page["next_cursor"] as? NSNumber)?.int64Value, let hasMore = page["has_more"] as? Bool
            else { throw CheckError("GET /changes since \(cursor): \(answer.status) \(answer.text)") }
            for change in changes {
                guard let id = (change["id"] as? NSNumber)?.int64Value else { continue }
                if id <= (ids.last ?? cursor) {
                    findings.append("id \(id) after \(ids.last ?? cursor): out of order or repeated")
                }
                ids.append(id)
            }
            if next < cursor { findings.append("next_cursor moved back from \(cursor) to \(next)") }
            cursor = max(cursor, next)
            // Every write was answered before this request left: the page saw all of them.
            if !hasMore && !writersRunning { break }
            // Caught up with the writers: a short pause keeps the readers from starving the tests beside them.
            if !hasMore { try await Task.sleep(for: .milliseconds(5)) }
        }
        return Reading(ids: ids, pages: pages, findings: findings)
    }

    private static func send(
        _ method: String, _ server: LiveTrendyServer, _ path: String, _ token: String, _ body: String?
    ) async throws -> RawHTTP.Response {
        try await RawHTTP.send(method, server.root.text + path, token: token, body: body.map { Data($0.utf8) })
    }

    private final class WritersRunning: Sendable {
        let value = Mutex(true)
    }

    struct CheckError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
