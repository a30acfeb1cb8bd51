/// The fields of an event type a user edits, defined once (`EntityFields`).
public struct EventTypeFields: EntityFields {
    /// Unique among the user's types.
    public var name: String
    /// A hex colour, `#RRGGBB`.
    public var color: String
    /// An SF Symbol name.
    public var icon: String

    /// Fields; the default colour and icon unless given.
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
