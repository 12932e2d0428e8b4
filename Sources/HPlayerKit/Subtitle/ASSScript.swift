/// The parts of an ASS script that HPlayer writes itself: the header that text formats are drawn
/// with, and events for cues that came as plain text.
enum ASSScript {
    /// The header of every track that did not come as ASS (SubRip, WebVTT, mov_text, TTML…):
    /// mpv's look for such subtitles, white on a black outline, bottom centre. mpv sets its
    /// --sub-font-size 55, --sub-border-size 3, --sub-margin-x 25 and --sub-margin-y 22 (for 720
    /// lines) on libavcodec's 384x288 canvas, scaled by 288/720, the margins to whole units.
    static let textHeader = textHeader(font: "sans-serif", fontSize: 55)

    /// The same header in `font` of `fontSize` (mpv's units: pixels at 720 lines).
    static func textHeader(font: String, fontSize: Double) -> String {
        // A comma would end the style's field.
        let name = String(font.map { $0 == "," ? " " : $0 })
        let size = fontSize * 288 / 720
        let sizeText = size == size.rounded() ? String(Int(size)) : String(size)
        return """
            [Script Info]
            ScriptType: v4.00+
            PlayResX: 384
            PlayResY: 288
            ScaledBorderAndShadow: yes
            WrapStyle: 0

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, \
            Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, \
            MarginV, Encoding
            Style: Default,\(name),\(sizeText),&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,1.2,0,2,10,10,8,1

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

            """
    }

    /// The event of a cue that came as plain text: its lines in the default style, with what
    /// ASS would read as markup (`{`, a backslash) kept as text; `onTop`: at the top centre.
    static func event(plainText text: String, onTop: Bool = false) -> String {
        var escaped = onTop ? "{\\an8}" : ""
        for character in text {
            switch character {
            case "\n": escaped += "\\N"
            // As libavcodec escapes the text formats it converts.
            case "\\", "{", "}": escaped += "\\" + String(character)
            default: escaped.append(character)
            }
        }
        return "0,0,Default,,0,0,0,," + escaped
    }

    /// `event` with its ReadOrder field made 0: libavcodec numbers the events it converts in the
    /// order it decodes them, so the same cue read again after a seek would not be the same.
    static func withoutReadOrder(_ event: String) -> String {
        guard let comma = event.firstIndex(of: ",") else { return event }
        return "0" + event[comma...]
    }
}
