import Foundation
import HPlayerKit
import HPlayerTestSupport
import Testing

extension Playback {
    /// mpv's --replaygain on the samples played: ours as `--ao record` writes them, mpv's as its
    /// `--ao=pcm` does, for the same file and options.
    @Suite(.enabled(if: IPC.hasMpv, "needs mpv")) struct ReplayGainPlayback {
        /// 1 s of a 440 Hz sine at 1/16 of full scale in FLAC; tagged: a track gain of +8 dB with
        /// a peak of 0.5 (so +8 dB would clip), an album gain of -3 dB.
        static func clip(tagged: Bool) throws -> String {
            let tags = ["-metadata", "REPLAYGAIN_TRACK_GAIN=+8.00 dB", "-metadata", "REPLAYGAIN_TRACK_PEAK=0.500000",
                        "-metadata", "REPLAYGAIN_ALBUM_GAIN=-3.00 dB", "-metadata", "REPLAYGAIN_ALBUM_PEAK=0.500000"]
            return try Fixtures.clip(tagged ? "replaygain-tagged.flac" : "replaygain-untagged.flac",
                                     ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1", "-af", "volume=0.5",
                                      "-c:a", "flac"] + (tagged ? tags : []))
        }

        static func ours(_ clip: String, _ options: [String]) throws -> [Float] {
            let folder = Fixtures.newFolder("replaygain")
            let result = try Command.run([Command.hplayer, clip, "--ao", "record:\(folder)", "--vo", "null", "--no-status"] + options,
                                         timeout: 30)
            try #require(result.status == 0 && !result.timedOut, "hplayer: \(result.stderr)")
            return try WAVFile.read(folder + "/audio.wav").samples
        }

        /// mpv's samples, 32-bit float: the WAV's data chunk, wherever its (extensible) header ends.
        static func mpvs(_ clip: String, _ options: [String]) throws -> [Float] {
            let file = Fixtures.newFolder("replaygain-mpv") + "/out.wav"
            let result = try Command.run(["mpv", "--no-config", "--really-quiet", "--vo=null", "--ao=pcm", "--ao-pcm-file=\(file)",
                                          "--audio-format=float"] + options + [clip], timeout: 30)
            try #require(result.status == 0 && !result.timedOut, "mpv: \(result.stderr)")
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let chunk = try #require(data.range(of: Data("data".utf8)))
            return data.subdata(in: (chunk.upperBound + 4)..<data.count).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }

        /// The largest magnitude after the first tenth of a second.
        static func peak(_ samples: [Float]) -> Double { Double(samples.dropFirst(4800).map(abs).max() ?? 0) }

        @Test("--replaygain track and album, --replaygain-preamp, --replaygain-clip and --replaygain-fallback scale every sample by the gain the tags ask for, as mpv's do",
              .timeLimit(.minutes(2)))
        func gainsAsMpv() throws {
            let (tagged, untagged) = (try Self.clip(tagged: true), try Self.clip(tagged: false))
            let plain = try Self.ours(tagged, [])
            #expect(abs(Self.peak(plain) / Self.peak(try Self.mpvs(tagged, [])) - 1) < 0.005, "without --replaygain the tags are not read")
            let cases: [(ours: [String], mpv: [String], clip: String, factor: Double)] = [
                // +8 dB would take the tagged peak of 0.5 past full scale: lowered to 1 / 0.5.
                (["--replaygain", "track"], ["--replaygain=track"], tagged, 2),
                (["--replaygain", "track", "--replaygain-clip"], ["--replaygain=track", "--replaygain-clip=yes"], tagged, pow(10, 8.0 / 20)),
                (["--replaygain", "album", "--replaygain-preamp", "2"], ["--replaygain=album", "--replaygain-preamp=2"], tagged,
                 pow(10, -1.0 / 20)),
                (["--replaygain", "track", "--replaygain-fallback=-6"], ["--replaygain=track", "--replaygain-fallback=-6"], untagged,
                 pow(10, -6.0 / 20)),
            ]
            for (ours, mpv, clip, factor) in cases {
                let samples = try Self.ours(clip, ours)
                #expect(samples.count == plain.count, "\(ours)")
                // Sample for sample: the recording without ReplayGain times the factor.
                let worst = zip(samples, plain).map { abs(Double($0) - Double($1) * factor) }.max() ?? 1
                #expect(worst < 1e-6, "\(ours): a sample off by \(worst)")
                let ratio = Self.peak(samples) / Self.peak(try Self.mpvs(clip, mpv))
                #expect(abs(ratio - 1) < 0.005, "\(ours): the peak \(ratio) times mpv's")
            }
        }
    }
}
