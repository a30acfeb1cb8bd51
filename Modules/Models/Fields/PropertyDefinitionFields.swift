/// The fields of a property definition a user edits, defined once (`EntityFields`). Its event type is not one of
/// them: it is fixed at creation, like the id.
public struct PropertyDefinitionFields: EntityFields {
    /// The key an event's `properties` use; unique within its type.
    public var key: String
    /// What the app shows.
    public var label: String
    /// The kind of its values.
    public var propertyType: PropertyType
    /// Choices for `select`; a `null` clears it to `[]`.
    public var options: [String]
    /// The value a new event starts with; nil for none.
    public var defaultValue: JSONValue?
    /// Its place among the type's definitions, lowest first.
    public var displayOrder: Int

    /// Fields; what is not given is empty, `text`, first.
    public init(
        key: String = "",
        label: String = "",
        propertyType: PropertyType = .text,
        options: [String] = [],
        defaultValue: JSONValue? = nil,
        displayOrder: Int = 0
    ) {
        self.key = key
        self.label = label
        self.propertyType = propertyType
        self.options = options
        self.defaultValue = defaultValue
        self.displayOrder = displayOrder
    }

    public init() { self.init(key: "") }

    public static let fields: [EntityField<PropertyDefinitionFields>] = [
        .text("key", \.key),
        .text("label", \.label),
        .choice("property_type", \.propertyType),
        .strings("options", \.options),
        .json("default_value", \.defaultValue),
        .integer("display_order", \.displayOrder),
    ]
}
