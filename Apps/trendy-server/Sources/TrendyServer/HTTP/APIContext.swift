import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage, the connection (closed without an answer by
/// `--fault-drop`), the request id echoed in `X-Request-ID` and problem bodies, and the user the bearer token
/// names (set by `AuthenticationMiddleware`).
struct APIContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel
    var requestId = ""
    var userId = ""

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}
