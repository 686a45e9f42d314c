import BoardTesting
import Foundation
import Testing

/// RELIABILITY.md D3 end to end: the real `corkd` with its data directory on a small tmpfs that the test fills up.
/// Ops are then rejected with `storage_full` (never acked), reads keep working, writes succeed again by themselves
/// once space is freed, and after a restart every acked op is in the store and no rejected one is. Mounting needs
/// root (CI runs the tests as root); elsewhere the test prints why it did not run.
@Suite(.startsProcesses(within: .minutes(4))) struct ProcessDiskFullTests {
    /// Sends one chat op and returns its answer: the ack's seq, or the reject's code.
    static func op(_ probe: WireProbe, mut: Int, text: String) async throws -> (seq: Int?, code: String?) {
        try await probe.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"chat","text":"\#(text)"}}"#)
        while true {
            let answer = try #require(try await probe.nextObject(), "the connection closed after op \(mut)")
            switch answer["type"] as? String {
            case "ack": return (answer["seq"] as? Int, nil)
            case "reject": return (nil, answer["code"] as? String)
            default: continue
            }
        }
    }

    /// Fills the file system holding `directory` with `filler` until a write fails (no space left).
    static func fill(_ filler: URL) throws {
        FileManager.default.createFile(atPath: filler.path, contents: nil)
        let handle = try FileHandle(forWritingTo: filler)
        defer { try? handle.close() }
        let chunk = Data(repeating: 0x2E, count: 16 * 1024)
        for _ in 0..<100_000 {
            do { try handle.write(contentsOf: chunk) } catch { break }
        }
        // A last few bytes where a whole chunk no longer fit.
        for _ in 0..<4_096 {
            do { try handle.write(contentsOf: Data([0x2E])) } catch { break }
        }
    }

    @Test func D3_aFullDiskRejectsOpsWithStorageFullLosesNoAckedOpAndRecovers() async throws {
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let data = corkd.dataDirectory
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let mount = try await SpawnedProcess.run(
            try SpawnedProcess.tool("mount"), ["-t", "tmpfs", "-o", "size=4m,mode=0755", "corkd-disk-full", data.path],
            logDirectory: corkd.logDirectory, name: "mount")
        guard mount.exit.isSuccess else {
            print("ProcessDiskFullTests skipped: mounting a tmpfs is not permitted here (\(mount.standardError))")
            return
        }
        // Unmounted with an awaited child, never a blocking wait: a blocked thread of the cooperative pool stalls
        // every other test in the process.
        var failure: (any Error)?
        do { try await Self.exercise(corkd, data: data) } catch { failure = error }
        corkd.cleanup()
        _ = try? await SpawnedProcess.run(
            try SpawnedProcess.tool("umount"), ["-l", data.path], logDirectory: corkd.logDirectory, name: "umount")
        if let failure { throw failure }
    }

    /// The scenario itself, on a corkd whose data directory is the mounted tmpfs.
    private static func exercise(_ corkd: CorkdProcess, data: URL) async throws {
        try Unprivileged.handOver(corkd.root)
        try await corkd.start()
        let probe = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
        try await probe.send(#"{"type":"hello","version":1,"client":"test","token":"\#(corkd.ownerToken)","client_id":"filler"}"#)
        _ = try await probe.expect(type: "welcome")

        let text = String(repeating: "full? ", count: 600)
        var acked: [Int: Int] = [:]  // mut -> seq
        var rejected: [Int] = []
        var mut = 0
        for _ in 0..<5 {
            mut += 1
            let answer = try await op(probe, mut: mut, text: text)
            acked[mut] = try #require(answer.seq, "op \(mut) before the disk filled: \(answer)")
        }
        let filler = data.appendingPathComponent("filler")
        try fill(filler)
        while rejected.isEmpty, mut < 400 {
            mut += 1
            let answer = try await op(probe, mut: mut, text: text)
            if let seq = answer.seq {
                acked[mut] = seq
            } else {
                #expect(answer.code == "storage_full", "op \(mut) on a full disk: \(answer)")
                rejected.append(mut)
            }
        }
        try #require(!rejected.isEmpty, "no op was rejected on a full 4 MiB tmpfs after \(mut) ops")
        // Still full: more ops are rejected the same way; reads keep working; the connection stays open.
        for _ in 0..<3 {
            mut += 1
            let answer = try await op(probe, mut: mut, text: text)
            if let seq = answer.seq { acked[mut] = seq } else {
                #expect(answer.code == "storage_full")
                rejected.append(mut)
            }
        }
        try await probe.send(#"{"type":"ping","req":"reads"}"#)
        #expect(try await probe.expect(type: "pong")["req"] as? String == "reads")

        // Space again: writes succeed by themselves (no restart, no reconnect).
        try FileManager.default.removeItem(at: filler)
        mut += 1
        let after = try await op(probe, mut: mut, text: "space again")
        acked[mut] = try #require(after.seq, "the first op after space came back: \(after)")
        await probe.close()

        // After a restart, every acked op is in the store, in seq order with no gap, and no rejected one is.
        _ = try await corkd.terminate()
        try await corkd.restart()
        let reader = try await WireProbe.connect(port: corkd.port, fingerprint: try corkd.pinned())
        try await reader.send(#"{"type":"hello","version":1,"client":"test","token":"\#(corkd.ownerToken)","client_id":"reader"}"#)
        _ = try await reader.expect(type: "welcome")
        try await reader.send(#"{"type":"subscribe","board":"main","presence":false}"#)
        let subscribed = try await reader.expect(type: "subscribed", skipping: ["snapshot", "presence.state", "ping"])
        let head = try #require(subscribed["seq"] as? Int)
        try await reader.send(#"{"type":"fetch","board":"main","from":1,"to":\#(head)}"#)
        var stored: [Int: Int] = [:]  // seq -> mut, for this client's ops
        var seqs: [Int] = []
        while true {
            let object = try #require(try await reader.nextObject())
            if object["type"] as? String == "ok" { break }
            guard object["type"] as? String == "delta", let seq = object["seq"] as? Int else { continue }
            seqs.append(seq)
            if object["client_id"] as? String == "filler", let m = object["mut"] as? Int { stored[seq] = m }
        }
        print("ProcessDiskFullTests: \(acked.count) acked, rejected \(rejected), head \(head), \(stored.count) stored")
        #expect(seqs == Array(1...head), "seq order, no gap")
        for (m, seq) in acked { #expect(stored[seq] == m, "acked op \(m) (seq \(seq)) is stored") }
        #expect(Set(stored.values).isDisjoint(with: rejected), "no rejected op was stored")
        await reader.close()
        _ = try await corkd.terminate()
    }
}
