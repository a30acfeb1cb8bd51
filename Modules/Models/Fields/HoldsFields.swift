/// A type that holds one value of a field table and shows its members as its own: `geofence.name` reads
/// `geofence.fields.name`.
@dynamicMemberLookup
public protocol HoldsFields {
    /// The field table it holds a value of.
    associatedtype Fields: EntityFields
    /// The value.
    var fields: Fields { get set }
}

extension HoldsFields {
    /// A field of `fields`, as a member of the holder.
    public subscript<Value>(dynamicMember path: WritableKeyPath<Fields, Value>) -> Value {
        get { fields[keyPath: path] }
        set { fields[keyPath: path] = newValue }
    }
}

extension EntityFields {
    /// Without the fields a create does not carry.
    public var forCreate: Self {
        var fields = self
        for field in Self.fields where !field.onCreate { fields[field] = nil }
        return fields
    }

    /// As a server stores them: references lower-case.
    public var normalized: Self {
        var fields = self
        for field in Self.fields where field.kind == .id { fields[field] = fields[field] }
        return fields
    }
}
