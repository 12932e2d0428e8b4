/// The clock of an audio output with no device: a thread that pulls one buffer per period, as a
/// sound card would, double-buffered (a buffer starts playing one period after its callback, so
/// the latency from a callback to its last sample being heard is two periods).
final class AudioClockLoop: Sendable {
    /// What the null and recording outputs pull per callback: 21 ms at 48 kHz, like a sound card.
    static let defaultSamplesPerCallback = 1024

    private let thread: OutputThread

    /// - Parameters:
    ///   - paced: false pulls as fast as the renderer gives (untimed).
    ///   - deliver: gets each filled buffer, the pts of its first sample, and when that sample is heard.
    init(name: String, format: AudioFormat, samplesPerCallback: Int, renderer: AudioRendering, paced: Bool,
         deliver: @escaping @Sendable (UnsafeRawBufferPointer, Double?, Double) -> Void) {
        thread = OutputThread(name: name) { thread in
            Self.run(thread, samplesPerCallback: samplesPerCallback, format: format, renderer: renderer, paced: paced, deliver: deliver)
        }
    }

    func start() { thread.start() }
    func pause() { thread.pause() }
    func close() { thread.close() }

    private static func run(_ thread: OutputThread, samplesPerCallback: Int, format: AudioFormat, renderer: AudioRendering,
                            paced: Bool, deliver: (UnsafeRawBufferPointer, Double?, Double) -> Void) {
        let lock = thread.lock
        let period = Double(samplesPerCallback) / Double(format.sampleRate)
        let latency = 2 * period
        let byteCount = samplesPerCallback * format.bytesPerFrame
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 16)
        defer { buffer.deallocate() }
        var scheduleStart = 0.0
        var callbacks = 0
        lock.lock()
        while true {
            if !thread.isRunning {
                while !thread.isClosed, !thread.isRunning { lock.wait() }
                scheduleStart = MonotonicClock.now()
                callbacks = 0
            }
            if thread.isClosed { break }
            var callbackTime = MonotonicClock.now()
            if paced {
                let due = scheduleStart + Double(callbacks) * period
                if due > callbackTime {
                    lock.wait(until: due)
                    continue  // state may have changed while asleep; the schedule is kept
                }
                if callbackTime - due > 4 * period {
                    // Fell far behind (the machine stalled): start a new schedule instead of bursting.
                    scheduleStart = callbackTime
                    callbacks = 0
                } else {
                    callbackTime = due
                }
            }
            thread.beginWork()
            let firstPts = renderer.render(into: buffer, sampleCount: samplesPerCallback, at: callbackTime, latency: latency)
            deliver(UnsafeRawBufferPointer(start: buffer, count: byteCount), firstPts, callbackTime + latency - period)
            callbacks += 1
            if !paced, firstPts == nil {
                // Untimed with nothing decoded yet: let the decoder catch up instead of spinning.
                MonotonicClock.sleep(until: MonotonicClock.now() + 0.001)
            }
            thread.endWork()
        }
        lock.unlock()
    }
}
