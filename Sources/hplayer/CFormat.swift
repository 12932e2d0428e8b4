import Glibc

/// printf-style formatting through the C library, so the command needs only FoundationEssentials
/// (the full Foundation, with ICU, costs several MiB of resident memory).
func cFormat(_ format: String, _ arguments: CVarArg...) -> String {
    let length = Int(withVaList(arguments) { vsnprintf(nil, 0, format, $0) })
    guard length > 0 else { return "" }
    var bytes = [CChar](repeating: 0, count: length + 1)
    _ = withVaList(arguments) { vsnprintf(&bytes, bytes.count, format, $0) }
    return String(decoding: bytes.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
