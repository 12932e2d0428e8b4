/// The clock of an audio output with no device: a thread that pulls one buffer per period, as a
/// sound card would, double-buffered (a buffer starts playing one period after its callback).
final class AudioClockLoop: @unchecked Sendable {
    /// What the null and recording outputs pull per callback: 21 ms at 48 kHz, like a sound card.
    static let defaultSamplesPerCallback = 1024

    let samplesPerCallback: Int
    let format: AudioFormat
    /// From a callback to when the last sample of its buffer is heard: two periods.
    var latency: Double { 2 * period }
    var period: Double { Double(samplesPerCallback) / Double(format.sampleRate) }

    private let lock = ConditionLock()
    private var running = false
    private var closed = false
    private var thread: JoinableThread?

    /// - Parameters:
    ///   - paced: false pulls as fast as the renderer gives (untimed).
    ///   - deliver: gets each filled buffer, the pts of its first sample, and when that sample is heard.
    init(name: String, format: AudioFormat, samplesPerCallback: Int, renderer: AudioRendering, paced: Bool,
         deliver: @escaping @Sendable (UnsafeRawBufferPointer, Double?, Double) -> Void) {
        self.format = format
        self.samplesPerCallback = samplesPerCallback
        thread = JoinableThread(name: name) { [self] in run(renderer: renderer, paced: paced, deliver: deliver) }
    }

    func start() { update { running = true } }
    func pause() { update { running = false } }

    func close() {
        update { closed = true }
        thread?.join()
        thread = nil
    }

    private func update(_ change: () -> Void) {
        lock.withLock {
            change()
            lock.broadcast()
        }
    }

    private func run(renderer: AudioRendering, paced: Bool, deliver: (UnsafeRawBufferPointer, Double?, Double) -> Void) {
        let byteCount = samplesPerCallback * format.bytesPerFrame
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 16)
        defer { buffer.deallocate() }
        var scheduleStart = 0.0
        var callbacks = 0
        lock.lock()
        while true {
            if !running {
                while !closed, !running { lock.wait() }
                scheduleStart = MonotonicClock.now()
                callbacks = 0
            }
            if closed { break }
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
            lock.unlock()
            let firstPts = renderer.render(into: buffer, sampleCount: samplesPerCallback, at: callbackTime, latency: latency)
            deliver(UnsafeRawBufferPointer(start: buffer, count: byteCount), firstPts, callbackTime + latency - period)
            callbacks += 1
            if !paced, firstPts == nil {
                // Untimed with nothing decoded yet: let the decoder catch up instead of spinning.
                MonotonicClock.sleep(until: MonotonicClock.now() + 0.001)
            }
            lock.lock()
        }
        lock.unlock()
    }
}
