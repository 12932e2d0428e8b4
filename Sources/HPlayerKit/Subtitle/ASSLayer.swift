import CASS

/// One libass renderer and the track it draws: the primary subtitles' layer, or the secondary
/// ones' at the top. Two layers draw at once, each holding its images until its next frame.
///
/// It holds only the events showing, loaded again when that set changes, so its work follows
/// what is on screen, not the length of the track.
final class ASSLayer {
    /// How the layer's cues are made into events.
    enum Form: Equatable {
        /// In their track's script, as their author styled them (text formats in the text header).
        case asAuthored
        /// Their text alone, in the text header (`--sub-ass-override=strip`).
        case plain
        /// Their text alone, in the text header, at the top centre (secondary subtitles, as mpv
        /// draws them).
        case plainOnTop
    }

    private let library: ASSLibrary
    private let renderer: OpaquePointer
    private var track: UnsafeMutablePointer<ASS_Track>?
    /// The script the track was made with, and for a header of the text formats' the font and
    /// size it names.
    private var script: SubtitleScript?
    private var textFont: TextFont?
    private var form = Form.asAuthored
    private var loaded: [SubtitleCue] = []
    private var settings: Settings?
    private var frameSize = PictureSize(width: 0, height: 0)
    private var storageSize = PictureSize(width: 0, height: 0)

    /// nil when libass's renderer does not start.
    init?(library: ASSLibrary) {
        guard let renderer = ass_renderer_init(library.pointer) else { return nil }
        self.library = library
        self.renderer = renderer
        // As mpv sets libass up: no hinting, complex shaping, fontconfig for the fonts.
        ass_set_hinting(renderer, ASS_HINTING_NONE)
        ass_set_shaper(renderer, ASS_SHAPING_COMPLEX)
        ass_set_line_spacing(renderer, 0)
        setFonts()
    }

    deinit {
        if let track { ass_free_track(track) }
        ass_renderer_done(renderer)
    }

    /// Reads the library's fonts again (after fonts were added to it).
    func setFonts() {
        ass_set_fonts(renderer, nil, "sans-serif", Int32(ASS_FONTPROVIDER_AUTODETECT.rawValue), nil, 1)
    }

    /// libass's images for `cues` of `script` at `pts` in `form`, and whether they differ from
    /// the last call's. They stay valid until the next call.
    func render(_ cues: [SubtitleCue], script: SubtitleScript, style: SubtitleStyle, form: Form, atMediaPts pts: Double,
                frame: PictureSize, storage: PictureSize) -> (UnsafeMutablePointer<ASS_Image>?, Bool) {
        var changed = false
        if frame != frameSize || storage != storageSize {
            (frameSize, storageSize) = (frame, storage)
            ass_set_frame_size(renderer, Int32(frame.width), Int32(frame.height))
            ass_set_storage_size(renderer, Int32(max(1, storage.width)), Int32(max(1, storage.height)))
            // The frame is the picture at its display size: its pixels are square.
            ass_set_pixel_aspect(renderer, 1)
            changed = true
        }
        let isAuthoredASS = form == .asAuthored && script !== SubtitleScript.plainText
        let wanted = Settings(style: style, isAuthoredASS: isAuthoredASS)
        if wanted != settings {
            settings = wanted
            apply(wanted)
            changed = true
        }
        // libass compares with the last frame it drew, which is not the last asked for when no
        // event was loaded then: a change of events is a change.
        if load(cues, script: script, style: style, form: form) { changed = true }
        guard let track, frame.width > 0, frame.height > 0 else { return (nil, changed) }
        var change: Int32 = 0
        let images = ass_render_frame(renderer, track, Int64((pts * 1000).rounded()), &change)
        return (images, change != 0 || changed)
    }

    /// What libass is set to beyond the track: the user's style as `--sub-ass-override` lets it
    /// through to a script (the text formats take all of it).
    private struct Settings: Equatable {
        var fontScale: Double
        /// libass counts from the bottom (0) to the top (100); mpv's --sub-pos from the top.
        var linePosition: Double
        var overrides: Int32
        /// The text formats' font and size, forced onto a script's dialogue (`force`).
        var forcedFont: TextFont?

        init(style: SubtitleStyle, isAuthoredASS: Bool) {
            let mode = isAuthoredASS ? style.assOverride : .yes
            fontScale = mode == .no ? 1 : style.scale
            linePosition = mode == .no ? 0 : 100 - style.position
            switch mode {
            case .scale: overrides = Int32(ASS_OVERRIDE_BIT_SELECTIVE_FONT_SCALE.rawValue)
            // The font, its size, colours and border, as mpv asks: not the bold and italic a
            // script's style has (libass's BIT_STYLE would take those too).
            case .force:
                overrides = Int32(ASS_OVERRIDE_BIT_FONT_NAME.rawValue | ASS_OVERRIDE_BIT_FONT_SIZE_FIELDS.rawValue
                                  | ASS_OVERRIDE_BIT_COLORS.rawValue | ASS_OVERRIDE_BIT_BORDER.rawValue
                                  | ASS_OVERRIDE_BIT_SELECTIVE_FONT_SCALE.rawValue)
            case .no, .yes, .strip: overrides = Int32(ASS_OVERRIDE_DEFAULT.rawValue)
            }
            forcedFont = mode == .force ? TextFont(name: style.font, size: style.fontSize) : nil
        }
    }

    private func apply(_ settings: Settings) {
        ass_set_font_scale(renderer, settings.fontScale)
        ass_set_line_position(renderer, settings.linePosition)
        ass_set_selective_style_override_enabled(renderer, settings.overrides)
        guard let font = settings.forcedFont else { return }
        // mpv's style for text subtitles, in the units of a script 288 lines high (libass scales
        // it to the script's PlayResY): ASSScript.textHeader's, field for field.
        var style = ASS_Style()
        style.FontSize = font.size * 288 / 720
        style.PrimaryColour = 0xFFFF_FF00
        style.SecondaryColour = 0xFFFF_FF00
        style.OutlineColour = 0x0000_0000
        style.BackColour = 0x0000_00FF
        style.ScaleX = 1
        style.ScaleY = 1
        style.BorderStyle = 1
        style.Outline = 3.0 * 288 / 720
        style.Alignment = VALIGN_SUB | HALIGN_CENTER
        style.MarginL = 10
        style.MarginR = 10
        style.MarginV = 8
        style.Encoding = 1
        // libass copies the font's name, and keeps the style's name pointer as it is: a
        // literal's bytes, there for the whole process.
        let name: StaticString = "Default\0"
        style.Name = UnsafeMutableRawPointer(mutating: name.utf8Start).assumingMemoryBound(to: CChar.self)
        font.name.withCString { fontName in
            style.FontName = UnsafeMutablePointer(mutating: fontName)
            ass_set_selective_style_override(renderer, &style)
        }
    }

    /// Makes the track hold exactly `cues` as `form` makes them, in a track of their header;
    /// true when that changed what it holds.
    private func load(_ cues: [SubtitleCue], script: SubtitleScript, style: SubtitleStyle, form: Form) -> Bool {
        // The text formats' header is HPlayer's, in the user's font.
        let font = form != .asAuthored || script === SubtitleScript.plainText ? TextFont(name: style.font, size: style.fontSize) : nil
        if track == nil || script !== self.script || font != textFont || form != self.form {
            if let track { ass_free_track(track) }
            track = ass_new_track(library.pointer)
            guard let track else { return true }
            // The same cue loaded again is wanted, not a duplicate to skip.
            ass_set_check_readorder(track, 0)
            var bytes = Array((font.map { ASSScript.textHeader(font: $0.name, fontSize: $0.size) } ?? script.header).utf8CString)
            ass_process_codec_private(track, &bytes, Int32(bytes.count - 1))
            (self.script, textFont, self.form) = (script, font, form)
            loaded = []
        }
        guard cues != loaded, let track else { return false }
        ass_flush_events(track)
        loaded = cues
        guard form == .asAuthored else {
            // The text of every cue showing, one under the other, as one event: mpv's plain text.
            let text = cues.lazy.map(\.text).filter { !$0.isEmpty }.joined(separator: "\n")
            guard !text.isEmpty, let first = cues.map(\.start).min(), let last = cues.map(\.end).max() else { return true }
            let start = Self.milliseconds(first)
            let duration = last.isFinite ? max(1, Self.milliseconds(last) - start) : Self.untilEnd
            Self.add(ASSScript.event(plainText: text, onTop: form == .plainOnTop), to: track, start: start, duration: duration)
            return true
        }
        for cue in cues {
            let start = Self.milliseconds(cue.start)
            let duration = cue.end.isFinite ? max(1, Self.milliseconds(cue.end) - start) : Self.untilEnd
            for event in (cue.event ?? ASSScript.event(plainText: cue.text)).split(separator: "\n") {
                Self.add(event, to: track, start: start, duration: duration)
            }
        }
        return true
    }

    private static func add<Event: StringProtocol>(_ event: Event, to track: UnsafeMutablePointer<ASS_Track>, start: Int64, duration: Int64) {
        var bytes = Array(event.utf8)
        bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                ass_process_chunk(track, $0.baseAddress, Int32($0.count), start, duration)
            }
        }
    }

    /// The font and size of the text formats' header.
    private struct TextFont: Equatable {
        var name: String
        var size: Double
    }

    /// The duration given a cue whose end is not known yet: on until the next is loaded.
    private static let untilEnd: Int64 = 1 << 40

    private static func milliseconds(_ seconds: Double) -> Int64 {
        Int64((min(max(seconds, -1e9), 1e9) * 1000).rounded())
    }
}

/// A libass library, done when the last renderer and layer that use it are gone.
final class ASSLibrary {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { ass_library_done(pointer) }
}
