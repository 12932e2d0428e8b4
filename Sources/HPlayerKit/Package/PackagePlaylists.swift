/// One segment as written: its file name, length and size.
package struct WrittenSegment: Equatable, Sendable {
    package var name: String
    /// Seconds, from its first picture (or sound) to the next segment's.
    package var duration: Double
    package var bytes: Int

    package init(name: String, duration: Double, bytes: Int) {
        self.name = name
        self.duration = duration
        self.bytes = bytes
    }

    /// Bits per second over the segment.
    package var bitRate: Double { duration > 0 ? Double(bytes) * 8 / duration : 0 }
}

/// A variant as the master playlist lists it, from what was written.
package struct WrittenVariant: Equatable, Sendable {
    package var playlist: String
    package var segments: [WrittenSegment]
    package var width: Int
    package var height: Int
    package var frameRate: Double
    package var codecs: [String]
    /// An fMP4 stream's initialization section, and its name as a DASH Representation.
    package var initSection: String? = nil
    package var name = ""
}

/// The text of the playlists `--hls` writes (RFC 8216).
package enum PackagePlaylists {
    /// How a media playlist ends and what it declares.
    package struct MediaOptions: Equatable, Sendable {
        /// PLAYLIST-TYPE:VOD: every segment is there from the start.
        package var isVOD = true
        /// EXT-X-ENDLIST: no segment will be added (a VOD package, or a live one that has ended).
        package var isComplete = true
        /// The first segment's media sequence number (a live window's moves on).
        package var mediaSequence = 0
        /// An fMP4 stream's initialization section (EXT-X-MAP).
        package var initSection: String?
        /// The key's URI, for AES-128 segments (the IV is each segment's sequence number).
        package var keyURI: String?
        /// fMP4 samples in Common Encryption: EXT-X-KEY METHOD=SAMPLE-AES-CTR, this its URI (a
        /// ClearKey license server, or a data URI naming the key ID).
        package var sampleKeyURI: String?
        /// EXT-X-TARGETDURATION; nil: the longest segment listed, rounded. A live playlist's must
        /// not change from one reload to the next.
        package var targetDuration: Int?

        package init() {}
    }

    package static func media(_ segments: [WrittenSegment], options: MediaOptions) -> String {
        // EXT-X-MAP outside I-frame playlists needs version 6; decimal EXTINF needs 3.
        let version = options.initSection != nil ? 6 : 3
        let target = options.targetDuration ?? segments.map { Int($0.duration.rounded()) }.max() ?? 0
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(version)", "#EXT-X-TARGETDURATION:\(max(target, 1))",
                     "#EXT-X-MEDIA-SEQUENCE:\(options.mediaSequence)"]
        if options.isVOD { lines.append("#EXT-X-PLAYLIST-TYPE:VOD") }
        lines.append("#EXT-X-INDEPENDENT-SEGMENTS")
        // The map before the key: an initialization section after an EXT-X-KEY would be taken as
        // encrypted with it (RFC 8216 §4.3.2.5), and ours is written in the clear.
        if let initSection = options.initSection { lines.append("#EXT-X-MAP:URI=\"\(initSection)\"") }
        if let keyURI = options.keyURI { lines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"\(keyURI)\"") }
        if let uri = options.sampleKeyURI {
            lines.append("#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI=\"\(uri)\",KEYFORMAT=\"\(PackageManifest.clearKeySystem)\",KEYFORMATVERSIONS=\"1\"")
        }
        for segment in segments {
            lines.append("#EXTINF:\(DecimalText.fixed(segment.duration, places: 6)),")
            lines.append(segment.name)
        }
        if options.isComplete { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The master playlist: a line per variant, BANDWIDTH its peak segment rate (with the audio
    /// rendition's peak when the sound is apart), AVERAGE-BANDWIDTH its mean.
    package static func master(_ variants: [WrittenVariant], audio: WrittenVariant? = nil, usesInitSection: Bool) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(usesInitSection ? 6 : 3)", "#EXT-X-INDEPENDENT-SEGMENTS"]
        if let audio {
            lines.append("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"main\",DEFAULT=YES,AUTOSELECT=YES,URI=\"\(audio.playlist)\"")
        }
        let audioPeak = audio.map(peak) ?? 0
        let audioAverage = audio.map(average) ?? 0
        for variant in variants {
            var attributes = [
                "BANDWIDTH=\(Int((peak(variant) + audioPeak).rounded(.up)))",
                "AVERAGE-BANDWIDTH=\(Int((average(variant) + audioAverage).rounded(.up)))",
                "RESOLUTION=\(variant.width)x\(variant.height)",
                "CODECS=\"\((variant.codecs + (audio?.codecs ?? [])).joined(separator: ","))\"",
                "FRAME-RATE=\(DecimalText.fixed(variant.frameRate, places: 3))",
            ]
            if audio != nil { attributes.append("AUDIO=\"audio\"") }
            lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            lines.append(variant.playlist)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    package static func peak(_ variant: WrittenVariant) -> Double { variant.segments.map(\.bitRate).max() ?? 0 }

    package static func average(_ variant: WrittenVariant) -> Double {
        let seconds = variant.segments.reduce(0) { $0 + $1.duration }
        return seconds > 0 ? Double(variant.segments.reduce(0) { $0 + $1.bytes }) * 8 / seconds : 0
    }
}
