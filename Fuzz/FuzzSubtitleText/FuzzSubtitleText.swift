import FuzzSupport
import HPlayerKit

/// Any text as an ASS event line, as subtitle streams and files give them, made plain; and the
/// same bytes as an HLS WebVTT segment, with "WEBVTT\n" before them so most get past the
/// signature, their cues placed on a timeline.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    if let data {
        let bytes = UnsafeBufferPointer(start: data, count: size)
        _ = SubtitleText.plain(fromASSEvent: String(decoding: bytes, as: UTF8.self))
        var segments = WebVTTSegments(startTime: 1)
        for file in [Array(bytes), Array("WEBVTT\n".utf8) + bytes] {
            _ = try? segments.append(file, discontinuity: 0, end: 2)
        }
        _ = segments.resolve(near: 1) { _ in 0 }
    }
    return 0
}

@_cdecl("FuzzSubtitleText_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
