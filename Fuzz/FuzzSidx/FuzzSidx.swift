import FuzzSupport
import HPlayerKit

/// Any bytes as a SegmentBase's index range: the sidx box found and read, and the segments it
/// lists worked out.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, let sidx = try? SidxBox.parse(Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    let representation = MPDRepresentation(id: "r", bandwidth: 1, baseURLs: ["http://fuzz.example/a.mp4"],
                                           segments: .base(MPDSegmentBase(indexRange: 0...Int64(max(size - 1, 0)), timescale: 90_000, presentationTimeOffset: 1000)))
    _ = MPDSegmentIndex.segments(of: representation, sidx: sidx, indexEnd: Int64(sidx.boxEnd))
    return 0
}

@_cdecl("FuzzSidx_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
