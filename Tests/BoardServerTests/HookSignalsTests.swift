import BoardCore
import Testing

@testable import BoardServer

/// The commit notes a board drops for the webhook deliverer flow only while a hook may exist, so a server without
/// webhooks wakes no deliverer task per op.
@Suite struct HookSignalsTests {
    /// The signals yielded so far (the stream is buffered; finishing it ends the iteration).
    static func drained(_ signals: HookSignals) async -> [HookSignals.Signal] {
        signals.finish()
        var seen: [HookSignals.Signal] = []
        for await signal in signals.stream { seen.append(signal) }
        return seen
    }

    static func commits(_ seen: [HookSignals.Signal]) -> Int {
        seen.filter { if case .committed = $0 { true } else { false } }.count
    }

    @Test func noCommitNoteFlowsBeforeAnyHookIsKnown() async {
        let signals = HookSignals()
        signals.committed(BoardID("main"))
        signals.poll()
        #expect(Self.commits(await Self.drained(signals)) == 0)
    }

    @Test func aHookChangeArmsTheNotesUntilAReadFindsNoHook() async {
        let signals = HookSignals()
        signals.hooksChanged()
        signals.committed(BoardID("main"))
        signals.hooksRead(any: true)
        signals.committed(BoardID("main"))
        signals.hooksRead(any: false)
        signals.committed(BoardID("main"))
        signals.poll()
        signals.committed(BoardID("main"))
        #expect(Self.commits(await Self.drained(signals)) == 2)
    }
}
