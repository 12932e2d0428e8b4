import CDBus
import Glibc
import HPlayerKit

/// A private connection to the D-Bus session bus, owning one well-known name; unref'd on close.
///
/// Used by one thread at a time: made by the thread that starts the server, then read, written
/// and closed by the server's thread only.
final class BusConnection: @unchecked Sendable {
    private var connection: OpaquePointer?

    /// libdbus's locks, set up once before any other call.
    private static let threadsReady: Bool = dbus_threads_init_default() != 0

    /// Connects to the session bus and takes `name`. The bus is DBUS_SESSION_BUS_ADDRESS's, else
    /// the user's bus at $XDG_RUNTIME_DIR/bus; never one libdbus would autolaunch (a new
    /// dbus-daemon for this process alone).
    init(requesting name: String, environment: [String: String]) throws(BusError) {
        guard Self.threadsReady else { throw BusError(reason: "libdbus could not set up its locks") }
        guard let address = Self.sessionAddress(environment) else { throw BusError(reason: "no session bus address") }
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let opened = dbus_connection_open_private(address, &error) else { throw BusError(error) }
        // The bus gone is the server's end, not the program's.
        dbus_connection_set_exit_on_disconnect(opened, 0)
        guard dbus_bus_register(opened, &error) != 0 else {
            Self.release(opened)
            throw BusError(error)
        }
        let reply = dbus_bus_request_name(opened, name, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
        guard reply == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER else {
            Self.release(opened)
            throw dbus_error_is_set(&error) != 0 ? BusError(error) : BusError(reason: "the name \(name) is taken")
        }
        connection = opened
    }

    deinit { close() }

    /// Sends what is queued and reads what came, waiting up to `timeout` milliseconds for
    /// either; false once the bus has gone.
    func readWrite(timeout: Int32) -> Bool {
        guard let connection else { return false }
        return dbus_connection_read_write(connection, timeout) != 0
    }

    /// The next message read, nil when none is waiting.
    func nextMessage() -> BusMessage? {
        guard let connection, let message = dbus_connection_pop_message(connection) else { return nil }
        return BusMessage(owning: message)
    }

    /// Queues `message`; readWrite sends it.
    func send(_ message: BusMessage) {
        guard let connection else { return }
        _ = dbus_connection_send(connection, message.pointer, nil)
    }

    /// Sends what is queued (a reply to Quit), for half a second at most, then closes and releases
    /// the connection (the bus drops the name). Not dbus_connection_flush: a bus that stopped
    /// reading would hold the program's exit for ever.
    func close() {
        guard let connection else { return }
        self.connection = nil
        let deadline = MonotonicClock.now() + 0.5
        while dbus_connection_has_messages_to_send(connection) != 0, MonotonicClock.now() < deadline,
              dbus_connection_read_write(connection, 50) != 0 {}
        Self.release(connection)
    }

    private static func release(_ connection: OpaquePointer) {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    /// libdbus's own default would go on to "autolaunch:", which starts a daemon under X.
    static func sessionAddress(_ environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
        var status = stat()
        guard stat(runtime + "/bus", &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return "unix:path=\(runtime)/bus"
    }
}

/// A message, unref'd when the last reference goes.
final class BusMessage {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { dbus_message_unref(pointer) }

    var isMethodCall: Bool { dbus_message_get_type(pointer) == DBUS_MESSAGE_TYPE_METHOD_CALL }
    var interface: String? { dbus_message_get_interface(pointer).map { String(cString: $0) } }
    var member: String? { dbus_message_get_member(pointer).map { String(cString: $0) } }
    var path: String? { dbus_message_get_path(pointer).map { String(cString: $0) } }
    var wantsReply: Bool { dbus_message_get_no_reply(pointer) == 0 }
    /// nil when an argument is of a type MPRIS does not use.
    var arguments: [DBusValue]? { DBusValue.arguments(of: pointer) }

    /// The reply to this method call, carrying `values`; nil when libdbus ran out of memory.
    func reply(_ values: [DBusValue] = []) -> BusMessage? {
        guard let reply = dbus_message_new_method_return(pointer).map(BusMessage.init(owning:)),
              DBusValue.append(values, to: reply.pointer) else { return nil }
        return reply
    }

    /// The error reply `name` (org.freedesktop.DBus.Error.…) to this method call.
    func errorReply(_ name: String, _ text: String) -> BusMessage? {
        dbus_message_new_error(pointer, name, text).map(BusMessage.init(owning:))
    }

    static func signal(path: String, interface: String, name: String, _ values: [DBusValue]) -> BusMessage? {
        guard let signal = dbus_message_new_signal(path, interface, name).map(BusMessage.init(owning:)),
              DBusValue.append(values, to: signal.pointer) else { return nil }
        return signal
    }
}

public struct BusError: Error, Sendable {
    public var reason: String

    init(reason: String) {
        self.reason = reason
    }

    fileprivate init(_ error: DBusError) {
        reason = error.message.map { String(cString: $0) } ?? "unknown D-Bus error"
    }
}
