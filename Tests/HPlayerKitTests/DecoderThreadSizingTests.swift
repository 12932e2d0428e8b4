import CFFmpeg
import Testing
@testable import HPlayerKit

@Suite struct DecoderThreadSizingTests {
    typealias StartRow = (width: Int, height: Int, fps: Double, speed: Double, cores: Int, expected: Int)
    static let starts: [StartRow] = [
        (width: 640, height: 360, fps: 30.0, speed: 1.0, cores: 16, expected: 1),
        (width: 1920, height: 1080, fps: 30.0, speed: 1.0, cores: 16, expected: 1),   // 62 M/s
        (width: 1920, height: 1080, fps: 60.0, speed: 1.0, cores: 16, expected: 2),   // 124 M/s
        (width: 1920, height: 1080, fps: 30.0, speed: 2.0, cores: 16, expected: 2),
        (width: 3840, height: 2160, fps: 30.0, speed: 1.0, cores: 16, expected: 3),   // 249 M/s
        (width: 3840, height: 2160, fps: 60.0, speed: 1.0, cores: 16, expected: 5),
        (width: 3840, height: 2160, fps: 60.0, speed: 1.0, cores: 2, expected: 2),    // never more than the cores
        (width: 7680, height: 4320, fps: 60.0, speed: 4.0, cores: 64, expected: 16),  // nor than libavcodec's 16
        (width: 1920, height: 1080, fps: 30.0, speed: 0.5, cores: 16, expected: 1),   // slower never takes fewer than 1x's
        (width: 0, height: 0, fps: 30.0, speed: 1.0, cores: 16, expected: 1),         // size unknown
        (width: 1920, height: 1080, fps: 30.0, speed: 1.0, cores: 0, expected: 1),    // cores unknown
    ]

    @Test("Threads to start with, by the stream's pixel rate at the playback speed (a thread taken to decode 200 M pixels a second, at half load)", arguments: starts)
    func initialThreads(row: StartRow) {
        #expect(DecoderThreadSizing.initialThreads(width: row.width, height: row.height, framesPerSecond: row.fps, speed: row.speed,
                                                   cores: row.cores) == row.expected)
    }

    typealias MeasureRow = (current: Int, interval: Double, decode: Double, cores: Int, expected: Int)
    static let measures: [MeasureRow] = [
        (current: 1, interval: 1.0 / 30, decode: 0.005, cores: 16, expected: 1),   // 15 % load
        (current: 1, interval: 1.0 / 30, decode: 0.0166, cores: 16, expected: 1),  // just under half
        (current: 1, interval: 1.0 / 30, decode: 0.020, cores: 16, expected: 2),   // 60 %: doubled
        (current: 1, interval: 1.0 / 30, decode: 0.045, cores: 16, expected: 3),   // 135 %: three, each under half
        (current: 2, interval: 1.0 / 30, decode: 0.020, cores: 16, expected: 4),   // what 2 could not hide
        (current: 4, interval: 1.0 / 60, decode: 0.030, cores: 16, expected: 15),
        (current: 4, interval: 1.0 / 60, decode: 0.030, cores: 8, expected: 8),    // the cores
        (current: 8, interval: 1.0 / 30, decode: 0.200, cores: 64, expected: 16),  // libavcodec's 16
        (current: 2, interval: 1.0 / 30, decode: 0.001, cores: 16, expected: 2),   // never fewer
        (current: 1, interval: 0.0, decode: 0.010, cores: 16, expected: 1),        // no interval known
    ]

    @Test("Threads for the measured decode time per picture against the frame interval: kept within half of it, else what brings it there, at least doubled",
          arguments: measures)
    func threadsForMeasurement(row: MeasureRow) {
        #expect(DecoderThreadSizing.threads(current: row.current, frameInterval: row.interval, decodeTime: row.decode, cores: row.cores) == row.expected)
    }

    typealias PacketRow = (bytes: [UInt8], key: Bool, codec: String, lengthSize: Int, fresh: Bool)
    static let packets: [PacketRow] = [
        (bytes: [0, 0, 0, 1, 0x67, 0x42, 0, 0, 1, 0x68, 0xce, 0, 0, 1, 0x65, 0x88], key: true, codec: "h264", lengthSize: 0, fresh: true),
        (bytes: [0, 0, 0, 1, 0x06, 0x05, 0, 0, 1, 0x41, 0x9a], key: true, codec: "h264", lengthSize: 0, fresh: false),  // SEI + non-IDR slice
        (bytes: [0, 0, 0, 2, 0x09, 0x10, 0, 0, 0, 2, 0x65, 0x88], key: true, codec: "h264", lengthSize: 4, fresh: true),
        (bytes: [0, 0, 0, 2, 0x09, 0x10, 0, 0, 0, 2, 0x41, 0x9a], key: true, codec: "h264", lengthSize: 4, fresh: false),
        (bytes: [0, 2, 0x06, 0x05, 0, 2, 0x65, 0x88], key: true, codec: "h264", lengthSize: 2, fresh: true),
        (bytes: [0, 0, 1, 0x65, 0x88], key: false, codec: "h264", lengthSize: 0, fresh: false),        // not flagged key
        (bytes: [0, 0, 0, 9, 0x65], key: true, codec: "h264", lengthSize: 4, fresh: false),             // a length past the end
        (bytes: [0, 0, 0, 1, 0x40, 0x01, 0, 0, 1, 0x26, 0x01], key: true, codec: "hevc", lengthSize: 0, fresh: true),  // VPS, IDR_W_RADL
        (bytes: [0, 0, 0, 3, 0x28, 0x01, 0xaf], key: true, codec: "hevc", lengthSize: 4, fresh: true),  // IDR_N_LP
        (bytes: [0, 0, 0, 3, 0x22, 0x01, 0xaf], key: true, codec: "hevc", lengthSize: 4, fresh: true),  // BLA_W_RADL
        (bytes: [0, 0, 0, 3, 0x2a, 0x01, 0xaf], key: true, codec: "hevc", lengthSize: 4, fresh: false), // CRA: leading pictures refer back
        (bytes: [0x82, 0x49, 0x83], key: true, codec: "vp9", lengthSize: 0, fresh: true),
        (bytes: [0, 0, 1, 0xb3], key: true, codec: "mpeg2video", lengthSize: 0, fresh: false),           // open GOPs: never
    ]

    @Test("A packet starts afresh at an H.264 IDR or an HEVC IDR or BLA, in Annex B or with length prefixes; not at a recovery point, a CRA or an unflagged packet",
          arguments: packets)
    func freshStart(row: PacketRow) throws {
        let id = try #require(avcodec_descriptor_get_by_name(row.codec)).pointee.id
        let result = row.bytes.withUnsafeBufferPointer { FreshStart.isFresh($0, isKeyFlagged: row.key, codec: id, lengthSize: row.lengthSize) }
        #expect(result == row.fresh)
    }

    typealias ExtradataRow = (extradata: [UInt8], codec: String, expected: Int)
    static let extradata: [ExtradataRow] = [
        (extradata: [1, 0x64, 0, 0x1f, 0xff, 0xe1], codec: "h264", expected: 4),
        (extradata: [1, 0x64, 0, 0x1f, 0xfd, 0xe1], codec: "h264", expected: 2),
        (extradata: [0, 0, 0, 1, 0x67, 0x64], codec: "h264", expected: 0),
        (extradata: [1] + [UInt8](repeating: 0, count: 20) + [0x0f, 3], codec: "hevc", expected: 4),
        (extradata: [1] + [UInt8](repeating: 0, count: 20) + [0x0c, 3], codec: "hevc", expected: 1),
        (extradata: [0, 1] + [UInt8](repeating: 0, count: 19) + [0x0f, 3], codec: "hevc", expected: 4),  // version 0, as some muxers wrote
        (extradata: [0, 0, 0, 1, 0x40, 0x01] + [UInt8](repeating: 0, count: 20), codec: "hevc", expected: 0),
        (extradata: [], codec: "hevc", expected: 0),
    ]

    @Test("The length prefix's size from avcC and hvcC (version 1, or 0); 0 for Annex B extradata", arguments: extradata)
    func lengthSize(row: ExtradataRow) throws {
        let id = try #require(avcodec_descriptor_get_by_name(row.codec)).pointee.id
        #expect(row.extradata.withUnsafeBufferPointer { FreshStart.lengthSize(extradata: $0, codec: id) } == row.expected)
    }
}
