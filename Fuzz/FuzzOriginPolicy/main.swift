import FuzzSupport
import HPlayerKit

/// A document's URL and a URI it names (the input's first line, then the rest), as a server's
/// playlist would pair them: the URI is resolved against the URL and put to the origin policy,
/// as the HLS client and the playlist expansion do. Beyond not crashing, what the policy
/// promises must hold: what a remote document may open is an http or https URL, a relative
/// URI stays on the document's own scheme, and redirect and origin checks agree with it.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let document = String(parts[0])
    let reference = parts.count > 1 ? String(parts[1]) : ""
    let resolved = OriginPolicy.resolve(reference, against: document)
    let refusal = OriginPolicy.refusal(of: resolved, namedBy: document)
    if OriginPolicy.isRemote(document) {
        if refusal == nil {
            let lowered = resolved.lowercased()
            precondition(lowered.hasPrefix("http:") || lowered.hasPrefix("https:"), "a remote document opened \(resolved)")
        }
        if document.contains("://"), !reference.contains(":") {
            precondition(resolved.lowercased().hasPrefix(document.prefix { $0 != ":" }.lowercased() + ":"),
                         "\(reference) against \(document) left its scheme: \(resolved)")
        }
    }
    if OriginPolicy.redirectRefusal(from: document, to: resolved, allowsDowngrade: true) == nil {
        precondition(OriginPolicy.isRemote(resolved), "a redirect followed to \(resolved)")
    }
    precondition(OriginPolicy.isSameOrigin(document, resolved) == OriginPolicy.isSameOrigin(resolved, document))
    return 0
}

@_cdecl("FuzzOriginPolicy_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
