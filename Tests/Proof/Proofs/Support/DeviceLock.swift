/// The per-database sync lock of one device, as trendyctl's `flock` is across processes (sync-engine §3.7): rounds of
/// the device's two engines run one at a time, the later waiting for the earlier (a `--watch` waiting for a one-off
/// `sync`).
actor DeviceLock {
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func withLock<Value: Sendable>(_ body: @Sendable () async -> Value) async -> Value {
        await acquire()
        let value = await body()
        release()
        return value
    }

    /// Takes the lock for a live round (`SyncEngine.startLive(roundGate:)`); it is released when the lease goes.
    func lease() async -> Lease {
        await acquire()
        return Lease(lock: self)
    }

    /// Held while it lives.
    final class Lease: Sendable {
        let lock: DeviceLock
        init(lock: DeviceLock) { self.lock = lock }
        deinit { Task { [lock] in await lock.releaseLease() } }
    }

    fileprivate func releaseLease() { release() }

    private func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            held = false
        } else {
            waiters.removeFirst().resume()  // handed over: still held
        }
    }
}
