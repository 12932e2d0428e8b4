/// The MPD `--dash` writes beside the HLS playlists, naming the same fMP4 segments (one CMAF
/// package for both): a video AdaptationSet of a Representation per rung and an audio one,
/// each a SegmentList with a SegmentTimeline of the segments really written. A live package's
/// is dynamic, listing the window its playlists list; when it ends it becomes static, still
/// listing that window alone (the segments before it are deleted), from its start.
package enum PackageManifest {
    package struct Options: Sendable {
        /// Every segment is there (a VOD package, or a live one that has ended).
        package var isComplete = true
        /// Live: the segments listed per stream, and when the package began (seconds since 1970).
        package var window: Int?
        package var availabilityStart = 0.0
        /// The segments' nominal length, seconds.
        package var segmentDuration = 4.0
        /// The samples in Common Encryption under this key ID, and the ClearKey license server.
        package var protection: (keyID: [UInt8], licenseURL: String?)?

        package init() {}
    }

    package static func mpd(video: [WrittenVariant], audio: WrittenVariant?, options: Options) -> String {
        let isDynamic = options.window != nil && !options.isComplete
        let listed = (video.first ?? audio).map { $0.segments.suffix(options.window ?? $0.segments.count) } ?? []
        let total = listed.reduce(0) { $0 + $1.duration }
        var lines = [#"<?xml version="1.0" encoding="utf-8"?>"#]
        var root = #"<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" xmlns:dashif="https://dashif.org/CPS""#
        root += #" profiles="urn:mpeg:dash:profile:isoff-live:2011""#
        root += " minBufferTime=\"\(duration(options.segmentDuration))\""
        if isDynamic, let window = options.window {
            root += #" type="dynamic""#
            root += " availabilityStartTime=\"\(ISOTime.dateTimeText(options.availabilityStart))\""
            root += " minimumUpdatePeriod=\"\(duration(options.segmentDuration))\""
            root += " timeShiftBufferDepth=\"\(duration(Double(window) * options.segmentDuration))\""
        } else {
            root += #" type="static""#
            root += " mediaPresentationDuration=\"\(duration(total))\""
        }
        lines.append(root + ">")
        lines.append(#"  <Period id="0" start="PT0S">"#)
        if !video.isEmpty {
            lines.append(#"    <AdaptationSet id="0" contentType="video" mimeType="video/mp4" segmentAlignment="true" startWithSAP="1">"#)
            lines += contentProtection(options.protection)
            for rung in video {
                var attributes = "id=\"\(rung.name)\" bandwidth=\"\(Int(PackagePlaylists.peak(rung).rounded(.up)))\""
                attributes += " width=\"\(rung.width)\" height=\"\(rung.height)\" frameRate=\"\(DecimalText.fixed(rung.frameRate, places: 3))\""
                if !rung.codecs.isEmpty { attributes += " codecs=\"\(rung.codecs.joined(separator: ","))\"" }
                lines += representation(rung, attributes: attributes, window: options.window, fromWindowStart: !isDynamic)
            }
            lines.append("    </AdaptationSet>")
        }
        if let audio {
            lines.append(#"    <AdaptationSet id="1" contentType="audio" mimeType="audio/mp4" segmentAlignment="true" startWithSAP="1">"#)
            lines += contentProtection(options.protection)
            lines.append(#"      <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>"#)
            var attributes = "id=\"\(audio.name)\" bandwidth=\"\(Int(PackagePlaylists.peak(audio).rounded(.up)))\""
            if !audio.codecs.isEmpty { attributes += " codecs=\"\(audio.codecs.joined(separator: ","))\"" }
            lines += representation(audio, attributes: attributes, window: options.window, fromWindowStart: !isDynamic)
            lines.append("    </AdaptationSet>")
        }
        lines.append("  </Period>")
        lines.append("</MPD>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A Representation's SegmentList: its segments (the last `window` of them, live), their
    /// times in milliseconds from the package's start. `fromWindowStart`: the presentation
    /// starts with the first listed (presentationTimeOffset), as an ended live package's does.
    private static func representation(_ stream: WrittenVariant, attributes: String, window: Int?, fromWindowStart: Bool) -> [String] {
        let first = window.map { max(0, stream.segments.count - $0) } ?? 0
        var start = stream.segments[..<first].reduce(0.0) { $0 + $1.duration }
        let offset = fromWindowStart && first > 0 ? " presentationTimeOffset=\"\(Int64(saturating: start * 1000))\"" : ""
        var lines = ["      <Representation \(attributes)>",
                     "        <SegmentList timescale=\"1000\" startNumber=\"\(first)\"\(offset)>"]
        if let initSection = stream.initSection { lines.append("          <Initialization sourceURL=\"\(initSection)\"/>") }
        lines.append("          <SegmentTimeline>")
        for segment in stream.segments[first...] {
            let time = Int64(saturating: start * 1000)
            let end = Int64(saturating: (start + segment.duration) * 1000)
            lines.append("            <S t=\"\(time)\" d=\"\(max(1, end - time))\"/>")
            start += segment.duration
        }
        lines.append("          </SegmentTimeline>")
        for segment in stream.segments[first...] { lines.append("          <SegmentURL media=\"\(segment.name)\"/>") }
        lines += ["        </SegmentList>", "      </Representation>"]
        return lines
    }

    /// ClearKey's DRM system ID (DASH-IF), as a URN.
    package static let clearKeySystem = "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"

    /// An AdaptationSet's ContentProtection: Common Encryption with its key ID, and ClearKey
    /// with its license server when there is one.
    private static func contentProtection(_ protection: (keyID: [UInt8], licenseURL: String?)?) -> [String] {
        guard let protection else { return [] }
        var lines = ["      <ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cenc\" cenc:default_KID=\"\(ClearKey.uuid(protection.keyID))\"/>"]
        let clearKey = "      <ContentProtection schemeIdUri=\"\(clearKeySystem)\" value=\"ClearKey1.0\""
        if let url = protection.licenseURL {
            lines += [clearKey + ">", "        <dashif:Laurl>\(escaped(url))</dashif:Laurl>", "      </ContentProtection>"]
        } else {
            lines.append(clearKey + "/>")
        }
        return lines
    }

    /// Text as XML character data.
    private static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }

    /// "PT6.000S".
    private static func duration(_ seconds: Double) -> String { "PT\(DecimalText.fixed(seconds, places: 3))S" }
}
