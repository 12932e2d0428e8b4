/// The track list a player prints when a file opens, in mpv's words: one line per video, audio
/// and subtitle stream, numbered within its kind as `--vid`, `--aid` and `--sid` count them, with
/// language, title and format, then the external subtitle files; `(+)` on those playing.
package enum TrackList {
    /// - Parameters:
    ///   - playing: the indices of the video and audio streams playing.
    ///   - renditionSubtitles: text renditions read alongside (DASH text sets), numbered after the
    ///     file's subtitle streams.
    ///   - externalSubtitles: the files, numbered after those.
    ///   - shownSubtitle: the number of the subtitle track shown.
    package static func lines(for info: MediaInfo, playing: Set<Int>, renditionSubtitles: [SubtitleTrackDescription] = [],
                             externalSubtitles: [SubtitleTrackDescription] = [], shownSubtitle: Int? = nil) -> [String] {
        var numbers: [StreamType: Int] = [:]
        let streams = info.streams.compactMap { stream -> String? in
            guard let kind = Kind(stream.type) else { return nil }
            let number = (numbers[stream.type] ?? 0) + 1
            numbers[stream.type] = number
            let isPlaying = kind == .subtitle ? number == shownSubtitle : playing.contains(stream.index)
            var parts = [isPlaying ? " (+)" : "    ", kind.label, "--\(kind.option)=\(number)"]
            if stream.isDefault { parts.append("(*)") }
            if let language = stream.language, language != "und" { parts.append("--\(kind.languageOption)=\(language)") }
            if let title = stream.title, !title.isEmpty { parts.append("'\(title)'") }
            if stream.isAttachedPicture { parts.append("[P]") }
            parts.append("(" + format(of: stream).joined(separator: " ") + ")")
            return parts.joined(separator: " ")
        }
        let streamCount = numbers[.subtitle] ?? 0
        let renditions = renditionSubtitles.enumerated().map { offset, rendition in
            let number = streamCount + offset + 1
            var parts = [number == shownSubtitle ? " (+)" : "    ", Kind.subtitle.label, "--sid=\(number)"]
            if rendition.isDefault { parts.append("(*)") }
            if let language = rendition.language, language != "und" { parts.append("--slang=\(language)") }
            if let title = rendition.title, !title.isEmpty { parts.append("'\(title)'") }
            return (parts + ["(\(rendition.codec))"]).joined(separator: " ")
        }
        let embeddedCount = streamCount + renditionSubtitles.count
        let files = externalSubtitles.enumerated().map { offset, file in
            let number = embeddedCount + offset + 1
            return [number == shownSubtitle ? " (+)" : "    ", Kind.subtitle.label, "--sid=\(number)", "'\(file.fileName ?? "")'",
                    "(\(file.codec))", "(external)"]
                .joined(separator: " ")
        }
        let variants = (info.variants ?? []).enumerated().map { index, variant in
            [variant.isPlaying ? " (+)" : "    ", "Variant", "--hls-bitrate=\(variant.bandwidth)", "(\(variant.summary))"]
                .joined(separator: " ")
        }
        return streams + renditions + files + variants
    }

    private enum Kind {
        case video, audio, subtitle

        init?(_ type: StreamType) {
            switch type {
            case .video: self = .video
            case .audio: self = .audio
            case .subtitle: self = .subtitle
            case .data, .attachment, .unknown: return nil
            }
        }

        var label: String {
            switch self {
            case .video: "Video"
            case .audio: "Audio"
            case .subtitle: "Subs "
            }
        }

        var option: String {
            switch self {
            case .video: "vid"
            case .audio: "aid"
            case .subtitle: "sid"
            }
        }

        var languageOption: String {
            switch self {
            case .video: "vlang"
            case .audio: "alang"
            case .subtitle: "slang"
            }
        }
    }

    private static func format(of stream: StreamInfo) -> [String] {
        var parts = [stream.codec]
        if let width = stream.width, let height = stream.height { parts.append("\(width)x\(height)") }
        if let rate = stream.frameRate { parts.append(DecimalText.fixed(rate, places: 3) + "fps") }
        if let channels = stream.channels { parts.append("\(channels)ch") }
        if let rate = stream.sampleRate { parts.append("\(rate)Hz") }
        return parts
    }
}
