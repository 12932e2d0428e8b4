/// Names as people sort them: a run of digits by its value ("ep2" before "ep10"), the rest by
/// letter, case aside; as file managers list a folder.
package enum NaturalOrder {
    package static func precedes(_ a: String, _ b: String) -> Bool {
        var left = a.unicodeScalars[...]
        var right = b.unicodeScalars[...]
        while let l = left.first, let r = right.first {
            if isDigit(l), isDigit(r) {
                let leftDigits = left.prefix(while: isDigit)
                let rightDigits = right.prefix(while: isDigit)
                let leftValue = leftDigits.drop { $0 == "0" }
                let rightValue = rightDigits.drop { $0 == "0" }
                if leftValue.count != rightValue.count { return leftValue.count < rightValue.count }
                if !leftValue.elementsEqual(rightValue) { return leftValue.lexicographicallyPrecedes(rightValue) { $0.value < $1.value } }
                left = left.dropFirst(leftDigits.count)
                right = right.dropFirst(rightDigits.count)
                continue
            }
            let lower = (String(l).lowercased(), String(r).lowercased())
            if lower.0 != lower.1 { return lower.0 < lower.1 }
            left = left.dropFirst()
            right = right.dropFirst()
        }
        if left.isEmpty != right.isEmpty { return left.isEmpty }
        return a < b  // the same but for case or leading zeros: a fixed order still
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
}
