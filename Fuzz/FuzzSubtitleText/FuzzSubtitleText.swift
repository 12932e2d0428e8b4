import FuzzSupport
import HPlayerKit

/// libass and our glue around it, made once: fontconfig's start is slow.
nonisolated(unsafe) private let renderer = SubtitleRenderer()
nonisolated(unsafe) private let overlay = SubtitleOverlay(size: PictureSize(width: 96, height: 54))

/// Any text as an ASS event line, as subtitle streams and files give them, made plain; the same
/// text as an ASS script drawn by libass (the whole as its header, each line as an event); and
/// the same bytes as an HLS WebVTT segment, with "WEBVTT\n" before them so most get past the
/// signature, their cues placed on a timeline.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    if let data {
        let bytes = UnsafeBufferPointer(start: data, count: size)
        let text = String(decoding: bytes, as: UTF8.self)
        _ = SubtitleText.plain(fromASSEvent: text)
        let lines = text.split(separator: "\n").prefix(16).map(String.init)
        _ = renderer?.draw(header: text, events: lines, atMediaPts: 1, into: overlay)
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
