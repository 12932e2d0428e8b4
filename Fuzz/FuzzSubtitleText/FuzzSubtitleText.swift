import FuzzSupport
import HPlayerKit

/// Any text as an ASS event line, as subtitle streams and files give them, made plain.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    if let data {
        _ = SubtitleText.plain(fromASSEvent: String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    }
    return 0
}

@_cdecl("FuzzSubtitleText_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
