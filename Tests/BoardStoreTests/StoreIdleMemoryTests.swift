import Foundation
import GRDB
import Testing
@testable import BoardStore

/// The store gives back the read-only connections a burst opened (`releaseIdleMemory`, called with
/// corkd's memory trim); reads go on through fresh ones.
@Suite(.timeLimit(.minutes(1))) struct StoreIdleMemoryTests {
    /// GRDB names each reader connection by the order it was made (`….reader.N`): the same reader serves reads one
    /// after another until the release closes it, and the next read makes a new one.
    @Test func releasingIdleMemoryClosesTheReadersAndTheNextReadOpensOne() async throws {
        try await StoreFixtures.withStore { store, _ in
            let reader = { try await store.read("which reader") { $0.description } }
            let first = try await reader()
            #expect(first.hasSuffix(".reader.1"), "\(first)")
            #expect(try await reader() == first, "an idle reader serves the next read")
            store.releaseIdleMemory()
            let next = try await reader()
            #expect(next.hasSuffix(".reader.2"), "the reader was kept: \(next)")
            // The store reads as before.
            #expect(try await store.boards().isEmpty)
        }
    }
}
