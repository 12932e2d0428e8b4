import HPlayerIPC
import HPlayerKit
import Testing

/// mpv's `stream-record`: the file being recorded to, "" when none; set to a path to record
/// there, to "" to stop.
struct StreamRecordPropertyTests {
    @Test func readsThePathOrNothing() {
        var snapshot = PlayerPropertiesTests.snapshot
        #expect(PlayerProperties.value(of: "stream-record", in: snapshot) == .success(.string("")))
        snapshot.recordingPath = "/tmp/out.mkv"
        #expect(PlayerProperties.value(of: "stream-record", in: snapshot) == .success(.string("/tmp/out.mkv")))
    }

    @Test("Setting", arguments: [
        (JSONValue.string("/tmp/out.mkv"), Result<PropertyChange, IPCError>.success(.streamRecord("/tmp/out.mkv"))),
        (.string(""), .success(.streamRecord(""))),
        (.number(1), .failure(.unsupportedFormat)),
        (.bool(true), .failure(.unsupportedFormat)),
    ])
    func sets(value: JSONValue, change: Result<PropertyChange, IPCError>) {
        #expect(PlayerProperties.change(setting: "stream-record", to: value) == change)
    }
}
