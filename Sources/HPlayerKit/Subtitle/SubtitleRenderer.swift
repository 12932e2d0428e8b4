import CASS
import CASSShim
import Logging

/// Draws subtitles as their authors styled them, with libass: ASS and SSA scripts with their
/// styles, positions, karaoke, animation and drawings, and every text format in the default
/// style of `ASSScript.textHeader`. Bitmap formats' pictures are stretched over the video.
///
/// One renderer belongs to one thread (the window's, or a snapshot's): libass is not shared.
/// It holds only the events showing, loaded again when that set changes, so its work follows
/// what is on screen, not the length of the track.
public final class SubtitleRenderer {
    private let library: OpaquePointer
    private let renderer: OpaquePointer
    private var track: UnsafeMutablePointer<ASS_Track>?
    /// The script the track was made with (and for the text formats the font and size its
    /// header names), and the cues loaded in it.
    private var script: SubtitleScript?
    private var textFont: TextFont?
    /// The scale and position libass is set to.
    private var scale = 1.0
    private var position = 100.0
    private var loaded: [SubtitleCue] = []
    /// The bitmap cues' pictures drawn last.
    private var drawnBitmaps: [SubtitleBitmaps] = []
    private var frameSize = PictureSize(width: 0, height: 0)
    private var storageSize = PictureSize(width: 0, height: 0)
    /// The font names added from the media (Matroska attachments), so none is added twice.
    private var addedFonts: Set<String> = []

    /// nil, with one warning, when libass cannot start.
    public init?() {
        guard let library = hp_ass_library_init({ level, line in
            guard let line else { return }
            let text = String(cString: line)
            if level <= 1 { Log.subtitle.warning("libass: \(text)") } else { Log.subtitle.info("libass: \(text)") }
        }, 2) else {
            Log.subtitle.warning("no styled subtitles: libass did not start")
            return nil
        }
        guard let renderer = ass_renderer_init(library) else {
            ass_library_done(library)
            Log.subtitle.warning("no styled subtitles: libass's renderer did not start")
            return nil
        }
        self.library = library
        self.renderer = renderer
        // As mpv sets libass up: no hinting, complex shaping, fontconfig for the fonts.
        ass_set_hinting(renderer, ASS_HINTING_NONE)
        ass_set_shaper(renderer, ASS_SHAPING_COMPLEX)
        ass_set_line_spacing(renderer, 0)
        ass_set_fonts(renderer, nil, "sans-serif", Int32(ASS_FONTPROVIDER_AUTODETECT.rawValue), nil, 1)
    }

    deinit {
        if let track { ass_free_track(track) }
        ass_renderer_done(renderer)
        ass_library_done(library)
    }

    /// Fonts the media carries (Matroska attachments): used before fontconfig's for the names
    /// they have.
    private func addFonts(_ fonts: [EmbeddedFont]) {
        let new = fonts.filter { !addedFonts.contains($0.name) }
        guard !new.isEmpty else { return }
        for font in new {
            addedFonts.insert(font.name)
            font.data.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { ass_add_font(library, font.name, $0.baseAddress, Int32($0.count)) }
            }
        }
        // libass reads the library's fonts when the fonts are set.
        ass_set_fonts(renderer, nil, "sans-serif", Int32(ASS_FONTPROVIDER_AUTODETECT.rawValue), nil, 1)
    }

    /// Draws what shows at media time `pts` into `overlay` (a picture of its size, whose video
    /// is `storage` pixels as coded); true when its pixels changed, in `overlay.changedRegion`.
    public func draw(_ shown: ShownSubtitle?, atMediaPts pts: Double, into overlay: SubtitleOverlay, storage: PictureSize) -> Bool {
        let (images, changed) = render(shown, atMediaPts: pts, frame: overlay.size, storage: storage)
        // Compared in place: nothing is made at a frame that changes nothing.
        let sameBitmaps = (shown?.cues ?? []).lazy.compactMap(\.bitmaps).elementsEqual(drawnBitmaps)
        guard changed || !sameBitmaps else { return false }
        if !sameBitmaps { drawnBitmaps = Self.bitmaps(of: shown) }
        overlay.replace(with: images, bitmaps: drawnBitmaps, storage: storage)
        return true
    }

    /// Draws `events` of a script of `header`, each from 0 to 10 s, at `pts` into `overlay`:
    /// any script, as the fuzz target gives them.
    package func draw(header: String, events: [String], atMediaPts pts: Double, into overlay: SubtitleOverlay) -> Bool {
        let cues = events.map { SubtitleCue(start: 0, end: 10, text: "", event: $0) }
        return draw(ShownSubtitle(cues: cues, script: SubtitleScript(header: header)), atMediaPts: pts, into: overlay, storage: overlay.size)
    }

    /// Draws what shows at media time `pts` onto `picture`, packed RGB or RGBA of
    /// `bytesPerPixel` bytes, whose video is `storage` pixels as coded.
    func blend(_ shown: ShownSubtitle, atMediaPts pts: Double, onto picture: Frame, bytesPerPixel: Int, storage: PictureSize) {
        let size = PictureSize(width: picture.width, height: picture.height)
        guard let plane = picture.plane(0) else { return }
        let (images, _) = render(shown, atMediaPts: pts, frame: size, storage: storage)
        SubtitleBlending.blend(images, onto: plane, lineSize: picture.lineSize(0), size: size, bytesPerPixel: bytesPerPixel)
        for bitmaps in Self.bitmaps(of: shown) {
            SubtitleBlending.blend(bitmaps, canvas: bitmaps.canvas ?? storage, onto: plane, lineSize: picture.lineSize(0), size: size,
                                   bytesPerPixel: bytesPerPixel)
        }
    }

    private static func bitmaps(of shown: ShownSubtitle?) -> [SubtitleBitmaps] {
        shown?.cues.compactMap(\.bitmaps) ?? []
    }

    /// libass's images for `shown` at `pts`, and whether they differ from the last call's.
    private func render(_ shown: ShownSubtitle?, atMediaPts pts: Double, frame: PictureSize,
                        storage: PictureSize) -> (UnsafeMutablePointer<ASS_Image>?, Bool) {
        var settingsChanged = false
        if frame != frameSize || storage != storageSize {
            (frameSize, storageSize) = (frame, storage)
            ass_set_frame_size(renderer, Int32(frame.width), Int32(frame.height))
            ass_set_storage_size(renderer, Int32(max(1, storage.width)), Int32(max(1, storage.height)))
            // The frame is the picture at its display size: its pixels are square.
            ass_set_pixel_aspect(renderer, 1)
            settingsChanged = true
        }
        if let style = shown?.style, style.scale != scale || style.position != position {
            (scale, position) = (style.scale, style.position)
            ass_set_font_scale(renderer, scale)
            // libass counts from the bottom (0) to the top (100); mpv's --sub-pos from the top.
            ass_set_line_position(renderer, 100 - position)
            settingsChanged = true
        }
        // libass compares with the last frame it drew, which is not the last asked for when no
        // event was loaded then: a change of events is a change.
        let reloaded = load(shown)
        guard let track, frame.width > 0, frame.height > 0 else { return (nil, settingsChanged || reloaded) }
        var change: Int32 = 0
        let milliseconds = Int64((pts * 1000).rounded())
        let images = ass_render_frame(renderer, track, milliseconds, &change)
        return (images, change != 0 || settingsChanged || reloaded)
    }

    /// Makes the track hold exactly the text cues of `shown`, in a track of its header; true
    /// when that changed what it holds.
    private func load(_ shown: ShownSubtitle?) -> Bool {
        // A track is text or bitmaps: its cues as they are when none is a picture.
        let cues = shown.map { $0.cues.contains { $0.bitmaps != nil } ? $0.cues.filter { $0.bitmaps == nil } : $0.cues } ?? []
        // The text formats' header is HPlayer's, in the user's font.
        let font = shown.flatMap { $0.script === SubtitleScript.plainText ? TextFont(name: $0.style.font, size: $0.style.fontSize) : nil }
        if let shown, shown.script !== script || font != textFont {
            if let track { ass_free_track(track) }
            addFonts(shown.script.fonts)
            track = ass_new_track(library)
            guard let track else { return true }
            // The same cue loaded again is wanted, not a duplicate to skip.
            ass_set_check_readorder(track, 0)
            textFont = font
            var bytes = Array((font.map { ASSScript.textHeader(font: $0.name, fontSize: $0.size) } ?? shown.script.header).utf8CString)
            ass_process_codec_private(track, &bytes, Int32(bytes.count - 1))
            script = shown.script
            loaded = []
        }
        guard cues != loaded, let track else { return false }
        ass_flush_events(track)
        for cue in cues {
            let start = Self.milliseconds(cue.start)
            let duration = cue.end.isFinite ? max(1, Self.milliseconds(cue.end) - start) : Self.untilEnd
            for event in (cue.event ?? ASSScript.event(plainText: cue.text)).split(separator: "\n") {
                var bytes = Array(event.utf8)
                bytes.withUnsafeMutableBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        ass_process_chunk(track, $0.baseAddress, Int32($0.count), start, duration)
                    }
                }
            }
        }
        loaded = cues
        return true
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

