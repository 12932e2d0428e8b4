import CFuzzDriver
import HPlayerKit
import Logging

/// Nothing printed per input: a fuzzer runs millions, and its own report is what counts.
public let quietLogging: Void = {
    LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }
    FFmpegLogBridge.install(level: .critical)
}()

public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// Hands the command line to libFuzzer, which calls `callback` with each input.
public func runFuzzer(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ callback: FuzzCallback) -> Int32 {
    _ = quietLogging
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments, callback)
}
