import Glibc

/// What `hplayer encode --from` names: a file or URL, a generated test pattern, a lavfi graph, a
/// camera, a microphone or the X11 screen. Devices come through libavdevice's demuxers.
package struct EncodeSource: Equatable, Sendable {
    /// What libavformat opens: a path, a URL, a device or a filter graph.
    package var url: String
    package var format: InputFormat?

    /// The test pattern's picture and frame rate when `pattern:` names none.
    package static let defaultPattern = (width: 1280, height: 720, rate: 30)

    /// `text` as a source; `display` is $DISPLAY, for `x11:` without one.
    /// - `pattern:` or `pattern:WxH@FPS`: FFmpeg's testsrc2 picture with a 440 Hz tone
    ///   (48 kHz stereo), without end (give `--duration`);
    /// - `lavfi:GRAPH`: any lavfi graph (outputs out0, out1, … as `ffmpeg -f lavfi` takes them);
    /// - `v4l2:/dev/videoN`, `pulse:[SOURCE]`, `alsa:[DEVICE]`, `x11:[DISPLAY]`;
    /// - anything else: a file or URL, as hplayer plays it.
    package static func parse(_ text: String, display: String?) throws(MediaError) -> EncodeSource {
        guard let colon = text.firstIndex(of: ":") else { return EncodeSource(url: text, format: nil) }
        let scheme = String(text[..<colon])
        let rest = String(text[text.index(after: colon)...])
        switch scheme {
        case "pattern":
            let (width, height, rate) = try patternShape(rest, input: text)
            let graph = "testsrc2=size=\(width)x\(height):rate=\(rate)[out0];"
                + "sine=frequency=440:sample_rate=48000,aformat=channel_layouts=stereo[out1]"
            return EncodeSource(url: graph, format: InputFormat(name: "lavfi"))
        case "lavfi":
            guard !rest.isEmpty else { throw MediaError(input: text, reason: "no filter graph after lavfi:") }
            return EncodeSource(url: rest, format: InputFormat(name: "lavfi"))
        case "v4l2":
            let device = rest.isEmpty ? "/dev/video0" : rest
            guard access(device, F_OK) == 0 else {
                throw MediaError(input: text, reason: "no camera: \(device) does not exist")
            }
            // Wall-clock times, as the pulse and alsa inputs give theirs, so a microphone read
            // beside it (--audio-from) is in sync.
            return EncodeSource(url: device, format: InputFormat(name: "video4linux2", options: ["timestamps": "abs"]))
        case "pulse":
            return EncodeSource(url: rest.isEmpty ? "default" : rest, format: InputFormat(name: "pulse"))
        case "alsa":
            return EncodeSource(url: rest.isEmpty ? "default" : rest, format: InputFormat(name: "alsa"))
        case "x11":
            guard let screen = rest.isEmpty ? display : rest, !screen.isEmpty else {
                throw MediaError(input: text, reason: "no X display: DISPLAY is not set")
            }
            return EncodeSource(url: screen, format: InputFormat(name: "x11grab", options: ["framerate": "30"]))
        default:
            return EncodeSource(url: text, format: nil)
        }
    }

    /// `WxH@FPS`, `WxH` or nothing.
    private static func patternShape(_ text: String, input: String) throws(MediaError) -> (Int, Int, Int) {
        let defaults = defaultPattern
        guard !text.isEmpty else { return (defaults.width, defaults.height, defaults.rate) }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count <= 2, size.count == 2, let width = Int(size[0]), let height = Int(size[1]),
              (16...8192).contains(width), (16...8192).contains(height) else {
            throw MediaError(input: input, reason: "expected pattern:WIDTHxHEIGHT[@FPS], sides 16 to 8192")
        }
        var rate = defaults.rate
        if parts.count == 2 {
            guard let given = Int(parts[1]), (1...240).contains(given) else {
                throw MediaError(input: input, reason: "expected a frame rate of 1 to 240 after @")
            }
            rate = given
        }
        return (width, height, rate)
    }
}
