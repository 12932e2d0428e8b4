import Glibc
import Testing

/// Marks a test that measures wall-clock time while playing in real time: gaps, lateness, the
/// rate of a tone heard, A-V sync, or that no frame of a paced playback was dropped as late. A
/// moment the shared machine is descheduled can fail such a test; nothing else can.
///
/// The test command may run a failed real-time test again, once, and says so. No other test is
/// ever run again: a logic test that fails once is a bug. So that the command knows which are
/// which, each real-time test that runs writes its name (as the xUnit results give it,
/// `Module.Suite.function`) to the file `HPLAYER_REALTIME_LIST` names.
public struct RealTimeTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // Alone, in the test command's second phase, even in a suite without `.phased`.
        try TestPhase.cancelOutsideItsPhase(test)
        if !test.isSuite, let list = getenv("HPLAYER_REALTIME_LIST") {
            Self.append(Self.name(of: test), to: String(cString: list))
        }
        try await function()
    }

    /// `Module.Suite.Nested.function`, without the argument labels, as scripts/test.sh reads
    /// the xUnit results.
    static func name(of test: Test) -> String {
        let function = test.id.nameComponents.last.map { String($0.prefix { $0 != "(" }) } ?? test.name
        return ([test.id.moduleName] + test.id.nameComponents.dropLast() + [function]).joined(separator: ".")
    }

    private static func append(_ line: String, to path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}

extension Trait where Self == RealTimeTrait {
    /// See `RealTimeTrait`.
    public static var realTime: Self { RealTimeTrait() }
}
