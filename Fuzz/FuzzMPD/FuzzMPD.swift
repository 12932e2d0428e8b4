import FuzzSupport
import HPlayerKit

/// Any bytes as an MPD, as a server sends it: parsed, then every Representation's
/// initialization section and segments worked out, static and as a live edge.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    guard let mpd = try? MPDParser.parse(Array(UnsafeBufferPointer(start: data, count: size)), url: "http://fuzz.example/a/manifest.mpd") else { return 0 }
    for period in mpd.periods {
        for set in period.adaptationSets {
            for representation in set.representations {
                _ = try? MPDSegmentIndex.initialization(of: representation)
                _ = try? MPDSegmentIndex.segments(of: representation, periodDuration: period.duration)
                _ = try? MPDSegmentIndex.segments(of: representation, periodDuration: period.duration, liveEdge: (now: 1000, depth: mpd.timeShiftBufferDepth))
            }
        }
    }
    return 0
}

@_cdecl("FuzzMPD_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
