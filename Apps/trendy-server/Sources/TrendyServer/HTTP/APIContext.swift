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
    /// The device of `Trendy-Device`, when the request named one (set by `DeviceMiddleware`, api-v1 §16).
    var device: DeviceRegistry.Key?

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}
