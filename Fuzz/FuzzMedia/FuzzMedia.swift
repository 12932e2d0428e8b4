import FuzzSupport
import HPlayerKit

/// Any bytes, opened, demuxed and decoded through the Source, its tracks and their decoders, read
/// through the I/O layer (an AVIOContext over the input): at most 64 frames a stream, 2 s an input.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    if let data {
        let input = MemoryByteSource(Array(UnsafeBufferPointer(start: data, count: size)), input: "fuzz-input")
        _ = try? DecodeBenchmark.run(url: "fuzz-input", input: input, limits: DecodeBenchmark.Limits(frames: 64, seconds: 2))
    }
    return 0
}

@_cdecl("FuzzMedia_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
