import Foundation
import ParserChecks

/// `trendy-fuzz`: the client's parsers under libFuzzer (docs/reliability.md). The first byte of an input picks the
/// parser (`ParserChecks.targets`), the rest is the document. Built by `make fuzz` with `-sanitize=fuzzer
/// -DFUZZING`, libFuzzer supplies `main`; built plainly (as `swift build` does), it replays input files:
/// `trendy-fuzz FILE...`.
func fuzzOne(_ input: UnsafeBufferPointer<UInt8>) -> ParserChecks.Verdict? {
    guard let selector = input.first else { return nil }
    let targets = ParserChecks.targets
    let (_, check) = targets[Int(selector) % targets.count]
    return check(Array(input.dropFirst()))
}

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        guard let data else { return 0 }
        if case .wrong(let problem) = fuzzOne(UnsafeBufferPointer(start: data, count: size)) {
            // A broken rule is a crash to libFuzzer: it saves the input and stops.
            fatalError("\(ParserChecks.targets[Int(data[0]) % ParserChecks.targets.count].0): \(problem)")
        }
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    /// SwiftPM links an executable's `main` to `<module>_main`; here that hands over to libFuzzer's driver.
    @_cdecl("trendy_fuzz_main")
    public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments, fuzzerTestOneInput)
    }
#else
    @main
    enum ReplayCommand {
        static func main() throws {
            var failed = false
            for path in CommandLine.arguments.dropFirst() {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                let verdict = bytes.withUnsafeBufferPointer { fuzzOne($0) }
                if case .wrong(let problem) = verdict {
                    print("\(path): \(problem)")
                    failed = true
                } else {
                    print("\(path): ok")
                }
            }
            if failed { exit(1) }
        }
    }
#endif
