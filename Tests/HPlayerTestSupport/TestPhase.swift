import Glibc
import Testing

/// The two phases of the test command (scripts/test.sh). First the tests that may share the
/// machine run in several processes at once; then the tests that must have it to themselves run
/// one at a time, alone: those that measure wall-clock time (`.realTime`) and those that drive
/// the one X display and sound sink (`.desktop`). `HPLAYER_TEST_PHASE` names the phase a test
/// process runs, `shared` or `alone` (or `logic`: all but the real-time tests); unset, it runs
/// every test.
public enum TestPhase: String, Sendable {
    case shared
    case alone
    /// Every test but those that measure wall-clock time: the sanitizers' runs, several
    /// times slower, where such a test would measure nothing.
    case logic

    /// This process's phase, or nil for every test.
    public static let current: TestPhase? = getenv("HPLAYER_TEST_PHASE").flatMap { TestPhase(rawValue: String(cString: $0)) }

    /// The phase `test` belongs to.
    public static func of(_ test: Test) -> TestPhase {
        test.traits.contains { $0 is RealTimeTrait || $0 is DesktopTrait } ? .alone : .shared
    }
}

/// Put on each top-level suite that holds tests of both phases: a test of the other phase than
/// this process's is cancelled before it starts (shown as skipped), so each runs in one phase.
public struct TestPhaseTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try TestPhase.cancelOutsideItsPhase(test)
        try await function()
    }
}

extension TestPhase {
    /// Cancels `test` (before it starts) when this process runs the other phase.
    static func cancelOutsideItsPhase(_ test: Test) throws {
        guard !test.isSuite, let phase = current else { return }
        switch phase {
        case .logic:
            guard test.traits.contains(where: { $0 is RealTimeTrait }) else { return }
            try Test.cancel("measures wall-clock time: not run slowed down by a sanitizer")
        case .shared, .alone:
            guard of(test) != phase else { return }
            try Test.cancel(phase == .shared ? "runs alone, in the test command's second phase"
                                             : "runs beside others, in the test command's first phase")
        }
    }
}

/// Marks a test that drives the X display or records the sound sink the test command starts:
/// another test's window or sound would be in its grabs and recordings, so it runs alone (even
/// in a suite without `.phased`).
public struct DesktopTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try TestPhase.cancelOutsideItsPhase(test)
        try await function()
    }
}

extension Trait where Self == TestPhaseTrait {
    /// See `TestPhaseTrait`.
    public static var phased: Self { TestPhaseTrait() }
}

extension Trait where Self == DesktopTrait {
    /// See `DesktopTrait`.
    public static var desktop: Self { DesktopTrait() }
}
