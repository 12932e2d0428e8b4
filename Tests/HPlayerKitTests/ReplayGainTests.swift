import Foundation
import Testing
@testable import HPlayerKit

@Suite struct ReplayGainTests {
    static func tags(_ pairs: [(String, String)]) -> [MetadataTag] { pairs.map { MetadataTag(key: $0.0, value: $0.1) } }

    @Test("Tags are read as mpv reads them: the track's gain needed, a missing peak 1, the album's from the track's when absent, REPLAYGAIN_GAIN for both",
          arguments: [
            ([("REPLAYGAIN_TRACK_GAIN", "-6.50 dB"), ("REPLAYGAIN_TRACK_PEAK", "0.9"), ("REPLAYGAIN_ALBUM_GAIN", "+1 dB"),
              ("REPLAYGAIN_ALBUM_PEAK", "0.8")], ReplayGain.Tags(trackGain: -6.5, trackPeak: 0.9, albumGain: 1, albumPeak: 0.8)),
            ([("replaygain_track_gain", "3.2")], ReplayGain.Tags(trackGain: 3.2, trackPeak: 1, albumGain: 3.2, albumPeak: 1)),
            ([("REPLAYGAIN_GAIN", "-2 dB"), ("REPLAYGAIN_PEAK", "0.5")], ReplayGain.Tags(trackGain: -2, trackPeak: 0.5, albumGain: -2, albumPeak: 0.5)),
            ([("REPLAYGAIN_ALBUM_GAIN", "-2 dB")], nil),
            ([("REPLAYGAIN_TRACK_GAIN", "loud")], nil),
            ([("REPLAYGAIN_TRACK_GAIN", " -1.5e1dB")], ReplayGain.Tags(trackGain: -15, trackPeak: 1, albumGain: -15, albumPeak: 1)),
            ([("REPLAYGAIN_TRACK_GAIN", "-1 dB"), ("REPLAYGAIN_TRACK_PEAK", "0")], nil),
            ([("title", "x")], nil),
          ] as [([(String, String)], ReplayGain.Tags?)])
    func tags(pairs: [(String, String)], expected: ReplayGain.Tags?) {
        #expect(ReplayGain.Tags(Self.tags(pairs)) == expected)
    }

    static let tagged = ReplayGain.Tags(trackGain: 8, trackPeak: 0.5, albumGain: -3, albumPeak: 0.5)

    @Test("The factor: none without --replaygain; the gain plus the preamp, lowered to keep the peak at full scale unless clipping is allowed; the fallback without tags or without --replaygain, as mpv",
          arguments: [
            (ReplayGain(), tagged, 1.0),
            (ReplayGain(mode: .track), tagged, 2.0),
            (ReplayGain(mode: .track, allowsClipping: true), tagged, pow(10, 8.0 / 20)),
            (ReplayGain(mode: .album, preamp: 2), tagged, pow(10, -1.0 / 20)),
            (ReplayGain(mode: .album), nil, 1.0),
            (ReplayGain(mode: .track, fallback: -6), nil, pow(10, -6.0 / 20)),
            (ReplayGain(mode: .no, fallback: -6), tagged, pow(10, -6.0 / 20)),
          ] as [(ReplayGain, ReplayGain.Tags?, Double)])
    func factor(settings: ReplayGain, tags: ReplayGain.Tags?, expected: Double) {
        #expect(abs(settings.factor(for: tags) - expected) < 1e-12)
    }
}
