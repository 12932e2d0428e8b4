import CSQLite

/// A failed SQLite call: its extended result code and message.
struct SQLiteError: Error {
    let code: Int32
    let message: String

    /// Another connection held the database locked for longer than the busy timeout: the
    /// database is sound, and a later try may succeed.
    var isBusy: Bool { code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }
}

/// A value bound to a statement's `?` parameter.
enum SQLiteValue {
    case integer(Int64)
    case real(Double)
    case text(String)
    case null

    init(_ integer: Int64?) { self = integer.map(SQLiteValue.integer) ?? .null }
    init(_ text: String?) { self = text.map(SQLiteValue.text) ?? .null }
}

/// The current row of a statement being stepped; valid only inside the closure it is given to.
struct SQLiteRow {
    fileprivate let statement: OpaquePointer

    /// nil where the column is NULL.
    func integer(_ column: Int32) -> Int64? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, column)
    }

    /// nil where the column is NULL.
    func real(_ column: Int32) -> Double? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
    }

    /// nil where the column is NULL.
    func text(_ column: Int32) -> String? {
        sqlite3_column_text(statement, column).map { String(cString: $0) }
    }
}

/// One connection to an SQLite database file: the few calls the disk cache makes, with every
/// statement finalized on every path. Not thread-safe: its owner serializes the calls.
final class SQLiteDatabase {
    private let connection: OpaquePointer

    /// Opens the file, creating an empty database where there is none. A file that is not a
    /// database opens without complaint: the first statement fails.
    init(path: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        // No mutex of SQLite's own: the owner's lock already serializes every call.
        let status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(handle)
            throw SQLiteError(code: status, message: message)
        }
        sqlite3_extended_result_codes(handle, 1)
        connection = handle
    }

    deinit {
        sqlite3_close_v2(connection)
    }

    /// Runs SQL text of one or more statements whose rows, if any, are not wanted.
    func execute(_ sql: String) throws(SQLiteError) {
        guard sqlite3_exec(connection, sql, nil, nil, nil) == SQLITE_OK else { throw lastError() }
    }

    /// The row id the last INSERT on this connection gave.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(connection) }

    /// Runs one statement with `values` bound to its parameters, in order.
    func run(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) {
        _ = try query(sql, values) { _ in () }
    }

    /// Runs one statement with `values` bound to its parameters, in order; each row it gives is
    /// read by `row`.
    func query<Row>(_ sql: String, _ values: [SQLiteValue] = [], row: (SQLiteRow) -> Row) throws(SQLiteError) -> [Row] {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &prepared, nil) == SQLITE_OK, let statement = prepared else {
            sqlite3_finalize(prepared)
            throw lastError()
        }
        defer { sqlite3_finalize(statement) }
        try bind(values, to: statement)
        var rows: [Row] = []
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: rows.append(row(SQLiteRow(statement: statement)))
            case SQLITE_DONE: return rows
            default: throw lastError()
            }
        }
    }

    /// Reads every page and checks the structure (PRAGMA quick_check), so damage shows at once
    /// rather than in some later statement.
    func checkIntegrity() throws(SQLiteError) {
        let report = try query("PRAGMA quick_check") { $0.text(0) ?? "" }
        guard report == ["ok"] else { throw SQLiteError(code: SQLITE_CORRUPT, message: report.joined(separator: "; ")) }
    }

    /// Runs `body` in a transaction that takes the write lock at once (BEGIN IMMEDIATE): a
    /// transaction that starts reading and only later writes could find another process has
    /// written meanwhile and fail with SQLITE_BUSY at once, where waiting up front just waits.
    /// Commits when `body` returns, rolls back when it throws.
    func writeTransaction<Result>(_ body: () throws(SQLiteError) -> Result) throws(SQLiteError) -> Result {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollBack()
            throw error
        }
    }

    /// Ends the open transaction, if an error has not already ended it.
    private func rollBack() {
        if sqlite3_get_autocommit(connection) == 0 {
            sqlite3_exec(connection, "ROLLBACK", nil, nil, nil)
        }
    }

    private func bind(_ values: [SQLiteValue], to statement: OpaquePointer) throws(SQLiteError) {
        // SQLITE_TRANSIENT, a macro Swift cannot import: SQLite copies the text before the call returns.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, value) in values.enumerated() {
            let parameter = Int32(index + 1)
            let status = switch value {
            case .integer(let integer): sqlite3_bind_int64(statement, parameter, integer)
            case .real(let real): sqlite3_bind_double(statement, parameter, real)
            case .text(let text): sqlite3_bind_text(statement, parameter, text, -1, transient)
            case .null: sqlite3_bind_null(statement, parameter)
            }
            guard status == SQLITE_OK else { throw lastError() }
        }
    }

    private func lastError() -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(connection), message: String(cString: sqlite3_errmsg(connection)))
    }
}
