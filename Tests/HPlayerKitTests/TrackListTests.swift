import Testing
@testable import HPlayerKit

@Suite struct TrackListTests {
    static func stream(_ index: Int, _ type: StreamType, _ codec: String, language: String? = nil, title: String? = nil,
                       isDefault: Bool = false, width: Int? = nil, height: Int? = nil, frameRate: Double? = nil,
                       sampleRate: Int? = nil, channels: Int? = nil) -> StreamInfo {
        StreamInfo(index: index, type: type, codec: codec, language: language, title: title, isDefault: isDefault,
                   isAttachedPicture: false, width: width, height: height, frameRate: frameRate, sampleRate: sampleRate,
                   channels: channels)
    }

    @Test("One line per video, audio and subtitle stream, numbered within its kind, (+) on those playing")
    func lines() {
        let info = MediaInfo(url: "x", container: "matroska", containerLongName: "", duration: 10, startTime: 0, bitRate: nil, streams: [
            Self.stream(0, .video, "h264", language: "und", isDefault: true, width: 320, height: 240, frameRate: 25),
            Self.stream(1, .audio, "aac", language: "eng", isDefault: true, sampleRate: 48000, channels: 2),
            Self.stream(2, .audio, "opus", language: "fra", title: "Commentaire", sampleRate: 48000, channels: 6),
            Self.stream(3, .subtitle, "subrip", language: "eng"),
            Self.stream(4, .attachment, "ttf"),
        ])
        #expect(TrackList.lines(for: info, playing: [0, 2]) == [
            " (+) Video --vid=1 (*) (h264 320x240 25.000fps)",
            "     Audio --aid=1 (*) --alang=eng (aac 2ch 48000Hz)",
            " (+) Audio --aid=2 --alang=fra 'Commentaire' (opus 6ch 48000Hz)",
            "     Subs  --sid=1 --slang=eng (subrip)",
        ])
    }

    @Test("External subtitle files come after the file's subtitle streams; (+) on the one shown")
    func externalSubtitles() {
        let info = MediaInfo(url: "x", container: "matroska", containerLongName: "", duration: 10, startTime: 0, bitRate: nil, streams: [
            Self.stream(0, .video, "h264", width: 320, height: 240),
            Self.stream(1, .subtitle, "ass", language: "spa", title: "Spanish"),
        ])
        let file = SubtitleTrackDescription(streamIndex: nil, path: "/films/talk.srt", codec: "subrip", language: nil, title: nil, isDefault: false)
        #expect(TrackList.lines(for: info, playing: [0, 1], externalSubtitles: [file], shownSubtitle: 2) == [
            " (+) Video --vid=1 (h264 320x240)",
            "     Subs  --sid=1 --slang=spa 'Spanish' (ass)",
            " (+) Subs  --sid=2 'talk.srt' (subrip) (external)",
        ])
        #expect(TrackList.lines(for: info, playing: [0], shownSubtitle: 1)[1] == " (+) Subs  --sid=1 --slang=spa 'Spanish' (ass)")
    }

    @Test("Fixed decimals", arguments: [(1.1, 2, "1.10"), (25, 3, "25.000"), (0.09, 2, "0.09"), (29.97002997, 3, "29.970"), (-0.5, 1, "-0.5"), (3, 0, "3")])
    func fixed(value: Double, places: Int, text: String) {
        #expect(DecimalText.fixed(value, places: places) == text)
    }
}

@Suite struct VariantListTests {
    @Test("An HLS master playlist's variants follow the tracks, the one played marked, with the option that picks each")
    func variantsAreListed() {
        var info = MediaInfo(url: "x", container: "mpegts", containerLongName: "", duration: 6, startTime: 0, bitRate: nil, streams: [])
        info.variants = [
            VariantInfo(bandwidth: 400_000, width: 320, height: 180, codecs: [], isPlaying: false),
            VariantInfo(bandwidth: 2_800_000, width: 1280, height: 720, codecs: ["avc1.64001f"], isPlaying: true),
            VariantInfo(bandwidth: 64_000, width: nil, height: nil, codecs: ["mp4a.40.2"], isPlaying: false),
        ]
        #expect(TrackList.lines(for: info, playing: []) == [
            "     Variant --hls-bitrate=400000 (320x180 0.4 Mb/s)",
            " (+) Variant --hls-bitrate=2800000 (1280x720 2.8 Mb/s)",
            "     Variant --hls-bitrate=64000 (0.1 Mb/s)",
        ])
    }
}
