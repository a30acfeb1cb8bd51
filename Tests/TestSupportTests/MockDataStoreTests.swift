import Foundation
import Models
import Protocols
import TestSupport
import TestSupportContracts
import Testing

@Suite("MockDataStore")
struct MockDataStoreTests {
    @Test("passes the DataStore contract", arguments: DataStoreContract.checks)
    func contract(_ check: DataStoreContract.Check) throws {
        try check.run { clock in try MockDataStoreFactory(clock: clock) }
    }

    @Test("counts calls per method")
    func spyCounters() throws {
        let store = try MockDataStore()
        try store.upsertEvent(id: Build.id(1)) { _ in }
        try store.upsertEvent(id: Build.id(2)) { _ in }
        _ = try store.findEvent(id: Build.id(1))
        try store.save()
        #expect(store.upsertEventCallCount == 2 && store.callCount(.findEvent) == 1 && store.saveCallCount == 1)
        #expect(store.deleteEventCallCount == 0)
        store.resetCallCounts()
        #expect(store.upsertEventCallCount == 0)
    }

    @Test("an injected fault throws on the n-th call from now, once, and rolls back the unit of work")
    func faultInjection() throws {
        let store = try MockDataStore()
        try store.upsertEventType(id: Build.id(1)) { _ in }
        try store.save()
        store.injectFault(.upsertEvent, onCall: 2)
        try store.upsertEventType(id: Build.id(2)) { _ in }
        try store.upsertEvent(id: Build.id(10)) { _ in }
        #expect(throws: MockDataStore.InjectedFault(method: .upsertEvent)) {
            try store.upsertEvent(id: Build.id(11)) { _ in }
        }
        try store.upsertEvent(id: Build.id(12)) { _ in }
        try store.save()
        #expect(try store.fetchAllEventTypes().map(\.id) == [Build.id(1)])
        #expect(try store.fetchAllEvents().map(\.id) == [Build.id(12)])
        #expect(store.upsertEventCallCount == 3)
    }

    @Test("a custom error can be injected")
    func customFault() throws {
        let store = try MockDataStore()
        store.injectFault(.save, error: DataStoreError.busy(seconds: 5))
        #expect(throws: DataStoreError.busy(seconds: 5)) { try store.save() }
        try store.save()
    }

    @Test("the factory returns one shared store, counts calls, and starts a new unit of work each time")
    func factory() throws {
        let factory = try MockDataStoreFactory()
        let first = factory.makeDataStore()
        try first.upsertEventType(id: Build.id(1)) { _ in }
        let second = factory.makeDataStore()
        #expect((first as? MockDataStore) === factory.store && (second as? MockDataStore) === factory.store)
        #expect(try second.findEventType(id: Build.id(1)) == nil, "unsaved work of the previous store rolled back")
        #expect(factory.makeDataStoreCallCount == 2)
    }
}

@Suite("ManualClock")
struct ManualClockTests {
    @Test("a suspended sleep resumes only when time passes its deadline")
    func suspendingSleep() async throws {
        let clock = ManualClock()
        let start = clock.now()
        let sleeper = Task { try await clock.sleep(for: 10) }
        try await waitUntil("the sleeper to suspend") { clock.suspendedSleepers > 0 }
        clock.advance(by: 9)
        #expect(clock.suspendedSleepers == 1)
        clock.advance(by: 1)
        try await sleeper.value
        #expect(clock.now() == start.addingTimeInterval(10) && clock.sleeps == [10])
    }

    @Test("in advancing mode a sleep moves time and returns at once")
    func advancingSleep() async throws {
        let clock = ManualClock(mode: .advancing)
        let start = clock.now()
        try await clock.sleep(for: 2)
        try await clock.sleep(for: 4)
        #expect(clock.now() == start.addingTimeInterval(6) && clock.sleeps == [2, 4])
    }

    @Test("cancelling a sleeper throws CancellationError")
    func cancellation() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: 60) }
        try await waitUntil("the sleeper to suspend") { clock.suspendedSleepers > 0 }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.suspendedSleepers == 0)
    }
}
