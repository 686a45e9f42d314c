import BoardHistory
import Testing

/// The history checker catches each planted violation and passes a clean history.
@Suite struct HistoryCheckerTests {
    /// A clean history: two clients, one with a kill in the middle (resend, resume), a rejected op, a no-op.
    static let clean = """
        {"t":"start","board":"b","client":"a","conn":1,"seq":0,"epoch":"e"}
        {"t":"start","board":"b","client":"z","conn":1,"seq":0,"epoch":"e"}
        {"t":"sent","board":"b","client":"a","mut":1}
        {"t":"ack","board":"b","client":"a","mut":1,"seq":1}
        {"t":"delta","board":"b","client":"a","conn":1,"seq":1,"epoch":"e","origin":"a","mut":1}
        {"t":"delta","board":"b","client":"z","conn":1,"seq":1,"epoch":"e","origin":"a","mut":1}
        {"t":"sent","board":"b","client":"a","mut":2}
        {"t":"sent","board":"b","client":"a","mut":2,"resend":true}
        {"t":"start","board":"b","client":"a","conn":2,"seq":1,"epoch":"e","resume":true}
        {"t":"ack","board":"b","client":"a","mut":2,"seq":2}
        {"t":"delta","board":"b","client":"a","conn":2,"seq":2,"epoch":"e","origin":"a","mut":2}
        {"t":"sent","board":"b","client":"z","mut":1}
        {"t":"reject","board":"b","client":"z","mut":1,"code":"not_found"}
        {"t":"sent","board":"b","client":"z","mut":2}
        {"t":"ack","board":"b","client":"z","mut":2,"noop":true}
        {"t":"start","board":"b","client":"z","conn":2,"seq":2,"epoch":"e"}
        {"t":"replica","board":"b","client":"a","seq":2,"hash":"h2"}
        {"t":"replica","board":"b","client":"z","seq":2,"hash":"h2"}
        {"t":"final","board":"b","seq":2,"hash":"h2","applied":[{"seq":1,"client":"a","mut":1},{"seq":2,"client":"a","mut":2}]}
        """

    func verdict(_ text: String) throws -> HistoryChecker.Verdict {
        HistoryChecker().check(try HistoryLog.parse(text))
    }

    /// The clean history with `line` (a prefix of one of its lines) replaced by `with`.
    func planted(_ line: String, _ with: String) -> String {
        let lines = Self.clean.split(separator: "\n").map(String.init)
        let index = lines.firstIndex { $0.hasPrefix(line) }!
        var copy = lines
        copy[index] = with
        return copy.joined(separator: "\n")
    }

    @Test func aCleanHistoryPasses() throws {
        let verdict = try verdict(Self.clean)
        #expect(verdict.violations == [])
        #expect(verdict.ackedOps == 2)
        #expect(verdict.resends == 1)
        #expect(verdict.dataLost == 0)
    }

    @Test func aGapIsCaught() throws {
        let text = Self.clean + "\n" + #"{"t":"delta","board":"b","client":"z","conn":1,"seq":3,"epoch":"e","origin":"q","mut":9}"#
        #expect(try verdict(text).byProperty[.reliable] == 1)
    }

    @Test func aDuplicateDeliveryIsCaught() throws {
        let text = Self.clean + "\n" + #"{"t":"delta","board":"b","client":"z","conn":1,"seq":1,"epoch":"e","origin":"a","mut":1}"#
        #expect(try verdict(text).byProperty[.unique] == 1)
    }

    @Test func aDeltaOutOfOrderIsCaught() throws {
        let text = Self.clean.replacingOccurrences(
            of: #"{"t":"delta","board":"b","client":"a","conn":2,"seq":2"#,
            with: #"{"t":"delta","board":"b","client":"a","conn":1,"seq":2"#)
            + "\n" + #"{"t":"delta","board":"b","client":"a","conn":1,"seq":1,"epoch":"e","origin":"a","mut":1}"#
        #expect(try verdict(text).byProperty[.ordered] == 1)
    }

    @Test func aLostAckedOpIsCaught() throws {
        let text = planted(#"{"t":"final""#, #"{"t":"final","board":"b","seq":2,"hash":"h2","applied":[{"seq":1,"client":"a","mut":1}]}"#)
        let found = try verdict(text)
        #expect(found.byProperty[.durable] == 1, "\(found.violations)")
    }

    @Test func aLostResendIsCaught() throws {
        // The resend of a#2 is refused as stale although it was never applied: the op is lost without an ack.
        let text = planted(#"{"t":"ack","board":"b","client":"a","mut":2"#, #"{"t":"reject","board":"b","client":"a","mut":2,"code":"stale_mut"}"#)
            .replacingOccurrences(of: #",{"seq":2,"client":"a","mut":2}"#, with: "")
            .replacingOccurrences(of: #"{"t":"delta","board":"b","client":"a","conn":2,"seq":2,"epoch":"e","origin":"a","mut":2}"#, with: "")
            .replacingOccurrences(of: #""seq":2,"hash":"h2""#, with: #""seq":1,"hash":"h1""#)
            .replacingOccurrences(of: #""client":"z","conn":2,"seq":2"#, with: #""client":"z","conn":2,"seq":1"#)
        let found = try verdict(text)
        #expect(found.byProperty[.resolved] == 1, "\(found.violations)")
        #expect(found.violations.first { $0.property == .resolved }?.detail.contains("stale_mut") == true)
        #expect(found.dataLost == 1, "\(found.violations)")
    }

    @Test func anOpWithoutAnyAnswerIsCaught() throws {
        let text = Self.clean + "\n" + #"{"t":"sent","board":"b","client":"z","mut":3}"#
        #expect(try verdict(text).byProperty[.resolved] == 1)
    }

    @Test func aSplitOpIsCaught() throws {
        // One op delivered as two deltas: a#1 at seq 1 and again at seq 3.
        let text = Self.clean + "\n" + #"{"t":"delta","board":"b","client":"a","conn":2,"seq":3,"epoch":"e","origin":"a","mut":1}"#
        #expect(try verdict(text).byProperty[.atomic] == 1)
    }

    @Test func aDivergedReplicaIsCaught() throws {
        let text = planted(#"{"t":"replica","board":"b","client":"z""#, #"{"t":"replica","board":"b","client":"z","seq":2,"hash":"hX"}"#)
        #expect(try verdict(text).byProperty[.converged] == 1)
    }

    @Test func aReplicaBehindTheServerIsCaught() throws {
        let text = planted(#"{"t":"replica","board":"b","client":"z""#, #"{"t":"replica","board":"b","client":"z","seq":1,"hash":"h1"}"#)
        #expect(try verdict(text).byProperty[.converged] == 1)
    }

    @Test func aResumeThatSkipsSeqsIsCaught() throws {
        let text = planted(
            #"{"t":"start","board":"b","client":"a","conn":2"#,
            #"{"t":"start","board":"b","client":"a","conn":2,"seq":0,"epoch":"e","resume":true}"#)
        #expect(try verdict(text).byProperty[.resumable] == 1)
    }

    @Test func twoOpsAtOneSeqAreCaught() throws {
        let text = planted(
            #"{"t":"delta","board":"b","client":"z","conn":1,"seq":1"#,
            #"{"t":"delta","board":"b","client":"z","conn":1,"seq":1,"epoch":"e","origin":"z","mut":7}"#)
        let found = try verdict(text)
        #expect(found.byProperty[.unique] == 1, "\(found.violations)")
    }

    @Test func aLineThatIsNotARecordIsRefusedWithItsNumber() {
        #expect(throws: HistoryLog.Failure.self) { try HistoryLog.parse("{\"t\":\"sent\",\"board\":\"b\"}\nnope") }
    }

    /// What the server derived: each expected key stored once and whole passes; a lost, doubled, unexpected or
    /// incomplete one is caught.
    @Test func derivedWorkIsStoredOnceAndWhole() throws {
        let fine = #"{"t":"derived","board":"b","what":"occurrence","expected":["r1","r2"],"found":["r2","r1"],"partial":[]}"#
        #expect(try verdict(Self.clean + "\n" + fine).violations == [])
        let cases: [(String, String)] = [
            (#""expected":["m1","m2"],"found":["m1"]"#, "mention m2 was never stored"),
            (#""expected":["m1"],"found":["m1","m1"]"#, "mention m1 was stored 2 times"),
            (#""expected":["m1"],"found":["m1","m9"]"#, "mention m9 was stored though no change called for it"),
            (#""expected":["m1"],"found":["m1"],"partial":["m1"]"#, "mention m1 was stored incomplete"),
        ]
        for (fields, detail) in cases {
            let line = #"{"t":"derived","board":"b","what":"mention","# + fields + "}"
            let found = try verdict(Self.clean + "\n" + line).violations
            #expect(found.map(\.property) == [.derived] && found.first?.detail == detail, "\(fields): \(found)")
        }
    }
}
