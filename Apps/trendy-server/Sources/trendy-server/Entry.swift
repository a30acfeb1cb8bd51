import ArgumentParser
import NIOCore
import NIOPosix

/// The process entry: Swift concurrency's global executor becomes the event loops that also serve the sockets
/// (Hummingbird's default group, `MultiThreadedEventLoopGroup.singleton`), so a request's handler, its storage
/// read and its response no longer hop between libdispatch's worker threads and the event loops. Small requests
/// went from about 9k to 13–17k per second on two cores (docs/history/performance.md, "Server on loopback"). It
/// must run first, on the main thread, before any task reaches the global executor.
@main
enum Entry {
    static func main() async {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await TrendyServerCommand.main()
    }
}
