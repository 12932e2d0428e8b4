import CFFmpeg

/// Pointers to an AVFrame's data and linesize arrays, for the C calls that fill or read them.
extension UnsafeMutablePointer where Pointee == AVFrame {
    func withPlanes<Result>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int32>) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointer(to: &pointee.data) { data in
            try withUnsafeMutablePointer(to: &pointee.linesize) { lineSizes in
                try data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: Int(AV_NUM_DATA_POINTERS)) { planes in
                    try lineSizes.withMemoryRebound(to: Int32.self, capacity: Int(AV_NUM_DATA_POINTERS)) { strides in
                        try body(planes, strides)
                    }
                }
            }
        }
    }
}
