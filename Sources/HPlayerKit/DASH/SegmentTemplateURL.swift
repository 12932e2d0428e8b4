/// A SegmentTemplate's `media` or `initialization` with its identifiers filled in
/// (ISO/IEC 23009-1 §5.3.9.4.4): `$RepresentationID$`, `$Number$`, `$Bandwidth$`, `$Time$`,
/// `$SubNumber$`, the numeric ones with an optional `%0Nd` width, and `$$` for a dollar.
package enum SegmentTemplateURL {
    package struct Values: Sendable {
        package var representationID: String
        package var bandwidth: Int
        package var number: Int?
        package var time: Int64?

        package init(representationID: String, bandwidth: Int, number: Int? = nil, time: Int64? = nil) {
            self.representationID = representationID
            self.bandwidth = bandwidth
            self.number = number
            self.time = time
        }
    }

    /// Refuses a template naming an identifier the standard does not define, or an unclosed one.
    package static func validate(_ template: String, representation: String) throws(MPDError) {
        _ = try fill(template, Values(representationID: representation, bandwidth: 0, number: 0, time: 0), representation: representation)
    }

    package static func fill(_ template: String, _ values: Values, representation: String) throws(MPDError) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "$") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "$") else {
                throw MPDError("Representation \(representation): the template \"\(template)\" has an unclosed $")
            }
            let identifier = rest[afterOpen..<close]
            rest = rest[rest.index(after: close)...]
            if identifier.isEmpty {
                result += "$"
                continue
            }
            let name = identifier.prefix { $0 != "%" }
            let format = identifier.dropFirst(name.count)
            let width: Int
            if format.isEmpty {
                width = 1
            } else {
                guard format.hasPrefix("%0"), format.hasSuffix("d"), let parsed = Int(format.dropFirst(2).dropLast()), parsed > 0, parsed <= 32 else {
                    throw MPDError("Representation \(representation): the template \"\(template)\" has a format \"\(format)\" that is not %0Nd")
                }
                width = parsed
            }
            let value: String
            switch name {
            case "RepresentationID" where format.isEmpty: value = values.representationID
            case "Number", "SubNumber": value = values.number.map(String.init) ?? ""
            case "Bandwidth": value = String(values.bandwidth)
            case "Time": value = values.time.map(String.init) ?? ""
            default:
                throw MPDError("Representation \(representation): the template \"\(template)\" names an undefined identifier $\(identifier)$")
            }
            result += String(repeating: "0", count: max(0, width - value.count)) + value
        }
        return result + rest
    }
}
