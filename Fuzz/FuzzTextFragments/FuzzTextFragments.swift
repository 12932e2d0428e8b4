import FuzzSupport
import HPlayerKit

/// Any bytes as a DASH text rendition's stream: fed to the fragment reader in pieces of a size
/// the first byte picks (boxes split anywhere), and read whole as a TTML document and as
/// WebVTT cue text.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let piece = Int(bytes[0]) + 1
    var stream = TextSampleStream()
    var offset = 1
    while offset < bytes.count {
        let end = min(offset + piece, bytes.count)
        _ = bytes[offset..<end].withUnsafeBytes { stream.append($0) }
        _ = stream.takeProblem()
        offset = end
    }
    _ = try? TTMLDocument.cues(in: bytes, until: 10)
    _ = WebVTTText.plain(fromCueText: Substring(String(decoding: bytes, as: UTF8.self)))
    return 0
}

@_cdecl("FuzzTextFragments_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
