import FuzzSupport
import HPlayerIPC

/// Any line as an IPC request, and the reply it gets, encoded back to JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    if let data {
        switch IPCRequest.parse(UnsafeBufferPointer(start: data, count: size)) {
        case .success(let request): _ = IPCMessage.reply(request.requestID, data: .none).line
        case .failure(let failure): _ = failure.requestID.map { IPCMessage.reply($0, error: failure.error).line }
        }
    }
    return 0
}

@_cdecl("FuzzIPCRequest_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
