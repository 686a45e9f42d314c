import BoardTesting
import Foundation
import Testing

/// RELIABILITY.md M4 end to end: the real `corkd` under `scripts/realtime-shift.c`, an `LD_PRELOAD` shim that moves
/// only `CLOCK_REALTIME` (libfaketime also moves timer deadlines and hangs Swift's `Task.sleep`). The
/// wall clock is set back and forward an hour while the server runs; stored times follow it, rate limits do not.
@Suite(.startsProcesses(within: .minutes(3))) struct ProcessClockJumpTests {
    static let hour: Int64 = 3_600_000

    /// Sends `count` chat ops from `mut` and counts the acks and `rate_limited` rejects.
    static func burst(_ probe: WireProbe, from mut: Int, count: Int) async throws -> (acks: Int, limited: Int) {
        var lines = ""
        for m in mut..<(mut + count) { lines += #"{"type":"op","board":"main","mut":\#(m),"op":{"kind":"chat","text":"\#(m)"}}"# + "\n" }
        try await probe.sendRaw(Array(lines.utf8))
        var acks = 0
        var limited = 0
        while acks + limited < count {
            let object = try #require(try await probe.nextObject(), "the connection closed")
            switch object["type"] as? String {
            case "ack": acks += 1
            case "reject":
                #expect(object["code"] as? String == "rate_limited", "\(object)")
                limited += 1
            default: break
            }
        }
        return (acks, limited)
    }

    @Test func M4_aWallClockJumpOfTheServerMovesTimestampsButNotRateLimits() async throws {
        guard let cc = try? SpawnedProcess.tool("cc") else {
            print("ProcessClockJumpTests skipped: no C compiler (cc) on PATH to build scripts/realtime-shift.c")
            return
        }
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let shim = corkd.root.appendingPathComponent("realtime-shift.so")
        let shift = corkd.root.appendingPathComponent("realtime-shift")
        let source = CorkdProcess.packageRoot.appendingPathComponent("scripts/realtime-shift.c")
        let built = try await SpawnedProcess.run(
            cc, ["-shared", "-fPIC", "-O2", "-o", shim.path, source.path, "-ldl"], logDirectory: corkd.logDirectory, name: "cc")
        try #require(built.exit.isSuccess, "cc failed: \(built.standardError)")
        try "0\n".write(to: shift, atomically: false, encoding: .utf8)
        try Unprivileged.handOver(corkd.root)
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = shim.path
        environment["REALTIME_SHIFT_FILE"] = shift.path
        try await corkd.start(options: ["--rate", "2", "--burst", "40"], environment: environment)
        let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
        try await probe.send(#"{"type":"hello","version":1,"client":"test","token":"\#(corkd.ownerToken)","client_id":"jumper"}"#)
        _ = try await probe.expect(type: "welcome")
        try await probe.send(#"{"type":"subscribe","board":"main","presence":false}"#)
        _ = try await probe.expect(type: "subscribed", skipping: ["snapshot", "presence.state", "ping"])

        // The shim works: an hour back, and the server stamps its changes an hour back.
        try "\(-Self.hour)\n".write(to: shift, atomically: false, encoding: .utf8)
        try await Task.sleep(for: .milliseconds(100))
        try await probe.send(#"{"type":"op","board":"main","mut":1,"op":{"kind":"chat","text":"when"}}"#)
        let delta = try await probe.expect(type: "delta", skipping: ["ack", "ping", "presence.state"])
        let stamped = Int64(try #require(delta["at"] as? Int))
        let real = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(abs(real - Self.hour - stamped) < 60_000, "stamped \(stamped), real \(real): the shim did not move corkd's wall clock")

        // Another hour back with the bucket empty: a second later it has refilled a little (on the wall clock: nothing
        // for an hour). The rate is 2 ops/s, so a loaded machine's slowness never looks like a full bucket.
        var mut = 2
        let drained = try await Self.burst(probe, from: mut, count: 60)
        mut += 60
        #expect(drained.limited > 0, "the burst of 40 was used up: \(drained)")
        try "\(-2 * Self.hour)\n".write(to: shift, atomically: false, encoding: .utf8)
        try await Task.sleep(for: .milliseconds(1_100))
        let refilled = try await Self.burst(probe, from: mut, count: 10)
        mut += 10
        #expect(refilled.acks >= 1, "about 2 tokens a second after the wall clock went back an hour: \(refilled)")

        // Forward (+1 h from the real time, +3 h from the last reading) with the bucket empty: a second's tokens, not
        // a full bucket of 40 (what a wall-clock bucket would grant). The pause also ends the run of rate limiting.
        try "\(Self.hour)\n".write(to: shift, atomically: false, encoding: .utf8)
        try await Task.sleep(for: .milliseconds(1_100))
        let jumped = try await Self.burst(probe, from: mut, count: 40)
        #expect(jumped.acks < 20, "an hour forward granted a full bucket: \(jumped)")
        await probe.close()
        _ = try await corkd.terminate()
    }
}
