/// The client follows no redirect. The API never redirects, and a redirect that were followed would carry the
/// bearer token to whatever address it names (another host, or plain HTTP); so the 3xx answer itself comes back,
/// and is a transport error that names the address to configure instead. Pending changes stay queued.
enum RedirectRefusal {
    /// What a refused redirect says: where it pointed and what to do.
    static func message(status: Int, location: String?) -> String {
        "the server answered HTTP \(status), a redirect to \(location ?? "an address it did not give"); redirects are "
            + "not followed, as they could carry the access token elsewhere: use the address it redirects to as the "
            + "server URL"
    }
}
