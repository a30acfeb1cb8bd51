// The shape of a defect of Swift 6.3.1's optimizer (Fixtures/optimizer/README.md): a task group whose child result
// is a tuple of an index and a `Result` holding an optional and an existential error.

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

func fetch(_ index: Int) async throws -> Entity? {
    if index % 3 == 2 { throw Missing.gone(index) }
    await Task.yield()
    return index % 3 == 1 ? nil : Entity(id: "e\(index)", fields: ["n": "\(index)"])
}

func gather(_ count: Int) async -> [Result<Entity?, any Error>] {
    await withTaskGroup(of: (Int, Result<Entity?, any Error>).self) { group in
        for index in 0..<count {
            group.addTask {
                do {
                    return (index, .success(try await fetch(index)))
                } catch {
                    return (index, .failure(error))
                }
            }
        }
        var answers = [Result<Entity?, any Error>](repeating: .success(nil), count: count)
        for await (index, answer) in group { answers[index] = answer }
        return answers
    }
}

@main
struct TupleChildResult {
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
