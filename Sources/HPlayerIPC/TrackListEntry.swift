import HPlayerKit

/// One entry of mpv's `track-list`, with a subset of mpv's fields: id (per type, from 1, as
/// `--vid`/`--aid`/`--sid` count), type, selected, codec, lang, title, default, external and
/// external-filename, the demuxer's picture size or sample rate and channels, and for an HLS
/// video track `hls-bitrate`, the bandwidth of the variant fetched. Its size is the picture's
/// playing, so that both change at a variant switch.
public struct TrackListEntry: Equatable, Sendable {
    public enum Kind: String, Sendable { case video, audio, sub }

    public var id: Int
    public var kind: Kind
    public var isSelected: Bool
    public var codec: String
    public var language: String?
    public var title: String?
    public var isDefault = false
    public var externalFile: String?
    public var width: Int?
    public var height: Int?
    public var sampleRate: Int?
    public var channels: Int?
    public var hlsBitrate: Int?

    public init(id: Int, kind: Kind, isSelected: Bool, codec: String) {
        self.id = id
        self.kind = kind
        self.isSelected = isSelected
        self.codec = codec
    }

    /// The entries of a player's tracks: the file's video and audio streams (cover pictures
    /// left out) in file order, then its subtitle tracks as numbered for `--sid`.
    /// - Parameters:
    ///   - playing: the indices of the streams playing.
    ///   - subtitles: the subtitle tracks; `shownSubtitle` the number of the one shown.
    ///   - variant: the HLS variant fetched (its bandwidth), and `pictureSize` the size presented.
    public static func entries(streams: [StreamInfo], playing: Set<Int>, subtitles: [SubtitleTrackDescription], shownSubtitle: Int?,
                               variantBandwidth: Int?, pictureSize: PictureSize?) -> [TrackListEntry] {
        var entries: [TrackListEntry] = []
        for kind in [Kind.video, .audio] {
            let ofKind = streams.filter { $0.type == (kind == .video ? .video : .audio) && !$0.isAttachedPicture }
            for (number, stream) in ofKind.enumerated() {
                var entry = TrackListEntry(id: number + 1, kind: kind, isSelected: playing.contains(stream.index), codec: stream.codec)
                entry.language = stream.language
                entry.title = stream.title
                entry.isDefault = stream.isDefault
                if kind == .video {
                    let presented = entry.isSelected ? pictureSize : nil
                    entry.width = presented?.width ?? stream.width
                    entry.height = presented?.height ?? stream.height
                    entry.hlsBitrate = entry.isSelected ? variantBandwidth : nil
                } else {
                    entry.sampleRate = stream.sampleRate
                    entry.channels = stream.channels
                }
                entries.append(entry)
            }
        }
        for (number, subtitle) in subtitles.enumerated() {
            var entry = TrackListEntry(id: number + 1, kind: .sub, isSelected: shownSubtitle == number + 1, codec: subtitle.codec)
            entry.language = subtitle.language
            entry.title = subtitle.title
            entry.isDefault = subtitle.isDefault
            entry.externalFile = subtitle.path
            entries.append(entry)
        }
        return entries
    }

    /// The entry as mpv's JSON names its fields; those unknown are left out, as mpv leaves them.
    var json: JSONValue {
        var fields: [String: JSONValue] = [
            "id": .number(Double(id)), "type": .string(kind.rawValue), "selected": .bool(isSelected), "codec": .string(codec),
            "default": .bool(isDefault), "forced": .bool(false), "external": .bool(externalFile != nil),
        ]
        if let language { fields["lang"] = .string(language) }
        if let title { fields["title"] = .string(title) }
        if let externalFile { fields["external-filename"] = .string(externalFile) }
        if let width { fields["demux-w"] = .number(Double(width)) }
        if let height { fields["demux-h"] = .number(Double(height)) }
        if let sampleRate { fields["demux-samplerate"] = .number(Double(sampleRate)) }
        if let channels { fields["demux-channel-count"] = .number(Double(channels)) }
        if let hlsBitrate { fields["hls-bitrate"] = .number(Double(hlsBitrate)) }
        return .object(fields)
    }
}
