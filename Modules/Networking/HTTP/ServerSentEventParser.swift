/// The WHATWG `text/event-stream` format, parsed as bytes arrive: lines end in LF, CRLF or CR; `field: value`
/// lines build an event (`data` lines join with LF), comment lines (`:`) are skipped, and a blank line dispatches
/// the event. A chunk may end anywhere, even inside a CRLF or a multi-byte character: what is not a whole line yet
/// waits for the next chunk.
struct ServerSentEventParser {
    struct Event: Equatable {
        var type = "message"
        var data = ""
        /// The `id` field of this event, if it had one (the stream's last event id otherwise stays as it was).
        var id: String?
    }

    private var line: [UInt8] = []
    /// The previous chunk ended in CR: a LF at the start of this one belongs to it.
    private var pendingCR = false
    private var type = ""
    private var data: [UInt8] = []
    private var hasData = false
    private var id: String?

    /// Bytes not yet part of a whole line; a stream that ends with some ended mid-event.
    var hasPartialInput: Bool { !line.isEmpty || !type.isEmpty || hasData || id != nil }

    /// Feeds one chunk and returns the events it completed, in order.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if pendingCR {
                pendingCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\n"):
                endLine(into: &events)
            case UInt8(ascii: "\r"):
                pendingCR = true
                endLine(into: &events)
            default:
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine(into events: inout [Event]) {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            dispatch(into: &events)
            return
        }
        if line[0] == UInt8(ascii: ":") { return }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let name = String(decoding: line[..<(colon ?? line.endIndex)], as: UTF8.self)
        var valueStart = colon.map { $0 + 1 } ?? line.endIndex
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = line[valueStart...]
        switch name {
        case "event": type = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { data.append(UInt8(ascii: "\n")) }
            data.append(contentsOf: value)
            hasData = true
        case "id" where !value.contains(0): id = String(decoding: value, as: UTF8.self)
        default: break  // `retry` and unknown fields: the client keeps its own reconnect policy.
        }
    }

    private mutating func dispatch(into events: inout [Event]) {
        defer {
            type = ""
            data.removeAll(keepingCapacity: true)
            hasData = false
            id = nil
        }
        // An event without data is not dispatched (WHATWG), but its id still counts: none of ours has one.
        guard hasData else { return }
        events.append(
            Event(type: type.isEmpty ? "message" : type, data: String(decoding: data, as: UTF8.self), id: id))
    }
}
