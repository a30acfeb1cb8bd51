import Foundation
import Models

/// `--prop KEY=VALUE`: the value is read as the type of the event type's definition for KEY; without a definition,
/// `true`/`false` are booleans, numbers are numbers, anything else is text.
enum PropertyInput {
    static func parse(
        _ assignment: String, definitions: [PropertyDefinition], now: Date
    ) throws(CLIError) -> (String, PropertyValue) {
        guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
            throw .usage("--prop \"\(assignment)\" must be KEY=VALUE")
        }
        let key = String(assignment[..<equals])
        let text = String(assignment[assignment.index(after: equals)...])
        guard let definition = definitions.first(where: { $0.key == key }) else {
            if let flag = Bool(text) { return (key, PropertyValue(type: .boolean, value: .bool(flag))) }
            if let number = Double(text), number.isFinite {
                return (key, PropertyValue(type: .number, value: .number(number)))
            }
            return (key, PropertyValue(type: .text, value: .string(text)))
        }
        return (key, try value(text, as: definition, now: now))
    }

    /// VALUE read as `definition`'s type; also used for `props add --default`.
    static func value(_ text: String, as definition: PropertyDefinition, now: Date) throws(CLIError) -> PropertyValue {
        let type = definition.propertyType
        switch type {
        case .number, .duration:
            guard let number = Double(text), number.isFinite else {
                throw .usage("\(definition.key) is a \(type.rawValue): \"\(text)\" is not a number")
            }
            return PropertyValue(type: type, value: .number(number))
        case .boolean:
            guard let flag = Bool(text.lowercased()) else {
                throw .usage("\(definition.key) is a boolean: use true or false, not \"\(text)\"")
            }
            return PropertyValue(type: type, value: .bool(flag))
        case .date:
            let date = try TimeInput.parse(text, option: definition.key, now: now)
            return PropertyValue(type: type, value: .string(RFC3339.string(from: date)))
        case .select:
            guard definition.options.contains(text) else {
                throw .usage(
                    "\(definition.key) is one of \(definition.options.joined(separator: ", ")); \"\(text)\" is not")
            }
            return PropertyValue(type: type, value: .string(text))
        case .text, .url, .email:
            return PropertyValue(type: type, value: .string(text))
        }
    }

    /// How a value reads in tables.
    static func display(_ value: PropertyValue) -> String {
        switch value.value {
        case .string(let text): text
        case .number(let number):
            number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .bool(let flag): String(flag)
        case .null: "null"
        default: JSONText.string(value.value)
        }
    }
}
