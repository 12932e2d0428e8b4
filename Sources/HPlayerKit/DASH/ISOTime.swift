/// The time notations an MPD uses (ISO 8601 as XML Schema has them), read as pure functions.
package enum ISOTime {
    /// `xs:duration` ("PT6.0S", "P1DT2H", "PT1H2M3.5S") in seconds; nil when malformed. Years
    /// and months, which have no fixed length, are refused.
    package static func duration(_ text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters())
        var sign = 1.0
        if rest.first == "-" {
            sign = -1
            rest.removeFirst()
        }
        guard rest.first == "P" else { return nil }
        rest.removeFirst()
        var total = 0.0
        var inTime = false
        var number = ""
        var sawPart = false
        for character in rest {
            switch character {
            case "T":
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
            case "0"..."9", ".":
                number.append(character)
            case "D", "H", "M", "S", "W", "Y":
                guard let value = Double(number) else { return nil }
                let unit: Double
                switch (character, inTime) {
                case ("W", false): unit = 604_800
                case ("D", false): unit = 86_400
                case ("H", true): unit = 3_600
                case ("M", true): unit = 60
                case ("S", true): unit = 1
                case ("Y", false) where value == 0, ("M", false) where value == 0: unit = 0
                default: return nil
                }
                total += value * unit
                number = ""
                sawPart = true
            default:
                return nil
            }
        }
        guard sawPart, number.isEmpty else { return nil }
        return sign * total
    }

    /// `xs:dateTime` ("2026-11-29T10:00:00Z", "2026-11-29T10:00:00.250+01:00") in seconds since
    /// 1970 (UTC); nil when malformed. No zone: UTC, as DASH players take it.
    package static func dateTime(_ text: String) -> Double? {
        let characters = Array(text.trimmingCharacters().utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= characters.count else { return nil }
            var value = 0
            for byte in characters[from..<(from + count)] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard characters.count >= 19, characters[4] == 45, characters[7] == 45, characters[10] == 84 || characters[10] == 32,
              characters[13] == 58, characters[16] == 58,
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var index = 19
        var fraction = 0.0
        if index < characters.count, characters[index] == 46 {
            index += 1
            var scale = 0.1
            while index < characters.count, characters[index] >= 48, characters[index] <= 57 {
                fraction += Double(characters[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        var offset = 0
        if index < characters.count {
            switch characters[index] {
            case 90: index += 1  // Z
            case 43, 45:  // + -
                guard let hours = number(index + 1, 2), characters.count > index + 3, characters[index + 3] == 58,
                      let minutes = number(index + 4, 2) else { return nil }
                offset = (hours * 3600 + minutes * 60) * (characters[index] == 45 ? -1 : 1)
                index += 6
            default: return nil
            }
        }
        guard index == characters.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }

    /// Seconds since 1970 as `xs:dateTime` in UTC, to the millisecond ("2026-11-29T10:00:00.250Z").
    /// An HTTP date (RFC 9110 §5.6.7, IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT") in seconds
    /// since 1970; nil for anything else.
    package static func httpDate(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT", parts[1].count == 2, parts[3].count == 4, parts[4].count == 8,
              let month = months.firstIndex(of: String(parts[2])) else { return nil }
        let monthText = month < 9 ? "0\(month + 1)" : "\(month + 1)"
        return dateTime("\(parts[3])-\(monthText)-\(parts[1])T\(parts[4])Z")
    }

    package static func dateTimeText(_ seconds: Double) -> String {
        let milliseconds = Int64(saturating: seconds * 1000, rounding: .down)
        let (days, dayMilliseconds) = (milliseconds.quotientAndRemainder(dividingBy: 86_400_000))
        let (day, remainder) = dayMilliseconds < 0 ? (days - 1, dayMilliseconds + 86_400_000) : (days, dayMilliseconds)
        let (year, month, date) = civil(fromDays: Int(day))
        let seconds = Int(remainder / 1000)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fraction = String(Int(remainder % 1000) + 1000).dropFirst()
        return "\(year)-\(two(month))-\(two(date))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60)).\(fraction)Z"
    }

    /// The date `days` after 1970-01-01 (Howard Hinnant's civil_from_days).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian; Howard Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension String {
    /// Without the white space around it.
    func trimmingCharacters() -> String { String(Substring(self).trimmingWhitespace()) }
}
