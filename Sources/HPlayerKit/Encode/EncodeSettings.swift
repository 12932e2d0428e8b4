/// How `hplayer encode` encodes the picture: libx264's settings, or a hardware encoder's where
/// one is asked for and opens.
package struct VideoEncodeSettings: Sendable, Equatable {
    /// Bits per second; nil: constant quality (`crf`).
    package var bitRate: Int?
    /// x264's constant rate factor when no bit rate is given.
    package var crf = 23.0
    /// Frames from one key frame to the next; nil: two seconds' worth. Scene cuts do not add
    /// key frames, so the interval is exact (HLS variants cut at the same frames).
    package var keyFrameInterval: Int?
    /// "baseline", "main", "high"; nil: the encoder's choice.
    package var profile: String?
    /// "3.1", "4.1", …; nil: the encoder's choice.
    package var level: String?
    /// The most B-frames in a row; nil: the encoder's default (3 for x264).
    package var bFrames: Int?
    /// x264's speed preset ("ultrafast" … "veryslow").
    package var preset = "medium"
    /// Real time: no frame delay (x264's zerolatency tune: no look-ahead, no B-frames).
    package var isZeroLatency = false
    /// Encoder threads; 0: one per core.
    package var threads = 0
    /// The picture's size; nil: the source's.
    package var size: PictureSize?
    /// The source's pixel shape (width / height of a pixel), kept where the picture is not
    /// rescaled, and how it must be turned to be upright (clockwise degrees), which the pixels
    /// are not: both go to the stream's metadata. Set by the encode, not by the command line.
    var sampleAspectRatio = 1.0
    var rotation = 0

    package init() {}
}

/// How the sound is encoded: FFmpeg's native AAC encoder (AAC-LC).
package struct AudioEncodeSettings: Sendable, Equatable {
    package var bitRate = 128_000
    /// nil: the source's (when AAC supports it, else 48 kHz).
    package var sampleRate: Int?
    /// nil: the source's (at most 8).
    package var channelCount: Int?

    package init() {}
}

/// `--hwenc`: which H.264 encoder to try first.
package enum HardwareEncoder: String, Sendable, CaseIterable {
    /// nvenc, then vaapi, then libx264.
    case auto
    /// libx264.
    case no
    case nvenc
    case vaapi
}
