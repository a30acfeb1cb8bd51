/// The fields of an event type a user edits, defined once (`EntityFields`).
public struct EventTypeFields: EntityFields {
    public var name: String
    public var color: String
    public var icon: String

    public init(name: String = "", color: String = EventType.defaultColor, icon: String = EventType.defaultIcon) {
        self.name = name
        self.color = color
        self.icon = icon
    }

    public init() { self.init(name: "") }

    public static let fields: [EntityField<EventTypeFields>] = [
        .text("name", \.name),
        .text("color", \.color, .requiredOnCreate),
        .text("icon", \.icon, .requiredOnCreate),
    ]
}
