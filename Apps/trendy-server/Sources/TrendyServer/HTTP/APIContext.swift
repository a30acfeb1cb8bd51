import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage, the connection (closed without an answer by
/// `--fault-drop`), and the request id echoed in `X-Request-ID` and problem bodies.
struct APIContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel
    var requestId = ""

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}
