import FuzzSupport
import HPlayerKit

/// Any bytes as the start of an MPEG-TS segment, whose first picture the HLS client checks for a
/// key frame before it switches variant there (and whose video from its last key frame it reads
/// where the next segment lacks one); as an fMP4 initialization section and fragment, split
/// where the first byte says, checked for a sync sample the same way; and as H.264 Annex B, cut
/// into NAL units as the encoder's raw output, the package's CODECS string and `hplayer probe`
/// read them, and as an SPS.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = SegmentKeyFrame.startsWithKeyFrame(bytes)
    _ = SegmentKeyFrame.videoFromLastKeyFrame(bytes)
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) * bytes.count / 255
    _ = FragmentKeyFrame.startsWithKeyFrame(initSection: Array(bytes[..<split]), fragment: Array(bytes[split...]))
    let units = AnnexB.nalUnits(in: bytes)
    _ = AnnexB.everyIDRHasParameterSets([units.map(\.type)])
    _ = AnnexBSummary(bytes: bytes)
    _ = H264SPS.parse(([0x67] + bytes)[...])
    return 0
}

@_cdecl("FuzzSegmentKeyFrame_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
