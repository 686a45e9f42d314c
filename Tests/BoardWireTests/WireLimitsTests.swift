import BoardCore
import Foundation
import Testing
@testable import BoardWire

/// The limits table of Protocol.md against `WireLimits` and BoardCore's `Limits`.
@Suite struct WireLimitsTests {
    @Test func defaultsEqualTheDocTable() throws {
        let rows = try ProtocolDoc.load().tableRows(under: "Limits")
        var doc: [String: Int] = [:]
        for row in rows {
            guard let name = ProtocolDoc.codes(in: row[0]).first else { continue }
            #expect(Int(row[1]) != nil, "\(name): the default must be a plain integer, not \(row[1])")
            doc[name] = Int(row[1])
        }
        #expect(Set(doc.keys) == Set(WireLimits.fields.map(\.name)))
        for field in WireLimits.fields {
            #expect(doc[field.name] == WireLimits.defaults[keyPath: field.keyPath], "default of \(field.name)")
        }
    }

    @Test func theLimitsTheBriefFixes() {
        let d = WireLimits.defaults
        #expect(d.lineMax == 65536 && d.preauthLineMax == 4096 && d.lineTimeoutMs == 30000)
        #expect(d.jsonDepth == 16 && d.jsonKeys == 256 && d.stringMax == 16384)
        #expect(d.outboxBytes == 1_048_576 && d.writeTimeoutMs == 10000 && d.preauthOutputBytes == 65536)
        #expect(d.rateOpsPerS == 20 && d.rateBurst == 40 && d.errorBudget == 20 && d.errorWindowMs == 60000)
        #expect(d.connectionsMax == 20000 && d.connectionsPerUser == 20 && d.preauthPerIP == 100)
        #expect(d.heartbeatMs == 30000 && d.handshakeTimeoutMs == 5000 && d.authTimeoutMs == 5000)
        #expect(d.historyMax == 10000 && d.presenceTimeoutMs == 60000 && d.serverLineMax == 64 << 20)
    }

    @Test func contentLimitsComeFromBoardCore() {
        let d = WireLimits.defaults
        #expect(d.idMax == Limits.idMaxLength && d.titleMax == Limits.titleMaxCharacters)
        #expect(d.descriptionMaxBytes == Limits.descriptionMaxBytes && d.chatMaxBytes == Limits.chatMaxBytes)
        #expect(d.commentMaxBytes == Limits.commentMaxBytes && d.cardsMax == Limits.cardsMax)
        #expect(d.wipLimitMax == Limits.wipLimitMax && d.membersMax == Limits.membersDefault)
    }

    @Test func fieldNamesAreUniqueSnakeCaseAndCoverEveryProperty() {
        let names = WireLimits.fields.map(\.name)
        #expect(Set(names).count == names.count)
        for name in names { #expect(name.allSatisfy { $0.isLowercase || $0 == "_" }, "\(name)") }
        // Each key path is distinct: changing one field changes exactly one name's value.
        for field in WireLimits.fields {
            var limits = WireLimits()
            limits[keyPath: field.keyPath] = -1
            #expect(WireLimits.fields.filter { limits[name: $0.name] == -1 }.map(\.name) == [field.name])
        }
        #expect(Mirror(reflecting: WireLimits()).children.count == WireLimits.fields.count)
    }

    @Test func decodingKeepsDefaultsForMissingKeysAndIgnoresUnknownOnes() throws {
        let json = #"{"line_max":1024,"heartbeat_ms":5000,"future_limit":7}"#
        let limits = try JSONDecoder().decode(WireLimits.self, from: Data(json.utf8))
        var expected = WireLimits()
        expected.lineMax = 1024
        expected.heartbeatMs = 5000
        #expect(limits == expected)
    }

    @Test func welcomeLinesInTheDocAdvertiseTheDefaults() throws {
        let checked = ConformanceTests.roundTripAll(try ProtocolDoc.load())
        let welcomes = checked.compactMap { item -> ServerMessage.Welcome? in
            if case .welcome(let w)? = item.server { return w }
            return nil
        }
        #expect(!welcomes.isEmpty)
        for w in welcomes {
            #expect(w.limits == .defaults)
            #expect(w.heartbeatMs == w.limits.heartbeatMs)
            #expect(w.version == ProtocolVersion.current)
        }
    }
}
