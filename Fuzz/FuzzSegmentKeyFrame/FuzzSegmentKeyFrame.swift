import FuzzSupport
import HPlayerKit

/// Any bytes as the start of an MPEG-TS segment, whose first picture the HLS client checks for a
/// key frame before it switches variant there.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    _ = SegmentKeyFrame.startsWithKeyFrame(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

@_cdecl("FuzzSegmentKeyFrame_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
