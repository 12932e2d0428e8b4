import CFFmpeg

/// The fonts a file carries for its subtitles (Matroska attachments), which ASS scripts name.
enum FontAttachments {
    /// Each attachment stream that is a font: by its MIME type, else by its file name's extension.
    static func fonts(in streams: [UnsafeMutablePointer<AVStream>]) -> [EmbeddedFont] {
        streams.compactMap { stream in
            let parameters = stream.pointee.codecpar.pointee
            guard parameters.codec_type == AVMEDIA_TYPE_ATTACHMENT, let data = parameters.extradata, parameters.extradata_size > 0,
                  let name = MediaProbe.metadata(stream.pointee.metadata, "filename") else { return nil }
            let mimeType = MediaProbe.metadata(stream.pointee.metadata, "mimetype")?.lowercased() ?? ""
            guard isFont(mimeType: mimeType, fileName: name) else { return nil }
            return EmbeddedFont(name: name, data: Array(UnsafeBufferPointer(start: data, count: Int(parameters.extradata_size))))
        }
    }

    /// What mkvmerge and ffmpeg write for fonts ("font/ttf", "application/x-truetype-font",
    /// "application/vnd.ms-opentype"…), or a font file's extension when the type says nothing.
    static func isFont(mimeType: String, fileName: String) -> Bool {
        if mimeType.hasPrefix("font/") || mimeType.contains("truetype") || mimeType.contains("opentype")
            || mimeType.contains("font-") || mimeType.hasSuffix("-font") { return true }
        let lower = fileName.lowercased()
        return [".ttf", ".otf", ".ttc", ".woff", ".woff2"].contains { lower.hasSuffix($0) }
    }
}
