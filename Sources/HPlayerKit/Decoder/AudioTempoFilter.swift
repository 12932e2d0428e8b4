import CFFmpeg
import CHPlayerShim

/// Changes the tempo of interleaved audio with its pitch kept: a libavfilter graph of
/// abuffer → atempo → abuffersink. atempo takes factors of 0.5 and up; a slower tempo takes two
/// stages, each its square root.
///
/// A filter keeps one tempo for its life. `finish` takes out what it still holds, so the samples
/// out of one filter cover exactly the samples put in, and the next filter (a new tempo) starts
/// where it stopped, with no gap and no seam.
final class AudioTempoFilter {
    private(set) var tempo: Double
    /// Media seconds by which what comes out runs ahead of its place by count (output samples
    /// times tempo), once past the first window. atempo overlap-adds windows of input, so an onset
    /// is heard about half a window early; measured with beeps at 0.5x and 2x, it is that for each
    /// stage.
    let lead: Double
    /// Output samples over which `lead` builds up from nothing: the first window comes out as it went in.
    let leadRamp: Int
    private let format: AudioFormat
    private let library: FilterLibrary
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    /// Points at the unplayed part of a queued frame for `send`; owns no buffer of its own.
    private let input: UnsafeMutablePointer<AVFrame>
    private var samplesSent: Int64 = 0

    /// The factors of the atempo stages for `tempo`.
    static func stages(for tempo: Double) -> [Double] {
        tempo >= 0.5 ? [tempo] : [tempo.squareRoot(), tempo.squareRoot()]
    }

    /// Throws ENOSYS where libavfilter cannot be loaded (FilterLibrary logs why, once).
    init(format: AudioFormat, tempo: Double) throws(FFmpegError) {
        guard case .success(let library) = FilterLibrary.shared else { throw FFmpegError(hp_averror(ENOSYS)) }
        var graph = library.graphAlloc()
        guard let builtGraph = graph else { throw FFmpegError(hp_averror(ENOMEM)) }
        guard let input = av_frame_alloc() else {
            library.graphFree(&graph)
            throw FFmpegError(hp_averror(ENOMEM))
        }
        av_channel_layout_default(&input.pointee.ch_layout, Int32(format.channelCount))  // native: owns no memory
        hp_frame_set_legacy_layout(input)
        do {
            (source, sink) = try Self.build(builtGraph, library: library, format: format, layout: &input.pointee.ch_layout, tempo: tempo)
        } catch {
            var unused: UnsafeMutablePointer<AVFrame>? = input
            av_frame_free(&unused)
            library.graphFree(&graph)
            throw error
        }
        self.library = library
        self.tempo = tempo
        self.format = format
        let halfWindow = Double(Self.window(sampleRate: format.sampleRate) / 2) / Double(format.sampleRate)
        self.lead = halfWindow
        leadRamp = Self.window(sampleRate: format.sampleRate)
        self.graph = graph
        self.input = input
    }

    /// atempo's window in samples: a 24th of a second, rounded up to a power of two.
    static func window(sampleRate: Int) -> Int {
        var window = 1
        while window < sampleRate / 24 { window *= 2 }
        return window
    }

    /// abuffer → atempo (one or two) → abuffersink, configured.
    private static func build(_ graph: UnsafeMutablePointer<AVFilterGraph>, library: FilterLibrary, format: AudioFormat,
                              layout: UnsafePointer<AVChannelLayout>,
                              tempo: Double) throws(FFmpegError) -> (UnsafeMutablePointer<AVFilterContext>, UnsafeMutablePointer<AVFilterContext>) {
        var layoutName = [CChar](repeating: 0, count: 64)
        av_channel_layout_describe(layout, &layoutName, layoutName.count)
        let sampleFormat = String(cString: av_get_sample_fmt_name(format.avSampleFormat))
        let bufferArguments = "time_base=1/\(format.sampleRate):sample_rate=\(format.sampleRate):sample_fmt=\(sampleFormat):channel_layout=\(String(cBuffer: layoutName))"
        let source = try addFilter("abuffer", name: "in", arguments: bufferArguments, to: graph, library: library)
        let sink = try addFilter("abuffersink", name: "out", arguments: nil, to: graph, library: library)
        var previous = source
        for (index, factor) in stages(for: tempo).enumerated() {
            let stage = try addFilter("atempo", name: "tempo\(index)", arguments: "tempo=\(factor)", to: graph, library: library)
            try FFmpegError.check(library.link(previous, 0, stage, 0))
            previous = stage
        }
        try FFmpegError.check(library.link(previous, 0, sink, 0))
        try FFmpegError.check(library.graphConfig(graph, nil))
        return (source, sink)
    }

    /// Puts in the samples of `frame` from `offset` on. libavfilter copies them.
    func send(_ frame: Frame, from offset: Int) throws(FFmpegError) {
        guard let plane = frame.plane(0) else { return }
        let count = frame.sampleCount - offset
        guard count > 0 else { return }
        input.pointee.data.0 = plane + offset * format.bytesPerFrame
        input.pointee.extended_data = UnsafeMutableRawPointer(input)
            .advanced(by: MemoryLayout<AVFrame>.offset(of: \AVFrame.data)!)
            .assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        input.pointee.linesize.0 = Int32(count * format.bytesPerFrame)
        input.pointee.nb_samples = Int32(count)
        input.pointee.format = format.avSampleFormat.rawValue
        input.pointee.sample_rate = Int32(format.sampleRate)
        input.pointee.pts = samplesSent
        samplesSent += Int64(count)
        try FFmpegError.check(library.addFrame(source, input, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)))
    }

    /// Sets a new tempo for what the filter holds, when it takes as many stages as the present
    /// one; false when it does not (the filter must then be finished and another made).
    func retune(to newTempo: Double) -> Bool {
        let stages = Self.stages(for: newTempo)
        guard stages.count == Self.stages(for: tempo).count else { return false }
        var response = [CChar](repeating: 0, count: 64)
        for (index, factor) in stages.enumerated() {
            guard library.sendCommand(graph, "tempo\(index)", "tempo", "\(factor)", &response, Int32(response.count), 0) >= 0 else {
                return false
            }
        }
        tempo = newTempo
        return true
    }

    /// Marks the end of the input: what the filter holds comes out with `receive`.
    func finish() throws(FFmpegError) {
        try FFmpegError.check(library.addFrame(source, nil, 0))
    }

    /// Takes the next `count` samples out into `frame` (fewer only at the end, after `finish`);
    /// false when the filter needs more input or has given everything.
    func receive(into frame: Frame, count: Int) throws(FFmpegError) -> Bool {
        let result = library.getSamples(sink, frame.avFrame, Int32(count))
        if result == hp_averror_eagain() || result == hp_averror_eof() { return false }
        try FFmpegError.check(result)
        return frame.sampleCount > 0
    }

    private static func addFilter(_ filterName: String, name: String, arguments: String?,
                                  to graph: UnsafeMutablePointer<AVFilterGraph>,
                                  library: FilterLibrary) throws(FFmpegError) -> UnsafeMutablePointer<AVFilterContext> {
        var context: UnsafeMutablePointer<AVFilterContext>?
        try FFmpegError.check(library.createFilter(&context, library.getByName(filterName), name, arguments, nil, graph))
        guard let context else { throw FFmpegError(hp_averror(ENOMEM)) }
        return context
    }

    deinit {
        library.graphFree(&graph)
        input.pointee.data.0 = nil  // borrowed from a queued frame
        input.pointee.extended_data = nil
        var frame: UnsafeMutablePointer<AVFrame>? = input
        av_frame_free(&frame)
    }
}
