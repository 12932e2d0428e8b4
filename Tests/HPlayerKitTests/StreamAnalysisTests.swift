import Testing
@testable import HPlayerKit

@Suite struct StreamAnalysisTests {
    typealias Header = StreamAnalysis.StreamHeader
    static let mp4 = "mov,mp4,m4a,3gp,3g2,mj2"
    static let video = Header(kind: .video, isCodecKnown: true, width: 1920, height: 1080, hasStartTime: true)
    static let audio = Header(kind: .audio, isCodecKnown: true, sampleRate: 48000, channelCount: 2, hasStartTime: true)

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var format: String
        var streams: [Header]
        var needed: Bool
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "MP4 whose header says it all", format: mp4, streams: [video, audio], needed: false),
        Row(name: "MP4 with a data stream beside", format: mp4, streams: [video, audio, Header(kind: nil, isCodecKnown: false, hasStartTime: false)], needed: false),
        Row(name: "Matroska: stream starts only the analysis finds", format: "matroska,webm", streams: [video, audio], needed: true),
        Row(name: "MPEG-TS: no header to speak of", format: "mpegts", streams: [video, audio], needed: true),
        Row(name: "MP4, picture size unknown", format: mp4, streams: [Header(kind: .video, isCodecKnown: true, hasStartTime: true), audio], needed: true),
        Row(name: "MP4, channels unknown", format: mp4, streams: [video, Header(kind: .audio, isCodecKnown: true, sampleRate: 48000, hasStartTime: true)], needed: true),
        Row(name: "MP4, codec unknown", format: mp4, streams: [Header(kind: .video, isCodecKnown: false, width: 320, height: 240, hasStartTime: true)], needed: true),
        Row(name: "MP4, no start time", format: mp4, streams: [Header(kind: .video, isCodecKnown: true, width: 320, height: 240, hasStartTime: false)], needed: true),
        Row(name: "MP4 with no audio or video stream", format: mp4, streams: [], needed: true),
    ]

    @Test(arguments: rows)
    func isNeeded(_ row: Row) {
        #expect(StreamAnalysis.isNeeded(formatName: row.format, streams: row.streams) == row.needed)
    }
}
