import CFFmpeg

/// One frame of a video written to a PNG file as it is shown: upright, at its display size
/// (`UprightPicture`); the frame at a time is the one `ffmpeg -ss TIME -i URL -frames:v 1`
/// extracts (`FrameGrabber`).
///
/// Each call opens the media anew and decodes from the key frame before the time, so it takes
/// a moment (a fraction of a second for most files): call it off the player's threads.
public enum Snapshot {
    /// `hplayer snapshot`: the frame at `position` (counted from the start, as `--start` counts)
    /// written to `path`, replacing any file there, with the subtitles of `subtitles` drawn on it.
    public static func write(url: String, at position: StartPosition, to path: String, videoTrack: Int? = nil,
                             network: NetworkOptions = NetworkOptions(), subtitles: SnapshotSubtitles? = nil) throws(MediaError) {
        let grabber = try FrameGrabber(url: url, videoTrack: videoTrack, network: network)
        guard let seconds = position.seconds(duration: grabber.duration) else {
            throw MediaError(input: url, reason: "a percentage needs a known duration")
        }
        let track = try subtitles.map { choice throws(MediaError) in try choice.load(media: url, startTime: grabber.startTime) }
        try WholeFile.write(try png(from: grabber, atMediaTime: grabber.startTime + seconds, subtitleTrack: track,
                                    style: subtitles?.style ?? SubtitleStyle()), to: path)
    }

    /// The `s` key: the frame at `mediaPts` (the media pts of the frame on screen,
    /// `Frame.mediaPts`) written to a new file in `folder`, named for the media and the position:
    /// `NAME-HH-MM-SS.mmm.png`, or `NAME-HH-MM-SS.mmm-2.png`, `-3`… when that is taken.
    /// - Returns: the path written.
    /// `subtitle`: what showed over that frame, drawn on it.
    public static func save(url: String, mediaPts: Double, folder: String, videoTrack: Int? = nil,
                            network: NetworkOptions = NetworkOptions(), subtitle: ShownSubtitle? = nil) throws(MediaError) -> String {
        let grabber = try FrameGrabber(url: url, videoTrack: videoTrack, network: network)
        let bytes = try png(from: grabber, atMediaTime: mediaPts, subtitle: subtitle)
        let position = TimeText.precise(mediaPts - grabber.startTime, separator: "-")
        let stem = (folder.isEmpty ? "." : folder) + (folder.hasSuffix("/") ? "" : "/") + "\(name(of: url))-\(position)"
        let paths = [stem + ".png"] + (2...9999).lazy.map { "\(stem)-\($0).png" }
        return try WholeFile.create(bytes, atFirstFreeOf: paths)
    }

    /// The subtitle is drawn at the frame's time, as it shows with that frame in playback.
    private static func png(from grabber: FrameGrabber, atMediaTime time: Double, subtitle: ShownSubtitle? = nil,
                            subtitleTrack: SubtitleTrack? = nil, style: SubtitleStyle = SubtitleStyle()) throws(MediaError) -> [UInt8] {
        let frame = try grabber.frame(atMediaTime: time)
        let subtitle = subtitle ?? subtitleTrack?.shown(at: frame.mediaPts).map { shown in
            var styled = shown
            styled.style = style
            return styled
        }
        let picture: Frame
        do {
            picture = try UprightPicture.make(from: frame, format: grabber.videoFormat)
        } catch {
            throw MediaError(input: grabber.url, reason: "cannot make the PNG: \(error)")
        }
        if let subtitle {
            // Drawn at the picture's display size over the video as coded, as mpv's screenshots.
            SubtitleRenderer()?.blend(subtitle, atMediaPts: frame.mediaPts, onto: picture, bytesPerPixel: picture.avPixelFormat == AV_PIX_FMT_RGBA ? 4 : 3,
                                      storage: PictureSize(width: frame.width, height: frame.height))
        }
        return try PNGEncoder.encode(picture)
    }

    /// The media's file name without its folder and extension (and, for a URL, without its query).
    static func name(of url: String) -> String {
        var name = Substring(url)
        if url.contains("://"), let end = name.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            name = name[..<end]
        }
        while name.hasSuffix("/") { name = name.dropLast() }
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        return name.isEmpty ? "snapshot" : String(name)
    }
}
