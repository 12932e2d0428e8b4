import CFFmpeg
import Glibc

/// The picture an audio file carries (an ID3 APIC frame, an MP4 covr atom, a FLAC or Matroska
/// picture): FFmpeg gives it as a video stream of one packet, marked attached picture, which the
/// player does not play as video. The window shows it instead, as mpv does.
///
/// Read from a regular local file only: the picture comes from a second opening, which a pipe
/// would lose bytes to and a network input would fetch again.
public enum CoverArt {
    /// The file's first attached picture as the image file it was stored as (a JPEG or a PNG),
    /// with that file's extension; nil when it has none, or one of another format.
    public static func imageFile(of url: String) throws(MediaError) -> (bytes: [UInt8], fileExtension: String)? {
        guard let container = try openedIfRegularFile(url) else { return nil }
        defer { container.close() }
        guard let stream = attachedPicture(in: container) else { return nil }
        let fileExtension: String
        switch stream.pointee.codecpar.pointee.codec_id {
        case AV_CODEC_ID_MJPEG: fileExtension = "jpg"
        case AV_CODEC_ID_PNG: fileExtension = "png"
        default: return nil
        }
        let packet = stream.pointee.attached_pic
        guard let data = packet.data, packet.size > 0 else { return nil }
        return (Array(UnsafeBufferPointer(start: data, count: Int(packet.size))), fileExtension)
    }

    /// The file's first attached picture in BGRA (the window's texture format) at its display
    /// size; nil when it has none.
    public static func picture(of url: String) throws(MediaError) -> Frame? {
        guard let container = try openedIfRegularFile(url) else { return nil }
        defer { container.close() }
        guard let stream = attachedPicture(in: container) else { return nil }
        let decoder: SoftwareDecoder
        do {
            decoder = try SoftwareDecoder(stream: stream)
        } catch {
            throw MediaError(input: url, reason: "cover picture (\(error.reason))")
        }
        let packet = Packet()
        guard av_packet_ref(packet.avPacket, &stream.pointee.attached_pic) >= 0 else { return nil }
        let decoded = Frame()
        _ = decoder.send(packet.avPacket)
        _ = decoder.send(nil)
        guard decoder.receive(into: decoded.avFrame) == .ok else {
            throw MediaError(input: url, reason: "cover picture: cannot be decoded")
        }
        let format = VideoFormat(stream: stream)
        let size = VideoFormat(width: decoded.width, height: decoded.height, sampleAspectRatio: format.sampleAspectRatio).displaySize
        do {
            let scaler = try ScaleContext(like: decoded.avFrame, width: Int32(size.width), height: Int32(size.height),
                                          format: AV_PIX_FMT_BGRA, flags: UprightPicture.scaleFlags)
            let picture = Frame()
            try scaler.scale(decoded.avFrame, into: picture)
            return picture
        } catch {
            throw MediaError(input: url, reason: "cover picture: \(error)")
        }
    }

    /// `url` opened, when it is a regular local file; nil otherwise.
    private static func openedIfRegularFile(_ url: String) throws(MediaError) -> InputContainer? {
        var status = stat()
        guard stat(url, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        let container = InputContainer(url: url, opensRenditions: false)
        try container.open(fullAnalysis: false)
        return container
    }

    private static func attachedPicture(in container: InputContainer) -> UnsafeMutablePointer<AVStream>? {
        container.streams.first { $0.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 }
    }
}
