import BoardCore
import Testing
@testable import BoardWire

/// The error and reject code tables of Protocol.md against the Swift enums, so neither can change alone.
@Suite struct ErrorCodeTests {
    /// `code -> retryable` from one table of Protocol.md.
    static func table(_ heading: String) throws -> [String: Bool] {
        var out: [String: Bool] = [:]
        for row in try ProtocolDoc.load().tableRows(under: heading) {
            guard let code = ProtocolDoc.codes(in: row[0]).first, row.count > 1 else { continue }
            #expect(out[code] == nil, "\(code) is listed twice under \(heading)")
            #expect(row[1] == "yes" || row[1] == "no", "\(code): retryable must be yes or no")
            out[code] = row[1] == "yes"
        }
        return out
    }

    @Test func closingCodesMatchTheDocTable() throws {
        let doc = try ErrorCodeTests.table("Closes the connection")
        let closing = ErrorCode.allCases.filter(\.closesConnection)
        #expect(Set(doc.keys) == Set(closing.map(\.rawValue)))
        for code in closing { #expect(doc[code.rawValue] == code.retryable, "retryable of \(code)") }
    }

    @Test func stayOpenCodesMatchTheDocTable() throws {
        let doc = try ErrorCodeTests.table("Connection stays open")
        let open = ErrorCode.allCases.filter { !$0.closesConnection }
        #expect(Set(doc.keys) == Set(open.map(\.rawValue)))
        for code in open { #expect(doc[code.rawValue] == code.retryable, "retryable of \(code)") }
    }

    @Test func theClosingSetIsTheOneTheBriefNames() {
        let closing: Set<ErrorCode> = [
            .lineTooLong, .unauthenticated, .authFailed, .tokenExpired, .tokenRevoked, .serverFull, .slowConsumer,
            .tooManyErrors, .lineTimeout,
        ]
        #expect(Set(ErrorCode.allCases.filter(\.closesConnection)) == closing)
        #expect(ErrorCode.allCases.count == 24)
        #expect(ErrorCode.rateLimited.retryable && ErrorCode.storageBusy.retryable && ErrorCode.internal.retryable)
        #expect(!ErrorCode.unsupportedVersion.closesConnection && !ErrorCode.unsupportedVersion.retryable)
    }

    @Test func errorCodeRawValuesAreSnakeCase() {
        for code in ErrorCode.allCases {
            #expect(code.rawValue.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" }, "\(code.rawValue)")
            #expect(ErrorCode(rawValue: code.rawValue) == code)
        }
    }

    @Test func rejectCodesMatchTheDocTable() throws {
        let rows = try ProtocolDoc.load().tableRows(under: "Op rejection codes")
        var sources: [String: String] = [:]
        var retryable: [String: Bool] = [:]
        for row in rows {
            guard let code = ProtocolDoc.codes(in: row[0]).first else { continue }
            retryable[code] = row[1] == "yes"
            sources[code] = row[2]
        }
        #expect(Set(retryable.keys) == Set(RejectCode.allCases.map(\.rawValue)))
        for code in RejectCode.allCases {
            #expect(retryable[code.rawValue] == code.retryable, "retryable of \(code)")
            let isReducer: Bool = if case .rejected = code { true } else { false }
            #expect(sources[code.rawValue] == (isReducer ? "reducer" : "server"), "source of \(code)")
        }
    }

    @Test func rejectCodesCoverEveryRejectionCodeAndRoundTrip() {
        for code in Rejection.Code.allCases {
            #expect(RejectCode(rawValue: code.rawValue) == .rejected(code))
        }
        for code in RejectCode.allCases {
            #expect(RejectCode(rawValue: code.rawValue) == code)
        }
        #expect(RejectCode(rawValue: "teleported") == nil)
        #expect(Set(RejectCode.allCases.map(\.rawValue)).count == RejectCode.allCases.count)
    }

    @Test func wireErrorTakesItsFlagsFromTheCode() {
        let full = WireError(.serverFull, "too many connections", retryAfterMs: 2000)
        #expect(full.closesConnection && full.retryable)
        let bad = WireError(.badRequest, "missing field `board`", req: 4)
        #expect(!bad.closesConnection && !bad.retryable && bad.req == 4)
    }
}
