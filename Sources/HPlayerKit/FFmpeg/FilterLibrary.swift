import CFFmpeg
import Glibc

/// libavfilter, opened on first use: only a tempo other than 1x needs it (AudioTempoFilter).
///
/// Debian's libavfilter pulls in 31 libraries nothing else here needs (speech synthesis voices,
/// libplacebo, LAPACK, …): 11 MiB resident in a player that never changes speed. So the binary
/// does not link it; these are the few functions the tempo filter calls, looked up once.
struct FilterLibrary: @unchecked Sendable {
    typealias GraphAlloc = @convention(c) () -> UnsafeMutablePointer<AVFilterGraph>?
    typealias GraphFree = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterGraph>?>?) -> Void
    typealias GetByName = @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVFilter>?
    typealias CreateFilter = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterContext>?>?, UnsafePointer<AVFilter>?,
                                             UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?,
                                             UnsafeMutablePointer<AVFilterGraph>?) -> Int32
    typealias Link = @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UInt32, UnsafeMutablePointer<AVFilterContext>?, UInt32) -> Int32
    typealias GraphConfig = @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafeMutableRawPointer?) -> Int32
    typealias SendCommand = @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                            UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int32, Int32) -> Int32
    typealias AddFrame = @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?, Int32) -> Int32
    typealias GetSamples = @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?, Int32) -> Int32

    let graphAlloc: GraphAlloc
    let graphFree: GraphFree
    let getByName: GetByName
    let createFilter: CreateFilter
    let link: Link
    let graphConfig: GraphConfig
    let sendCommand: SendCommand
    let addFrame: AddFrame
    let getSamples: GetSamples

    static let soname = "libavfilter.so.\(LIBAVFILTER_VERSION_MAJOR)"

    /// Loads the library now (tens of milliseconds, the first time), off the threads that
    /// must not wait.
    static func prepare() { _ = shared }

    /// The library, or why it cannot be had (said once, when first asked).
    static let shared: Result<FilterLibrary, MediaError> = {
        let result = load()
        if case .failure(let failure) = result { Log.player.error("\(failure.input): \(failure.reason)") }
        return result
    }()

    private static func load() -> Result<FilterLibrary, MediaError> {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(MediaError(input: soname, reason: "cannot be loaded, so the tempo cannot change: \(String(cString: dlerror()))"))
        }
        var missing: [String] = []
        func symbol<Function>(_ name: String, as type: Function.Type) -> Function? {
            guard let address = dlsym(handle, name) else {
                missing.append(name)
                return nil
            }
            return unsafeBitCast(address, to: type)
        }
        let library = FilterLibrary.make(
            graphAlloc: symbol("avfilter_graph_alloc", as: GraphAlloc.self),
            graphFree: symbol("avfilter_graph_free", as: GraphFree.self),
            getByName: symbol("avfilter_get_by_name", as: GetByName.self),
            createFilter: symbol("avfilter_graph_create_filter", as: CreateFilter.self),
            link: symbol("avfilter_link", as: Link.self),
            graphConfig: symbol("avfilter_graph_config", as: GraphConfig.self),
            sendCommand: symbol("avfilter_graph_send_command", as: SendCommand.self),
            addFrame: symbol("av_buffersrc_add_frame_flags", as: AddFrame.self),
            getSamples: symbol("av_buffersink_get_samples", as: GetSamples.self))
        guard let library else {
            return .failure(MediaError(input: soname, reason: "lacks \(missing.joined(separator: ", ")), so the tempo cannot change"))
        }
        return .success(library)
    }

    private static func make(graphAlloc: GraphAlloc?, graphFree: GraphFree?, getByName: GetByName?, createFilter: CreateFilter?,
                             link: Link?, graphConfig: GraphConfig?, sendCommand: SendCommand?, addFrame: AddFrame?,
                             getSamples: GetSamples?) -> FilterLibrary? {
        guard let graphAlloc, let graphFree, let getByName, let createFilter, let link, let graphConfig, let sendCommand,
              let addFrame, let getSamples else { return nil }
        return FilterLibrary(graphAlloc: graphAlloc, graphFree: graphFree, getByName: getByName, createFilter: createFilter,
                             link: link, graphConfig: graphConfig, sendCommand: sendCommand, addFrame: addFrame, getSamples: getSamples)
    }
}
