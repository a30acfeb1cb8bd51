import TrendyCLI

#if canImport(Glibc)
    import Glibc

    // One malloc arena for the whole process instead of one per thread. A bootstrap's snapshot is allocated on the
    // network threads and applied on the database's, and with an arena each both high-water marks stayed resident:
    // peak RSS of a 100 000-event bootstrap 92 → 81 MB (docs/history/performance.md). A short-lived CLI gains nothing from
    // per-thread arenas. `mallopt` is looked up at run time: Swift's Glibc module does not export <malloc.h>.
    if let symbol = dlsym(nil, "mallopt") {
        // The C prototype is `int mallopt(int param, int value)`: the cast names exactly that.
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        let arenaMaximum: Int32 = -8  // M_ARENA_MAX
        _ = mallopt(arenaMaximum, 1)
    }
#endif

await TrendyctlMain.main()
