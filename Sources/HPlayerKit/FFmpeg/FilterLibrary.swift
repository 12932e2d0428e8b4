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
        func symbol<Function>(_ name: String, as type: Function.Type) throws(MediaError) -> Function {
            guard let address = dlsym(handle, name) else {
                throw MediaError(input: soname, reason: "lacks \(name), so the tempo cannot change")
            }
            return unsafeBitCast(address, to: type)
        }
        do throws(MediaError) {
            return .success(FilterLibrary(
                graphAlloc: try symbol("avfilter_graph_alloc", as: GraphAlloc.self),
                graphFree: try symbol("avfilter_graph_free", as: GraphFree.self),
                getByName: try symbol("avfilter_get_by_name", as: GetByName.self),
                createFilter: try symbol("avfilter_graph_create_filter", as: CreateFilter.self),
                link: try symbol("avfilter_link", as: Link.self),
                graphConfig: try symbol("avfilter_graph_config", as: GraphConfig.self),
                sendCommand: try symbol("avfilter_graph_send_command", as: SendCommand.self),
                addFrame: try symbol("av_buffersrc_add_frame_flags", as: AddFrame.self),
                getSamples: try symbol("av_buffersink_get_samples", as: GetSamples.self)))
        } catch {
            return .failure(error)
        }
    }
}
