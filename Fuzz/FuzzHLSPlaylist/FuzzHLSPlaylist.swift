import FuzzSupport
import HPlayerKit

/// Any text as an HLS playlist, as a server sends it; a master playlist's renditions are then
/// looked up for every variant, as the client does at a switch.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    switch try? HLSPlaylistParser.parse(text) {
    case .master(let master):
        var current: HLSRendition?
        for variant in master.variants {
            _ = master.defaultAudioRendition(of: variant)
            current = master.audioRendition(of: variant, following: current)
        }
    case .media(let media):
        _ = (media.duration, media.isLive, media.segments.last?.byteRange)
    case nil:
        break
    }
    return 0
}

@_cdecl("FuzzHLSPlaylist_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
