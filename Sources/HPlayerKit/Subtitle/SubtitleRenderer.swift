import CASS
import CASSShim
import Logging

/// Draws subtitles as their authors styled them, with libass: ASS and SSA scripts with their
/// styles, positions, karaoke, animation and drawings, and every text format in the default
/// style of `ASSScript.textHeader`; the secondary subtitles as plain text at the top, as mpv
/// draws them. Bitmap formats' pictures are stretched over the video.
///
/// One renderer belongs to one thread (the window's, or a snapshot's): libass is not shared.
public final class SubtitleRenderer {
    private let library: ASSLibrary
    private let primary: ASSLayer
    /// Made at the first secondary cue.
    private var secondary: ASSLayer?
    /// What the primary layer drew last with: kept while nothing shows, so that an empty frame
    /// does not make its track again.
    private var script = SubtitleScript.plainText
    private var style = SubtitleStyle()
    /// The bitmap cues' pictures drawn last.
    private var drawnBitmaps: [SubtitleBitmaps] = []
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
        let owned = ASSLibrary(library)
        guard let primary = ASSLayer(library: owned) else {
            Log.subtitle.warning("no styled subtitles: libass's renderer did not start")
            return nil
        }
        self.library = owned
        self.primary = primary
    }

    /// Fonts the media carries (Matroska attachments): used before fontconfig's for the names
    /// they have.
    private func addFonts(_ fonts: [EmbeddedFont]) {
        let new = fonts.filter { !addedFonts.contains($0.name) }
        guard !new.isEmpty else { return }
        for font in new {
            addedFonts.insert(font.name)
            font.data.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { ass_add_font(library.pointer, font.name, $0.baseAddress, Int32($0.count)) }
            }
        }
        // libass reads the library's fonts when the fonts are set.
        primary.setFonts()
        secondary?.setFonts()
    }

    /// Draws what shows at media time `pts` into `overlay` (a picture of its size, whose video
    /// is `storage` pixels as coded); true when its pixels changed, in `overlay.changedRegion`.
    public func draw(_ shown: ShownSubtitle?, atMediaPts pts: Double, into overlay: SubtitleOverlay, storage: PictureSize) -> Bool {
        let (images, changed) = render(shown, atMediaPts: pts, frame: overlay.size, storage: storage)
        // Compared in place: nothing is made at a frame that changes nothing.
        let sameBitmaps = Self.bitmapsMatch(shown, drawnBitmaps)
        guard changed || !sameBitmaps else { return false }
        if !sameBitmaps { drawnBitmaps = Self.bitmaps(of: shown) }
        overlay.replace(with: images.primary, images.secondary, bitmaps: drawnBitmaps, storage: storage)
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
        SubtitleBlending.blend(images.primary, onto: plane, lineSize: picture.lineSize(0), size: size, bytesPerPixel: bytesPerPixel)
        SubtitleBlending.blend(images.secondary, onto: plane, lineSize: picture.lineSize(0), size: size, bytesPerPixel: bytesPerPixel)
        for bitmaps in Self.bitmaps(of: shown) {
            SubtitleBlending.blend(bitmaps, canvas: bitmaps.canvas ?? storage, onto: plane, lineSize: picture.lineSize(0), size: size,
                                   bytesPerPixel: bytesPerPixel)
        }
    }

    /// The bitmap cues' pictures, the primary's first.
    private static func bitmaps(of shown: ShownSubtitle?) -> [SubtitleBitmaps] {
        guard let shown else { return [] }
        return shown.cues.compactMap(\.bitmaps) + shown.secondary.compactMap(\.bitmaps)
    }

    /// Whether `drawn` holds exactly the bitmap cues' pictures of `shown`, without making a list.
    private static func bitmapsMatch(_ shown: ShownSubtitle?, _ drawn: [SubtitleBitmaps]) -> Bool {
        var index = 0
        func match(_ cues: [SubtitleCue]) -> Bool {
            for bitmaps in cues.lazy.compactMap(\.bitmaps) {
                guard index < drawn.count, drawn[index] == bitmaps else { return false }
                index += 1
            }
            return true
        }
        guard let shown else { return drawn.isEmpty }
        return match(shown.cues) && match(shown.secondary) && index == drawn.count
    }

    /// libass's images for `shown` at `pts`, the primary layer's and the secondary's, and
    /// whether they differ from the last call's.
    private func render(_ shown: ShownSubtitle?, atMediaPts pts: Double, frame: PictureSize, storage: PictureSize)
        -> (images: (primary: UnsafeMutablePointer<ASS_Image>?, secondary: UnsafeMutablePointer<ASS_Image>?), changed: Bool) {
        if let shown {
            style = shown.style
            // Only the secondary track showing: the primary's track is kept for its next cue.
            if !shown.cues.isEmpty {
                if shown.script !== script { addFonts(shown.script.fonts) }
                script = shown.script
            }
        }
        let form: ASSLayer.Form = style.assOverride == .strip ? .plain : .asAuthored
        let (primaryImages, primaryChanged) = primary.render(Self.textCues(of: shown?.cues), script: script, style: style, form: form,
                                                             atMediaPts: pts, frame: frame, storage: storage)
        let secondaryCues = Self.textCues(of: shown?.secondary)
        if secondary == nil, !secondaryCues.isEmpty {
            secondary = ASSLayer(library: library)
        }
        guard let secondary else { return ((primaryImages, nil), primaryChanged) }
        let (secondaryImages, secondaryChanged) = secondary.render(secondaryCues, script: .plainText, style: style, form: .plainOnTop,
                                                                   atMediaPts: pts, frame: frame, storage: storage)
        return ((primaryImages, secondaryImages), primaryChanged || secondaryChanged)
    }

    /// The cues libass draws: all of them, unless some are pictures (a track is text or bitmaps).
    private static func textCues(of cues: [SubtitleCue]?) -> [SubtitleCue] {
        guard let cues else { return [] }
        return cues.contains { $0.bitmaps != nil } ? cues.filter { $0.bitmaps == nil } : cues
    }
}
