import Foundation
import Synchronization

/// The open change streams of this server (api-v1 §13): their caps, and the doorbell that wakes a stream when its
/// user commits.
///
/// A stream never polls on its own. It waits on its `StreamSubscription`, which this registry rings when the user's
/// transaction commits on this instance (`committed`), when another instance's commit is heard or found by the
/// re-read (`CommitWatch`), and once a second for keep-alives and token expiry (`tick`). Waiting costs no thread.
final class ChangeStreams: Sendable {
    let maxStreams: Int
    let maxStreamsPerUser: Int
    /// The `trendy_open_streams` gauge moves here, with the registry, and nowhere else: it counts what `open`
    /// registered and `close` forgot, so a stream whose client left before its answer began is counted out too.
    private let metrics: ServerMetrics?

    private struct State {
        var byUser: [String: [ObjectIdentifier: StreamSubscription]] = [:]
        var count = 0
        var closed = false
        /// Commits rung per streaming user, and the last page one of its streams read (see `sharedPage`).
        var commits: [String: Int] = [:]
        var pages: [String: SharedPage] = [:]
        /// The read in progress per streaming user, which the user's other streams woken by the same commits await.
        var reads: [String: PageRead] = [:]
    }

    /// A page read in progress for the streams of one user at one position.
    struct PageRead {
        let since: Int64
        let readAfter: Int
        let task: Task<ChangeStream.Page, any Error>
    }

    /// A page of entries one stream read, for the user's other streams at the same position.
    struct SharedPage {
        let since: Int64
        /// `commits(of:)` when the read began: the page holds every entry committed before those rings.
        let readAfter: Int
        let page: ChangeStream.Page
    }

    private let state = Mutex(State())

    init(maxStreams: Int, maxStreamsPerUser: Int, metrics: ServerMetrics? = nil) {
        self.maxStreams = maxStreams
        self.maxStreamsPerUser = maxStreamsPerUser
        self.metrics = metrics
    }

    /// Seconds a client refused by the per-user cap is told to wait (`Retry-After`).
    static let streamLimitRetryAfter = 5

    /// Registers a stream of `user`, or refuses it: 429 `stream_limit` beyond the user's cap, 503 beyond the
    /// server's or once the server is shutting down.
    ///
    /// A refusal at the user's cap first rings each of the user's streams to write a keep-alive at once: a stream
    /// whose client is gone without the server having seen it (its reset lost, its peer unplugged) fails that
    /// write, or the socket's user timeout, and frees its slot for the client told to come back after
    /// `Retry-After` (api-v1 §13).
    func open(user: String) throws(APIError) -> StreamSubscription {
        let subscription = StreamSubscription(user: user)
        let refusal: (error: APIError, probe: [StreamSubscription])? = state.withLock { state in
            if state.closed { return (APIError(.unavailable, "the server is shutting down", retryAfter: 1), []) }
            if state.count >= maxStreams {
                return (
                    APIError(.unavailable, "the server holds its maximum of \(maxStreams) streams", retryAfter: 5), []
                )
            }
            let mine = state.byUser[user, default: [:]]
            if mine.count >= maxStreamsPerUser {
                let error = APIError(
                    .streamLimit,
                    "this user already holds \(maxStreamsPerUser) change streams; close one or poll /changes",
                    retryAfter: Self.streamLimitRetryAfter)
                return (error, Array(mine.values))
            }
            state.byUser[user, default: [:]][ObjectIdentifier(subscription)] = subscription
            state.count += 1
            return nil
        }
        if let refusal {
            for held in refusal.probe { held.ring(.probe) }
            throw refusal.error
        }
        metrics?.streamOpened()
        return subscription
    }

    /// Forgets a stream (it ended, or its connection closed). Idempotent.
    func close(_ subscription: StreamSubscription) {
        let forgotten = state.withLock { state in
            guard state.byUser[subscription.user]?.removeValue(forKey: ObjectIdentifier(subscription)) != nil
            else { return false }
            state.count -= 1
            if state.byUser[subscription.user]?.isEmpty == true {
                state.byUser[subscription.user] = nil
                state.commits[subscription.user] = nil
                state.pages[subscription.user] = nil
            }
            return true
        }
        if forgotten { metrics?.streamClosed() }
        subscription.ring(.closed)
    }

    /// `user` committed changes up to `changeId` (nil: unknown): wakes that user's streams.
    func committed(user: String, changeId: Int64?) {
        let subscriptions = state.withLock { state -> [StreamSubscription] in
            guard let mine = state.byUser[user] else { return [] }
            state.commits[user, default: 0] += 1
            return Array(mine.values)
        }
        for subscription in subscriptions { subscription.ring(.changed(changeId)) }
    }

    /// How many commits of `user` have rung its streams so far.
    func commits(of user: String) -> Int { state.withLock { $0.commits[user] ?? 0 } }

    /// The entries of `user` after `since` for a stream woken by `readAfter` commits: a page another stream read
    /// already, or the read in progress for them, or a new read (`read`) that the user's other streams then share.
    /// One commit wakes every stream of the user at once; without this each would read the same page from the
    /// database (5000 reads for 5000 streams), the delivery's main cost.
    func page(
        user: String, since: Int64, readAfter: Int,
        read: @escaping @Sendable () async throws -> ChangeStream.Page
    ) async throws -> ChangeStream.Page {
        if let shared = sharedPage(user: user, since: since, readAfter: readAfter) { return shared }
        let (reading, startedAfter) = state.withLock { state -> (Task<ChangeStream.Page, any Error>, Int) in
            if let current = state.reads[user], current.since == since, current.readAfter >= readAfter {
                return (current.task, current.readAfter)
            }
            let task = Task { try await read() }
            state.reads[user] = PageRead(since: since, readAfter: readAfter, task: task)
            return (task, readAfter)
        }
        defer {
            state.withLock { state in
                if state.reads[user]?.task == reading { state.reads[user] = nil }
            }
        }
        let page = try await reading.value
        share(page, user: user, since: since, readAfter: startedAfter)
        return page
    }

    /// The page another stream of `user` read from `since`, if that read began after `readAfter` rings: then it
    /// holds every entry this stream was woken for.
    func sharedPage(user: String, since: Int64, readAfter: Int) -> ChangeStream.Page? {
        state.withLock { state in
            guard let shared = state.pages[user], shared.since == since, shared.readAfter >= readAfter else {
                return nil
            }
            return shared.page
        }
    }

    /// Keeps `page` for the user's other streams (one page per user, the latest read).
    func share(_ page: ChangeStream.Page, user: String, since: Int64, readAfter: Int) {
        state.withLock { state in
            guard state.byUser[user] != nil else { return }
            // A page of an older read does not replace a newer one.
            if let kept = state.pages[user], kept.since == since, kept.readAfter > readAfter { return }
            state.pages[user] = SharedPage(since: since, readAfter: readAfter, page: page)
        }
    }

    /// Wakes every stream for its keep-alive and expiry checks.
    func tick() {
        for subscription in all() { subscription.ring(.tick) }
    }

    /// The tokens changed (a reload): every stream checks its token again at once, and one whose token is no
    /// longer accepted for its user ends with `event: reauth` (api-v1 §13).
    func credentialsChanged() {
        for subscription in all() { subscription.ring(.credentials) }
    }

    /// Ends every stream and refuses new ones (graceful shutdown: idle streams are not waited for).
    func shutDown() {
        let subscriptions = state.withLock { state in
            state.closed = true
            return state.byUser.values.flatMap(\.values)
        }
        for subscription in subscriptions { subscription.ring(.closed) }
    }

    /// The users holding a stream, for the re-read of other instances' commits.
    var users: [String] { state.withLock { Array($0.byUser.keys) } }

    var count: Int { state.withLock { $0.count } }

    private func subscriptions(of user: String) -> [StreamSubscription] {
        state.withLock { state in state.byUser[user].map { Array($0.values) } ?? [] }
    }

    private func all() -> [StreamSubscription] {
        state.withLock { state in state.byUser.values.flatMap(\.values) }
    }
}

/// One stream's doorbell. Rings coalesce: a stream that is busy writing finds, when it next waits, one wake-up that
/// carries everything rung meanwhile (the highest change id, a tick, the close), so a burst of commits costs a
/// waiting stream one read.
final class StreamSubscription: Sendable {
    enum Ring: Sendable {
        /// The user committed; the highest change id known, when known.
        case changed(Int64?)
        case tick
        /// Write a keep-alive now: the user is at the cap, and a dead connection shows itself by failing the write.
        case probe
        /// The tokens were reloaded: check this stream's token again.
        case credentials
        case closed
    }

    /// What was rung since the stream last looked.
    struct Pending: Sendable {
        /// The highest change id rung; nil when a ring did not know it (then the stream reads anyway).
        var highest: Int64? = nil
        var unknownChange = false
        /// The user committed since the stream last looked.
        var changed: Bool { unknownChange || highest != nil }
        var tick = false
        var probe = false
        var credentials = false
        var closed = false
        /// Anything rung at all.
        var isEmpty: Bool { !changed && !tick && !probe && !credentials && !closed }
    }

    let user: String
    private let pending = Mutex(Pending())
    private let doorbell: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init(user: String) {
        self.user = user
        (doorbell, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func ring(_ ring: Ring) {
        pending.withLock { pending in
            switch ring {
            case .changed(let id):
                if let id { pending.highest = max(pending.highest ?? id, id) } else { pending.unknownChange = true }
            case .tick: pending.tick = true
            case .probe: pending.probe = true
            case .credentials: pending.credentials = true
            case .closed: pending.closed = true
            }
        }
        continuation.yield()
    }

    /// Waits for the next ring and takes everything rung so far; a closed subscription (or a cancelled task) yields
    /// `closed`.
    func next() async -> Pending {
        var iterator = doorbell.makeAsyncIterator()
        while true {
            let taken = pending.withLock { pending -> Pending? in
                guard !pending.isEmpty else { return nil }
                defer { pending = Pending(closed: pending.closed) }
                return pending
            }
            if let taken { return taken }
            if await iterator.next() == nil || Task.isCancelled { return Pending(closed: true) }
        }
    }
}
