import CSDL2
import HPlayerKit

/// The subtitles over the window's picture: drawn by libass on a thread of its own
/// (`SubtitleDrawer`) at the picture's size on screen, uploaded into a texture, and copied over
/// the picture where something is drawn, strip by strip (`StripSpans`). Lives on the window thread.
final class SubtitleLayer {
    private var drawer: SubtitleDrawer?
    private var texture: OpaquePointer?
    private var textureSize: PictureSize?
    /// Where the texture holds something drawn, and which drawing it is.
    private var textureDrawn = StripSpans(rows: 0)
    private var textureVersion = 0
    /// The last request drawn into the texture.
    private var lastRequest: SubtitleDrawer.Request?

    /// Brings the texture to what shows at `pts` (`shown`) over a picture of `size` on screen,
    /// its video coded at `storage`, and has the next picture's (`next` at `nextPts`) drawn
    /// ahead. True when the texture changed.
    func update(_ shown: ShownSubtitle?, at pts: Double, next: ShownSubtitle?, at nextPts: Double?, size: PictureSize,
                storage: PictureSize, renderer: OpaquePointer) -> Bool {
        guard size.width > 0, size.height > 0 else { return false }
        // Nothing shown is the same drawing at any time.
        let request = SubtitleDrawer.Request(shown: shown, pts: shown == nil ? 0 : pts, size: size, storage: storage)
        if shown != nil, drawer == nil { drawer = SubtitleDrawer() }
        guard let drawer else { return false }
        var changed = false
        if request != lastRequest, let (overlay, version) = drawer.draw(request) {
            lastRequest = request
            if version != textureVersion {
                upload(overlay, renderer: renderer)
                textureVersion = version
                changed = true
            }
        }
        if let nextPts, shown != nil || next != nil {
            drawer.prepare(SubtitleDrawer.Request(shown: next, pts: next == nil ? 0 : nextPts, size: size, storage: storage))
        }
        return changed
    }

    /// Copies what is drawn over the picture at `rect` on screen.
    func draw(on renderer: OpaquePointer, over rect: LayoutRect) {
        // Only the strips' parts where something is drawn: blending the rest would cost as much.
        guard let texture, textureSize == PictureSize(width: rect.width, height: rect.height) else { return }
        for index in 0..<textureDrawn.count {
            guard let drawn = textureDrawn.rect(index) else { continue }
            var source = SDL_Rect(x: Int32(drawn.x), y: Int32(drawn.y), w: Int32(drawn.width), h: Int32(drawn.height))
            var box = SDL_Rect(x: Int32(rect.x + drawn.x), y: Int32(rect.y + drawn.y), w: Int32(drawn.width), h: Int32(drawn.height))
            SDL_RenderCopy(renderer, texture, &source, &box)
        }
    }

    /// Stops the drawing thread and lets the texture go (before its renderer goes).
    func destroy() {
        drawer?.close()
        drawer = nil
        if let texture { SDL_DestroyTexture(texture) }
        texture = nil
        textureSize = nil
    }

    /// Puts `overlay` in the texture: in each strip, where it or the texture's last drawing has something.
    private func upload(_ overlay: SubtitleOverlay, renderer: OpaquePointer) {
        let size = overlay.size
        var whole = false
        if textureSize != size {
            if let texture { SDL_DestroyTexture(texture) }
            texture = SDL_CreateTexture(renderer, hp_sdl_pixelformat_rgba32(), Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                        Int32(size.width), Int32(size.height))
            if let texture { SDL_SetTextureBlendMode(texture, SDL_BLENDMODE_BLEND) }
            textureSize = size
            // A new texture's pixels are not known to be clear: all of it.
            whole = true
        }
        defer { textureDrawn.copy(overlay.drawnStrips) }
        guard let texture else { return }
        overlay.pixels.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            func put(_ region: LayoutRect) {
                guard region.width > 0, region.height > 0 else { return }
                var box = SDL_Rect(x: Int32(region.x), y: Int32(region.y), w: Int32(region.width), h: Int32(region.height))
                _ = SDL_UpdateTexture(texture, &box, base + (region.y * size.width + region.x) * 4, Int32(size.width * 4))
            }
            if whole {
                put(LayoutRect(x: 0, y: 0, width: size.width, height: size.height))
                return
            }
            for index in 0..<overlay.drawnStrips.count {
                if let region = overlay.drawnStrips.rect(index, joining: textureDrawn) { put(region) }
            }
        }
    }
}
