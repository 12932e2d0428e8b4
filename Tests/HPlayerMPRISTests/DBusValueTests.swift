import CDBus
@testable import HPlayerMPRIS
import Testing

struct DBusValueTests {
    @Test("Values written into a libdbus message read back the same, with their D-Bus signature", arguments: [
        (DBusValue.bool(true), "b"),
        (.int32(-7), "i"),
        (.uint32(7), "u"),
        (.int64(-5_000_000_000), "x"),
        (.uint64(5_000_000_000), "t"),
        (.double(0.25), "d"),
        (.string("Título ✓"), "s"),
        (.objectPath("/org/hplayer/track/3"), "o"),
        (.strings(["a", "", "c"]), "as"),
        (.strings([]), "as"),
        (.dictionary([:]), "a{sv}"),
        (.variant(.int64(1)), "v"),
        (.variant(.dictionary(["mpris:length": .int64(10), "xesam:artist": .strings(["x"]), "mpris:trackid": .objectPath("/t/1")])), "v"),
    ])
    func roundTrip(value: DBusValue, signature: String) throws {
        let message = try #require(dbus_message_new_signal("/org/mpris/MediaPlayer2", "org.example.Test", "Value").map(BusMessage.init(owning:)))
        #expect(DBusValue.append([value, .string("after")], to: message.pointer))
        #expect(String(cString: dbus_message_get_signature(message.pointer)) == signature + "s")
        #expect(message.arguments == [value, .string("after")])
    }

    @Test("A dictionary's values go in variants, and read back unwrapped")
    func dictionaryValues() throws {
        let message = try #require(dbus_message_new_signal("/o", "org.example.Test", "Value").map(BusMessage.init(owning:)))
        #expect(DBusValue.append([.dictionary(["Volume": .variant(.double(0.5)), "CanPlay": .bool(true)])], to: message.pointer))
        #expect(message.arguments == [.dictionary(["Volume": .double(0.5), "CanPlay": .bool(true)])])
    }

    @Test("The session bus: DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus when a socket is there; never autolaunch")
    func sessionAddress() {
        #expect(BusConnection.sessionAddress(["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"]) == "unix:path=/x")
        #expect(BusConnection.sessionAddress(["XDG_RUNTIME_DIR": "/nonexistent"]) == nil)
        #expect(BusConnection.sessionAddress(["XDG_RUNTIME_DIR": "/tmp"]) == nil)  // a folder without a bus
        #expect(BusConnection.sessionAddress([:]) == nil)
    }

    @Test("No session bus at the address: the connection fails, with a reason")
    func noBus() {
        #expect(throws: BusError.self) {
            try BusConnection(requesting: "org.mpris.MediaPlayer2.hplayer.test", environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        }
    }
}
