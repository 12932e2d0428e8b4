import FoundationEssentials
import HPlayerKit

/// `hplayer probe` without --json: one line for the file, one per stream.
enum ProbeText {
    static func describe(_ info: MediaInfo) -> String {
        var lines = ["Input: \(info.url)"]
        var summary = "  container: \(info.container)"
        if !info.containerLongName.isEmpty { summary += " (\(info.containerLongName))" }
        summary += ", duration: " + (info.duration.map { cFormat("%.3f s", $0) } ?? "unknown")
        summary += ", start: " + cFormat("%.3f s", info.startTime)
        summary += ", bit rate: " + (info.bitRate.map { "\($0 / 1000) kb/s" } ?? "unknown")
        lines.append(summary)
        for stream in info.streams {
            var parts = ["  stream \(stream.index): \(stream.type) \(stream.codec)"]
            if let profile = stream.profile { parts.append("(\(profile))") }
            if let width = stream.width, let height = stream.height { parts.append("\(width)x\(height)") }
            if let aspect = stream.sampleAspectRatio { parts.append("SAR \(aspect)") }
            if let rotation = stream.rotation, rotation != 0 { parts.append("rotation \(rotation)°") }
            if let rate = stream.frameRate { parts.append(cFormat("%.3g fps", rate)) }
            if let format = stream.pixelFormat { parts.append(format) }
            if let rate = stream.sampleRate { parts.append("\(rate) Hz") }
            if let channels = stream.channels {
                parts.append("\(channels) channels" + (stream.channelLayout.map { " (\($0))" } ?? ""))
            }
            if let format = stream.sampleFormat { parts.append(format) }
            if let bitRate = stream.bitRate { parts.append("\(bitRate / 1000) kb/s") }
            if let language = stream.language { parts.append("[\(language)]") }
            if stream.isAttachedPicture { parts.append("(attached picture)") }
            lines.append(parts.joined(separator: " "))
        }
        for (index, variant) in (info.variants ?? []).enumerated() {
            var line = "  variant \(index + 1): \(variant.summary)"
            if !variant.codecs.isEmpty { line += " (\(variant.codecs.joined(separator: ", ")))" }
            if variant.isPlaying { line += " [playing]" }
            lines.append(line)
        }
        for (index, period) in (info.periods ?? []).enumerated() { lines += describe(period, index: index) }
        if let stream = info.annexB { lines += describe(stream) }
        return lines.joined(separator: "\n")
    }

    /// A DASH Period: a line for it, one per AdaptationSet, one per Representation.
    static func describe(_ period: ManifestPeriod, index: Int) -> [String] {
        var line = "  period \(index + 1)" + (period.id.map { " (\($0))" } ?? "") + cFormat(": from %.3f s", period.start)
        line += period.duration.map { cFormat(", %.3f s", $0) } ?? ", duration unknown"
        var lines = [line]
        for set in period.adaptationSets {
            var parts = ["    \(set.contentType)"]
            if let language = set.language { parts.append("[\(language)]") }
            if !set.roles.isEmpty { parts.append("roles \(set.roles.joined(separator: ", "))") }
            if !set.protections.isEmpty { parts.append("protected: \(set.protections.joined(separator: ", "))") }
            lines.append(parts.joined(separator: " "))
            for representation in set.representations {
                var parts = ["      representation \(representation.id): \(representation.bandwidth / 1000) kb/s"]
                if let width = representation.width, let height = representation.height { parts.append("\(width)x\(height)") }
                if let rate = representation.frameRate { parts.append(cFormat("%.3g fps", rate)) }
                if !representation.codecs.isEmpty { parts.append(representation.codecs.joined(separator: ", ")) }
                if representation.isPlaying { parts.append("[playing]") }
                lines.append(parts.joined(separator: " "))
            }
        }
        return lines
    }

    /// A raw H.264 or HEVC stream as our NAL parser reads it.
    static func describe(_ stream: AnnexBSummary) -> [String] {
        var lines = ["  NAL units: " + stream.units.map { "\($0.name) (\($0.type)) ×\($0.count)" }.joined(separator: ", ")]
        let vui = { (rate: Double?) in rate.map { cFormat(", VUI frame rate %.3f", $0) } ?? ", no VUI frame rate" }
        for sps in stream.parameterSets {
            lines.append(cFormat("  SPS %d: profile_idc %d, constraints 0x%02X, level_idc %d, %dx%d, chroma_format_idc %d, %d-bit",
                                 sps.id, sps.profileIDC, sps.constraintFlags, sps.levelIDC, sps.width, sps.height, sps.chromaFormatIDC,
                                 sps.bitDepthLuma) + vui(sps.frameRate))
        }
        for sps in stream.hevcParameterSets {
            lines.append("  SPS \(sps.id): general_profile_idc \(sps.profileIDC), \(sps.tier == 1 ? "High" : "Main") tier, "
                         + "general_level_idc \(sps.levelIDC), \(sps.width)x\(sps.height), chroma_format_idc \(sps.chromaFormatIDC), "
                         + "\(sps.bitDepthLuma)-bit" + vui(sps.frameRate))
        }
        let positions = stream.idrs.map { "\($0.picture)@\($0.offset)" }
        lines.append("  \(stream.pictures) pictures, IDR at (picture@byte): " + (positions.isEmpty ? "none" : positions.joined(separator: " ")))
        return lines
    }
}
