import FuzzSupport
import HPlayerKit

/// Any bytes as an MPD, as a server sends it: parsed, then the initialization section and
/// segments of its first two Representations worked out, as the client works out one video
/// and one audio Representation's: a static MPD's whole, a dynamic one's up to a live edge.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    guard let mpd = try? MPDParser.parse(Array(UnsafeBufferPointer(start: data, count: size)), url: "http://fuzz.example/a/manifest.mpd") else { return 0 }
    var worked = 0
    for period in mpd.periods {
        for set in period.adaptationSets {
            for representation in set.representations where worked < 2 {
                worked += 1
                _ = try? MPDSegmentIndex.initialization(of: representation)
                let liveEdge = mpd.isDynamic ? (now: 1000.0, depth: mpd.timeShiftBufferDepth) : nil
                _ = try? MPDSegmentIndex.segments(of: representation, periodDuration: period.duration, liveEdge: liveEdge)
            }
        }
    }
    return 0
}

@_cdecl("FuzzMPD_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
