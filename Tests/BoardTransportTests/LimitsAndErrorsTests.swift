import BoardTransport
import BoardWire
import NIOCore
import Testing

@Suite("TransportLimits and TransportError")
struct LimitsAndErrorsTests {
    @Test("the defaults are Protocol.md's")
    func defaults() {
        let limits = TransportLimits()
        #expect(limits.preauthLineMax == 4096)
        #expect(limits.lineMax == 65536)
        #expect(limits.lineTimeout == .seconds(30))
        #expect(limits.handshakeTimeout == .seconds(5))
        #expect(limits.outboxBytes == 1024 * 1024)
        #expect(limits.preauthOutboxBytes == 64 * 1024)
        #expect(limits.writeTimeout == .seconds(10))
        #expect(TransportLimits(wire: WireLimits()) == limits)
        #expect(TransportLimits.server == limits)
    }

    @Test("init(wire:) follows the advertised limits")
    func fromWire() {
        var wire = WireLimits()
        wire.lineMax = 1000
        wire.preauthLineMax = 100
        wire.lineTimeoutMs = 1500
        wire.handshakeTimeoutMs = 250
        wire.outboxBytes = 5000
        wire.preauthOutputBytes = 500
        wire.writeTimeoutMs = 2000
        let limits = TransportLimits(wire: wire)
        #expect(limits.lineMax == 1000)
        #expect(limits.preauthLineMax == 100)
        #expect(limits.lineTimeout == .milliseconds(1500))
        #expect(limits.handshakeTimeout == .milliseconds(250))
        #expect(limits.outboxBytes == 5000)
        #expect(limits.preauthOutboxBytes == 500)
        #expect(limits.writeTimeout == .seconds(2))
    }

    @Test("the client reads server lines up to server_line_max from the start, without a line deadline")
    func client() {
        let limits = TransportLimits.client
        #expect(limits.preauthLineMax == 64 * 1024 * 1024)
        #expect(limits.lineMax == 64 * 1024 * 1024)
        #expect(limits.lineTimeout == nil)
    }

    @Test("transport errors map to wire codes where the protocol has one")
    func wireCodes() {
        #expect(TransportError.lineTooLong(limit: 1).wireCode == .lineTooLong)
        #expect(TransportError.lineTimeout(milliseconds: 1).wireCode == .lineTimeout)
        #expect(TransportError.slowConsumer("x").wireCode == .slowConsumer)
        #expect(TransportError.handshakeTimeout(milliseconds: 1).wireCode == nil)
        #expect(TransportError(.pinMismatch, "x").wireCode == nil)
        #expect(ErrorCode.lineTooLong.closesConnection && ErrorCode.slowConsumer.closesConnection)
        #expect("\(TransportError.Code.lineTooLong)" == "line_too_long")
    }
}
