import Foundation
import HTTPTypes
import Models

/// Milliseconds ↔ API dates.
extension Int64 {
    var date: Date { Date(millisecondsSince1970: self) }
}
