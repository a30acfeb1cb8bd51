// The workaround of Fixtures/optimizer/README.md: the same work as tuple-child-result.swift, with a struct as the
// task group's child result and the awaited value bound before the struct is made, as SyncEngine's read-back does.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Entity: Sendable {
    let id: String
    let fields: [String: String]
}

enum Missing: Error { case gone(Int) }

struct Answer: Sendable {
    let slot: Int
    let result: Result<Entity?, any Error>
}

func fetch(_ index: Int) async throws -> Entity? {
    if index % 3 == 2 { throw Missing.gone(index) }
    await Task.yield()
    return index % 3 == 1 ? nil : Entity(id: "e\(index)", fields: ["n": "\(index)"])
}

func gather(_ count: Int) async -> [Result<Entity?, any Error>] {
    await withTaskGroup(of: Answer.self) { group in
        for index in 0..<count {
            group.addTask {
                let result: Result<Entity?, any Error>
                do {
                    result = .success(try await fetch(index))
                } catch {
                    result = .failure(error)
                }
                return Answer(slot: index, result: result)
            }
        }
        var answers = [Result<Entity?, any Error>](repeating: .success(nil), count: count)
        for await answer in group { answers[answer.slot] = answer.result }
        return answers
    }
}

@main
struct StructChildResult {
    static func main() async {
        var wrong = 0
        for _ in 0..<200 {
            for (index, answer) in await gather(8).enumerated() {
                switch answer {
                case .success(let entity?): if entity.id != "e\(index)" { wrong += 1 }
                case .success(nil): if index % 3 != 1 { wrong += 1 }
                case .failure: if index % 3 != 2 { wrong += 1 }
                }
            }
        }
        print(wrong == 0 ? "correct" : "wrong \(wrong)")
        if wrong != 0 { exit(1) }
    }
}
