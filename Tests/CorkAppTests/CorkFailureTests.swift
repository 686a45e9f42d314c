import BoardClient
import BoardCore
import BoardWire
import Testing

@testable import CorkApp

/// Every failure gets its documented exit code.
@Suite struct CorkFailureTests {
    @Test func clientErrorsMapToExitCodes() {
        #expect(CorkFailure(ClientError(.cannotConnect, "refused")).exitCode == .cannotConnect)
        #expect(CorkFailure(ClientError(.tls, "pin")).exitCode == .cannotConnect)
        for code in [ErrorCode.authFailed, .tokenRevoked, .tokenExpired] {
            #expect(CorkFailure(ClientError.server(WireError(code, "no"))).exitCode == .cannotConnect)
        }
        #expect(CorkFailure(ClientError.server(WireError(.notFound, "no board x"))).exitCode == .notFound)
        #expect(CorkFailure(ClientError(.timeout, "slow")).exitCode == .failure)
        let reject = OpRejection(board: "main", mut: 1, code: .rejected(.wipLimit), message: "DOING is full")
        #expect(CorkFailure(ClientError.rejected(reject)) == CorkFailure(reject: reject))
        #expect(CorkFailure(reject: reject).exitCode == .rejected)
        #expect(CorkFailure(reject: reject).message == "wip_limit: DOING is full")
    }

    @Test func resolutionAndQueryErrorsAreNotFoundOrUsage() {
        #expect(CorkFailure(ResolutionError(.notFound, "no card #9")).exitCode == .notFound)
        #expect(CorkFailure(ResolutionError(.gone, "purged")).exitCode == .notFound)
        #expect(CorkFailure(ResolutionError(.ambiguous, "could be")).exitCode == .usage)
        #expect(CorkFailure.from(QueryError(.badValue, "bad", at: 0)).exitCode == .usage)
        #expect(CorkFailure.from(CorkFailure(.notFound, "x")).exitCode == .notFound)
    }

    @Test func aDuplicateRefRejectNamesTheCard() {
        let reject = OpRejection(
            board: "main", mut: 2, code: .rejected(.duplicateRef), message: "card #4 already has ref ci:1",
            current: .object(["card": .string("c9"), "number": .int(4)]))
        #expect(CorkFailure(reject: reject).duplicateRefCard == "c9")
        #expect(CorkFailure(.rejected, "x").duplicateRefCard == nil)
    }

    @Test func theHelpListsEveryExitCode() {
        for code in CorkExitCode.allCases {
            #expect(CorkExitCode.helpText.contains("  \(code.rawValue)  "), "\(code)")
        }
    }
}
