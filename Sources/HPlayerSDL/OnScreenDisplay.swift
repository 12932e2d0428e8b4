import CSDL2
import HPlayerKit
import Logging

/// The on-screen display: a progress bar with the played and the buffered part and, for network
/// media, what the disk cache holds (a blue strip along its foot, as mpv marks its cache's
/// ranges), the chapters' starts (ticks through it, as mpv's), position / duration, and short
/// notices that fade. Shown on a key press or a mouse move, hidden after two seconds of quiet;
/// always shown while paused. (Subtitles are libass's, drawn under it: `WindowScreen`.)
///
/// Lives on the window thread. Text is drawn with SDL2_ttf in DejaVu Sans; without the font,
/// the bar is drawn alone.
final class OnScreenDisplay {
    static let quietPeriod = 2.0
    static let noticeLife = 1.5
    static let noticeFade = 0.5
    static let fontPaths = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf"]

    private var font: OpaquePointer?
    private var visibleUntil = 0.0
    private var notice: (text: String, shownAt: Double)?
    private var texts: [String: (texture: OpaquePointer, width: Int32, height: Int32)] = [:]

    init() {
        guard TTF_Init() == 0 else {
            Log.window.warning("no on-screen text: \(SDLError.current)")
            return
        }
        font = Self.fontPaths.lazy.compactMap { TTF_OpenFont($0, 18) }.first
        if font == nil { Log.window.warning("no on-screen text: DejaVu Sans not found (fonts-dejavu-core)") }
    }

    deinit {
        releaseTextures()
        if let font { TTF_CloseFont(font) }
        TTF_Quit()
    }

    func poke(at now: Double) { visibleUntil = now + Self.quietPeriod }

    func show(_ text: String, at now: Double) {
        notice = (text, now)
        poke(at: now)
    }

    /// Something is on screen that changes with time, so the window must keep redrawing.
    func isShowing(at now: Double, paused: Bool) -> Bool {
        paused || now < visibleUntil || notice.map { now < $0.shownAt + Self.noticeLife } ?? false
    }

    func draw(on renderer: OpaquePointer, window: (width: Int, height: Int), status: PlayerStatus?, chapterMarks: [Double],
              at now: Double) {
        SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND)
        let paused = status?.playbackState == .paused
        let showsProgress = (paused || now < visibleUntil) && status != nil
        if showsProgress, let status {
            drawProgress(on: renderer, window: window, status: status, chapterMarks: chapterMarks)
        }
        if let status, status.loadState == .loading, status.playbackState == .playing || status.playbackState == .seeking {
            drawNotice("Buffering \(status.bufferingProgress)%", alpha: 255, on: renderer, window: window)
        } else if let notice, now < notice.shownAt + Self.noticeLife {
            let left = notice.shownAt + Self.noticeLife - now
            drawNotice(notice.text, alpha: UInt8(255 * min(1, left / Self.noticeFade)), on: renderer, window: window)
        }
    }

    private func drawProgress(on renderer: OpaquePointer, window: (width: Int, height: Int), status: PlayerStatus, chapterMarks: [Double]) {
        let bar = WindowLayout.progressBar(window: window)
        let duration = status.duration ?? 0
        let played = duration > 0 ? min(1, status.position / duration) : 0
        let buffered = duration > 0 ? min(1, (status.position + status.bufferedDuration) / duration) : 0
        fill(bar, on: renderer, red: 40, green: 40, blue: 40, alpha: 180)
        fill(LayoutRect(x: bar.x, y: bar.y, width: Int(Double(bar.width) * buffered), height: bar.height),
             on: renderer, red: 130, green: 130, blue: 130, alpha: 200)
        fill(LayoutRect(x: bar.x, y: bar.y, width: Int(Double(bar.width) * played), height: bar.height),
             on: renderer, red: 240, green: 240, blue: 240, alpha: 230)
        // A strip along the bar's foot, over the rest, so it shows under the played part too.
        for cached in WindowLayout.cachedSpans(status.cachedRanges, duration: duration, bar: bar) {
            let strip = max(2, cached.height / 3)
            fill(LayoutRect(x: cached.x, y: cached.y + cached.height - strip, width: cached.width, height: strip),
                 on: renderer, red: 70, green: 140, blue: 230, alpha: 255)
        }
        for mark in WindowLayout.chapterMarks(chapterMarks, duration: duration, bar: bar) {
            fill(mark, on: renderer, red: 255, green: 200, blue: 40, alpha: 255)
        }
        var text = TimeText.clock(status.position) + (status.duration.map { " / " + TimeText.clock($0) } ?? "")
        if status.playbackState == .paused { text = "Paused  " + text }
        drawText(text, alpha: 255, on: renderer, x: bar.x, bottom: bar.y - 6)
    }

    private func drawNotice(_ text: String, alpha: UInt8, on renderer: OpaquePointer, window: (width: Int, height: Int)) {
        guard let size = textSize(text, on: renderer) else { return }
        let x = (window.width - Int(size.width)) / 2
        fill(LayoutRect(x: x - 8, y: 12, width: Int(size.width) + 16, height: Int(size.height) + 8),
             on: renderer, red: 0, green: 0, blue: 0, alpha: UInt8(Double(alpha) * 0.6))
        drawText(text, alpha: alpha, on: renderer, x: x, bottom: 16 + Int(size.height))
    }

    private func fill(_ rect: LayoutRect, on renderer: OpaquePointer, red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        var box = SDL_Rect(x: Int32(rect.x), y: Int32(rect.y), w: Int32(rect.width), h: Int32(rect.height))
        SDL_SetRenderDrawColor(renderer, red, green, blue, alpha)
        SDL_RenderFillRect(renderer, &box)
    }

    private func drawText(_ text: String, alpha: UInt8, on renderer: OpaquePointer, x: Int, bottom: Int) {
        guard let cached = texture(for: text, on: renderer) else { return }
        var box = SDL_Rect(x: Int32(x), y: Int32(bottom) - cached.height, w: cached.width, h: cached.height)
        SDL_SetTextureAlphaMod(cached.texture, alpha)
        SDL_RenderCopy(renderer, cached.texture, nil, &box)
    }

    private func textSize(_ text: String, on renderer: OpaquePointer) -> (width: Int32, height: Int32)? {
        texture(for: text, on: renderer).map { ($0.width, $0.height) }
    }

    /// Text is drawn once into a texture and kept while it is shown (times change once a second).
    private func texture(for text: String, on renderer: OpaquePointer) -> (texture: OpaquePointer, width: Int32, height: Int32)? {
        if let cached = texts[text] { return cached }
        guard let font, let surface = TTF_RenderUTF8_Blended(font, text, SDL_Color(r: 255, g: 255, b: 255, a: 255)) else { return nil }
        defer { SDL_FreeSurface(surface) }
        guard let texture = SDL_CreateTextureFromSurface(renderer, surface) else { return nil }
        if texts.count >= 32 { releaseTextures() }
        let cached = (texture: texture, width: surface.pointee.w, height: surface.pointee.h)
        texts[text] = cached
        return cached
    }

    /// Textures belong to a renderer: dropped with it.
    func releaseTextures() {
        for cached in texts.values { SDL_DestroyTexture(cached.texture) }
        texts.removeAll()
    }
}
