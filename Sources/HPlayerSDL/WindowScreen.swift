import CSDL2
import HPlayerKit
import Logging

/// The window thread's SDL objects: the window, its renderer, the picture's texture and the
/// on-screen display, and how the window is (visible, fullscreen).
final class WindowScreen {
    private let options: WindowOptions
    private var window: OpaquePointer?
    private var renderer: OpaquePointer?
    private var texture: OpaquePointer?
    private var textureKey: (format: UInt32, width: Int32, height: Int32)?
    private var format: VideoFormat?
    /// The pixel shape the last picture's bitstream gave (nil: unspecified), once one has come.
    private var lastBitstreamShape: Double?
    private var hasUploadedPicture = false
    private var title: String
    /// The media time of the picture in the texture.
    private(set) var shownMediaPts: Double?
    /// What shows over the picture in the texture, and over the next picture, at its time.
    private var subtitle: ShownSubtitle?
    private var upcomingSubtitle: ShownSubtitle?
    private let subtitles = SubtitleLayer()
    /// The media time of the picture after the one in the texture, when its duration is known.
    private(set) var nextMediaPts: Double?
    private(set) var osd: OnScreenDisplay?
    private var isVisible = true
    private var isPlaying = false
    private var isFullscreen = false
    private var needsDraw = false
    /// The OSD was showing at the last draw: one more draw clears it when it hides.
    private var osdWasShowing = false
    private var chapterMarks: [Double] = []
    /// A still picture (cover art) to put in the texture at the next draw, once the window shows.
    private var pendingStill: Frame?
    /// Hidden by `showNoPicture`: shown again when a picture comes.
    private var isHiddenForNoPicture = false
    /// Opened before any picture (--force-window): the first picture gives it its size.
    private var isSizedForNoPicture = false
    var isDraggingOnBar = false
    /// The last key down was a character with Ctrl, Alt or Meta: the text it types is not a key.
    var suppressesNextText = false

    init(options: WindowOptions) {
        self.options = options
        title = options.title
        isFullscreen = options.isFullscreen
        SDL_SetHint(SDL_HINT_VIDEO_ALLOW_SCREENSAVER, "1")  // inhibited only while playing
        SDL_SetYUVConversionMode(SDL_YUV_CONVERSION_AUTOMATIC)  // BT.601 for SD, BT.709 for HD
    }

    /// A video opens: makes the window at the picture's size (or as the geometry says), or
    /// shows it again.
    func show(_ format: VideoFormat) {
        self.format = format
        hasUploadedPicture = false
        pendingStill = nil  // a cover not yet drawn is not this picture
        needsDraw = true
        guard let window else {
            openWindow(display: format.displaySize)
            return
        }
        if isHiddenForNoPicture { SDL_ShowWindow(window) }
        isHiddenForNoPicture = false
        if isSizedForNoPicture, !isFullscreen {
            let size = windowSize(display: format.displaySize)
            SDL_SetWindowSize(window, Int32(clamping: size.width), Int32(clamping: size.height))
        }
        isSizedForNoPicture = false
    }

    /// mpv's --force-window: a window before any picture, at mpv's 640x480 (or as the geometry says).
    func openEmpty() {
        guard window == nil else { return }
        openWindow(display: (640, 480))
        isSizedForNoPicture = true
        needsDraw = true
    }

    /// A still picture (an audio file's cover) in place of a video.
    func showStill(_ picture: Frame) {
        show(VideoFormat(width: picture.width, height: picture.height))
        pendingStill = picture
    }

    /// A file without a picture plays: the last one goes; the window too, unless `keepsWindow`
    /// (--force-window), as mpv closes its video output.
    func showNoPicture(keepsWindow: Bool) {
        format = nil
        pendingStill = nil
        if let texture { SDL_DestroyTexture(texture) }
        texture = nil
        textureKey = nil
        shownMediaPts = nil
        needsDraw = true
        guard !keepsWindow, let window, !isHiddenForNoPicture else { return }
        SDL_HideWindow(window)
        isHiddenForNoPicture = true
    }

    /// The window's size for a picture of `display` size, as the geometry and the screen allow.
    private func windowSize(display: (width: Int, height: Int)) -> (width: Int, height: Int) {
        var bounds = SDL_Rect()
        let screen = SDL_GetDisplayUsableBounds(0, &bounds) == 0 ? (Int(bounds.w), Int(bounds.h)) : nil
        return WindowLayout.windowSize(display: display, geometry: options.geometry, screen: screen)
    }

    private func openWindow(display: (width: Int, height: Int)) {
        let size = windowSize(display: display)
        var flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_SHOWN.rawValue
        if options.isBorderless { flags |= SDL_WINDOW_BORDERLESS.rawValue }
        if options.isFullscreen { flags |= SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue }
        let x = options.geometry?.x.map { Int32(clamping: $0) } ?? hp_sdl_windowpos_centered()
        let y = options.geometry?.y.map { Int32(clamping: $0) } ?? hp_sdl_windowpos_centered()
        // Scaled to the picture's shape, a size from the geometry can outgrow 32 bits: SDL then refuses it.
        guard let window = SDL_CreateWindow(title, x, y, Int32(clamping: size.width), Int32(clamping: size.height), flags) else {
            Log.window.error("cannot open a window: \(SDLError.current)")
            return
        }
        self.window = window
        renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_PRESENTVSYNC.rawValue) ?? SDL_CreateRenderer(window, -1, 0)
        if renderer == nil { Log.window.error("cannot draw in the window: \(SDLError.current)") }
        osd = OnScreenDisplay()
    }

    /// The window's title: now, or when the window opens.
    func setTitle(_ text: String) {
        guard text != title else { return }
        title = text
        if let window { SDL_SetWindowTitle(window, text) }
    }

    /// The screensaver is inhibited while playing, allowed when paused or stopped.
    func setPlaying(_ playing: Bool) {
        guard playing != isPlaying else { return }
        isPlaying = playing
        if playing { SDL_DisableScreenSaver() } else { SDL_EnableScreenSaver() }
    }

    /// Copies a frame into the picture's texture: IYUV, NV12 and BGRA as they are.
    func upload(_ frame: Frame) {
        guard isVisible, let renderer else { return }
        let sdlFormat: UInt32
        switch frame.pixelFormat {
        case .yuv420p: sdlFormat = hp_sdl_pixelformat_iyuv()
        case .nv12: sdlFormat = hp_sdl_pixelformat_nv12()
        case .bgra: sdlFormat = hp_sdl_pixelformat_argb8888()
        default: return  // the decoder converts anything else
        }
        shownMediaPts = frame.mediaPts
        nextMediaPts = frame.duration > 0 ? frame.mediaPts + frame.duration : nil
        if let format, format.width != frame.width || format.height != frame.height { adoptPictureSize(of: frame, from: format) }
        lastBitstreamShape = frame.sampleAspectRatio
        hasUploadedPicture = true
        let width = Int32(frame.width), height = Int32(frame.height)
        if texture == nil || textureKey.map({ $0 != (sdlFormat, width, height) }) ?? true {
            if let texture { SDL_DestroyTexture(texture) }
            texture = SDL_CreateTexture(renderer, sdlFormat, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue), width, height)
            textureKey = (sdlFormat, width, height)
        }
        guard let texture else { return }
        switch frame.pixelFormat {
        case .yuv420p:
            SDL_UpdateYUVTexture(texture, nil, frame.plane(0), Int32(frame.lineSize(0)), frame.plane(1), Int32(frame.lineSize(1)),
                                 frame.plane(2), Int32(frame.lineSize(2)))
        case .nv12:
            SDL_UpdateNVTexture(texture, nil, frame.plane(0), Int32(frame.lineSize(0)), frame.plane(1), Int32(frame.lineSize(1)))
        default:
            SDL_UpdateTexture(texture, nil, frame.plane(0), Int32(frame.lineSize(0)))
        }
        needsDraw = true
    }

    /// The stream's picture changed size (a new SPS in a raw or live stream): it is drawn at its
    /// new shape, and the window takes the new size as mpv's does, unless fullscreen or maximized.
    private func adoptPictureSize(of frame: Frame, from old: VideoFormat) {
        // The container's pixel shape stands unless the bitstream's changed with the size.
        let bitstreamShape = frame.sampleAspectRatio
        let shape = hasUploadedPicture && bitstreamShape != nil && bitstreamShape != lastBitstreamShape ? bitstreamShape! : old.sampleAspectRatio
        let changed = VideoFormat(width: frame.width, height: frame.height, sampleAspectRatio: shape, rotation: old.rotation)
        format = changed
        guard let window, !isFullscreen, SDL_GetWindowFlags(window) & SDL_WINDOW_MAXIMIZED.rawValue == 0 else { return }
        let size = windowSize(display: changed.displaySize)
        SDL_SetWindowSize(window, Int32(clamping: size.width), Int32(clamping: size.height))
    }

    func setChapterMarks(_ starts: [Double]) {
        chapterMarks = starts
        needsDraw = true
    }

    /// The subtitles over the picture in the texture, and over the next one; nil for none.
    func setSubtitle(_ shown: ShownSubtitle?, next: ShownSubtitle?) {
        subtitle = shown
        upcomingSubtitle = next
    }

    func isAnimating(status: PlayerStatus?, at now: Double) -> Bool {
        osd?.isShowing(at: now, paused: status?.playbackState == .paused) ?? false || osdWasShowing
    }

    /// Draws the picture and the OSD when something changed.
    func drawIfNeeded(status: PlayerStatus?, at now: Double) {
        guard isVisible, let renderer else { return }
        if let still = pendingStill {
            pendingStill = nil
            upload(still)
        }
        var outputWidth: Int32 = 0, outputHeight: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &outputWidth, &outputHeight)
        let size = (width: Int(outputWidth), height: Int(outputHeight))
        if let format {
            let shown = WindowLayout.pictureRect(display: format.displaySize, window: size)
            if let pts = shownMediaPts,
               subtitles.update(subtitle, at: pts, next: upcomingSubtitle, at: nextMediaPts, size: PictureSize(width: shown.width, height: shown.height),
                                storage: PictureSize(width: format.width, height: format.height), renderer: renderer) {
                needsDraw = true
            }
        }
        let osdShowing = osd?.isShowing(at: now, paused: status?.playbackState == .paused) ?? false
        guard needsDraw || osdShowing || osdWasShowing else { return }
        needsDraw = false
        osdWasShowing = osdShowing
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        if let texture, let format {
            let shown = WindowLayout.pictureRect(display: format.displaySize, window: size)
            let rect = WindowLayout.drawRect(shown: shown, rotation: format.rotation)
            var target = SDL_Rect(x: Int32(rect.x), y: Int32(rect.y), w: Int32(rect.width), h: Int32(rect.height))
            SDL_RenderCopyEx(renderer, texture, nil, &target, Double(format.rotation), nil, SDL_FLIP_NONE)
            subtitles.draw(on: renderer, over: shown)
        }
        osd?.draw(on: renderer, window: size, status: status, chapterMarks: chapterMarks, at: now)
        SDL_RenderPresent(renderer)
    }

    func toggleFullscreen() {
        guard let window else { return }
        isFullscreen.toggle()
        SDL_SetWindowFullscreen(window, isFullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue : 0)
        needsDraw = true
    }

    /// The point of the media a click on the progress bar stands for; `y` nil while dragging.
    func barFraction(x: Int, y: Int?) -> Double? {
        guard let window else { return nil }
        var width: Int32 = 0, height: Int32 = 0
        SDL_GetWindowSize(window, &width, &height)
        let size = (width: Int(width), height: Int(height))
        if let y, !WindowLayout.progressBarHitArea(window: size).contains(x: x, y: y) { return nil }
        return WindowLayout.seekFraction(x: x, bar: WindowLayout.progressBar(window: size))
    }

    func windowChanged(_ event: SDL_WindowEventID) {
        switch event {
        case SDL_WINDOWEVENT_HIDDEN, SDL_WINDOWEVENT_MINIMIZED:
            isVisible = false
        case SDL_WINDOWEVENT_SHOWN, SDL_WINDOWEVENT_RESTORED, SDL_WINDOWEVENT_EXPOSED, SDL_WINDOWEVENT_MAXIMIZED:
            isVisible = true
            needsDraw = true
        case SDL_WINDOWEVENT_SIZE_CHANGED:
            needsDraw = true
        default:
            break
        }
    }

    func destroy() {
        osd = nil  // its textures go with the renderer
        subtitles.destroy()
        if let texture { SDL_DestroyTexture(texture) }
        if let renderer { SDL_DestroyRenderer(renderer) }
        if let window { SDL_DestroyWindow(window) }
        texture = nil
        renderer = nil
        window = nil
    }
}
