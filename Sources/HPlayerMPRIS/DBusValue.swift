import CDBus

/// The D-Bus values MPRIS needs, written into and read from a message with libdbus's
/// DBusMessageIter (its variadic dbus_message_append_args cannot be called from Swift).
public indirect enum DBusValue: Equatable, Sendable {
    case bool(Bool)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    /// `as`
    case strings([String])
    /// `a{sv}`: each value goes in a variant of its own.
    case dictionary([String: DBusValue])
    case variant(DBusValue)

    /// The value a variant holds; the value itself otherwise.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// Its D-Bus type signature.
    var signature: String {
        switch self {
        case .bool: return "b"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .strings: return "as"
        case .dictionary: return "a{sv}"
        case .variant: return "v"
        }
    }

    /// Appends the value at `iterator`; false when libdbus ran out of memory.
    func append(to iterator: inout DBusMessageIter) -> Bool {
        switch self {
        case .bool(let value): return Self.appendBasic(dbus_bool_t(value ? 1 : 0), type: TypeCode.boolean, to: &iterator)
        case .int32(let value): return Self.appendBasic(value, type: TypeCode.int32, to: &iterator)
        case .uint32(let value): return Self.appendBasic(value, type: TypeCode.uint32, to: &iterator)
        case .int64(let value): return Self.appendBasic(value, type: TypeCode.int64, to: &iterator)
        case .uint64(let value): return Self.appendBasic(value, type: TypeCode.uint64, to: &iterator)
        case .double(let value): return Self.appendBasic(value, type: TypeCode.double, to: &iterator)
        case .string(let value): return Self.appendText(value, type: TypeCode.string, to: &iterator)
        case .objectPath(let value): return Self.appendText(value, type: TypeCode.objectPath, to: &iterator)
        case .strings(let values):
            return Self.appendContainer(type: TypeCode.array, signature: "s", to: &iterator) { array in
                values.allSatisfy { Self.appendText($0, type: TypeCode.string, to: &array) }
            }
        case .dictionary(let members):
            return Self.appendContainer(type: TypeCode.array, signature: "{sv}", to: &iterator) { array in
                // Sorted: the same dictionary makes the same message.
                members.sorted { $0.key < $1.key }.allSatisfy { key, value in
                    Self.appendContainer(type: TypeCode.dictEntry, signature: nil, to: &array) { entry in
                        Self.appendText(key, type: TypeCode.string, to: &entry) && DBusValue.variant(value.unwrapped).append(to: &entry)
                    }
                }
            }
        case .variant(let inner):
            return Self.appendContainer(type: TypeCode.variant, signature: inner.signature, to: &iterator) { inner.append(to: &$0) }
        }
    }

    /// Reads the value at `iterator`; nil for a type MPRIS does not use.
    init?(reading iterator: inout DBusMessageIter) {
        switch dbus_message_iter_get_arg_type(&iterator) {
        case TypeCode.boolean: self = .bool(Self.readBasic(dbus_bool_t(0), &iterator) != 0)
        case TypeCode.int32: self = .int32(Self.readBasic(Int32(0), &iterator))
        case TypeCode.uint32: self = .uint32(Self.readBasic(UInt32(0), &iterator))
        case TypeCode.int64: self = .int64(Self.readBasic(Int64(0), &iterator))
        case TypeCode.uint64: self = .uint64(Self.readBasic(UInt64(0), &iterator))
        case TypeCode.double: self = .double(Self.readBasic(Double(0), &iterator))
        case TypeCode.string: self = .string(Self.readText(&iterator))
        case TypeCode.objectPath: self = .objectPath(Self.readText(&iterator))
        case TypeCode.variant:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            guard let value = DBusValue(reading: &inner) else { return nil }
            self = .variant(value)
        case TypeCode.array:
            var array = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &array)
            switch dbus_message_iter_get_element_type(&iterator) {
            case TypeCode.string:
                var values: [String] = []
                while dbus_message_iter_get_arg_type(&array) == TypeCode.string {
                    values.append(Self.readText(&array))
                    dbus_message_iter_next(&array)
                }
                self = .strings(values)
            case TypeCode.dictEntry:
                var members: [String: DBusValue] = [:]
                while dbus_message_iter_get_arg_type(&array) == TypeCode.dictEntry {
                    var entry = DBusMessageIter()
                    dbus_message_iter_recurse(&array, &entry)
                    guard dbus_message_iter_get_arg_type(&entry) == TypeCode.string else { return nil }
                    let key = Self.readText(&entry)
                    dbus_message_iter_next(&entry)
                    guard let value = DBusValue(reading: &entry) else { return nil }
                    members[key] = value.unwrapped
                    dbus_message_iter_next(&array)
                }
                self = .dictionary(members)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// The arguments of a message, in order; nil when one is of a type MPRIS does not use.
    static func arguments(of message: OpaquePointer) -> [DBusValue]? {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        var values: [DBusValue] = []
        repeat {
            guard let value = DBusValue(reading: &iterator) else { return nil }
            values.append(value)
        } while dbus_message_iter_next(&iterator) != 0
        return values
    }

    /// Appends `values` to a message; false when libdbus ran out of memory.
    static func append(_ values: [DBusValue], to message: OpaquePointer) -> Bool {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        return values.allSatisfy { $0.append(to: &iterator) }
    }

    /// libdbus's type codes (its DBUS_TYPE_ macros are casts Swift does not import).
    enum TypeCode {
        static let boolean = Int32(UInt8(ascii: "b"))
        static let int32 = Int32(UInt8(ascii: "i"))
        static let uint32 = Int32(UInt8(ascii: "u"))
        static let int64 = Int32(UInt8(ascii: "x"))
        static let uint64 = Int32(UInt8(ascii: "t"))
        static let double = Int32(UInt8(ascii: "d"))
        static let string = Int32(UInt8(ascii: "s"))
        static let objectPath = Int32(UInt8(ascii: "o"))
        static let array = Int32(UInt8(ascii: "a"))
        static let variant = Int32(UInt8(ascii: "v"))
        static let dictEntry = Int32(UInt8(ascii: "e"))
    }

    private static func appendBasic<Value>(_ value: Value, type: Int32, to iterator: inout DBusMessageIter) -> Bool {
        withUnsafePointer(to: value) { dbus_message_iter_append_basic(&iterator, type, $0) != 0 }
    }

    /// libdbus takes a pointer to the `const char *`. Swift's strings are valid UTF-8, as D-Bus
    /// requires; one with a NUL in it ends there.
    private static func appendText(_ text: String, type: Int32, to iterator: inout DBusMessageIter) -> Bool {
        text.withCString { characters in
            withUnsafePointer(to: characters) { dbus_message_iter_append_basic(&iterator, type, $0) != 0 }
        }
    }

    private static func appendContainer(type: Int32, signature: String?, to iterator: inout DBusMessageIter,
                                        _ body: (inout DBusMessageIter) -> Bool) -> Bool {
        var inner = DBusMessageIter()
        let opened = if let signature {
            signature.withCString { dbus_message_iter_open_container(&iterator, type, $0, &inner) != 0 }
        } else {
            dbus_message_iter_open_container(&iterator, type, nil, &inner) != 0
        }
        guard opened else { return false }
        guard body(&inner) else {
            dbus_message_iter_abandon_container(&iterator, &inner)
            return false
        }
        return dbus_message_iter_close_container(&iterator, &inner) != 0
    }

    private static func readBasic<Value>(_ initial: Value, _ iterator: inout DBusMessageIter) -> Value {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iterator, $0) }
        return value
    }

    private static func readText(_ iterator: inout DBusMessageIter) -> String {
        var characters: UnsafePointer<CChar>?
        withUnsafeMutablePointer(to: &characters) { dbus_message_iter_get_basic(&iterator, $0) }
        return characters.map { String(cString: $0) } ?? ""
    }
}
