import NIOCore
import NIOPosix
import Testing
@testable import BoardServer

/// A session's task prefers its connection's loop: its code, and a free default actor it calls, run on that loop,
/// so a line is handled where it was read and its answers are written without a thread crossing.
@Suite struct LoopTaskExecutorTests {
    actor Counter {
        var count = 0
        func increment(on loop: any EventLoop) -> Bool {
            count += 1
            return loop.inEventLoop
        }
    }

    @Test func aTaskPreferringALoopAndTheActorItCallsRunOnThatLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loop = group.next()
        let counter = Counter()
        let (onLoop, actorOnLoop) = await withTaskGroup(of: (Bool, Bool).self) { tasks in
            tasks.addTask(executorPreference: LoopTaskExecutor(loop)) {
                var allOnLoop = true
                var actorAlways = true
                for _ in 0..<100 {
                    allOnLoop = allOnLoop && loop.inEventLoop
                    actorAlways = await counter.increment(on: loop) && actorAlways
                    await Task.yield()
                }
                return (allOnLoop && loop.inEventLoop, actorAlways)
            }
            return await tasks.next() ?? (false, false)
        }
        #expect(onLoop, "the task's code ran off its loop")
        #expect(actorOnLoop, "the actor it called ran off the loop")
        #expect(await counter.count == 100)
        try await group.shutdownGracefully()
    }
}
