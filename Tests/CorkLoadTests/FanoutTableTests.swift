import Testing

@testable import cork_load

@Suite struct FanoutTableTests {
    @Test func theLastOfTheSubscribersRecordsTheLatestArrival() {
        let table = FanoutTable(publishers: 2)
        table.sending(publisher: 1, mut: 7, at: 1_000, subscribers: 3)
        #expect(table.received(publisher: 1, mut: 7, at: 1_500) == .pending)
        #expect(table.received(publisher: 1, mut: 7, at: 4_000) == .pending)
        // The last to count off arrived earlier than another: the latency is to the latest arrival.
        #expect(table.received(publisher: 1, mut: 7, at: 3_000) == .complete(latencyNs: 3_000, sentNs: 1_000))
    }

    @Test func aSlotReusedByALaterOpIsAnOverrunNotALatency() {
        let table = FanoutTable(publishers: 1)
        table.sending(publisher: 0, mut: 1, at: 10, subscribers: 2)
        table.sending(publisher: 0, mut: 1 + UInt64(FanoutTable.capacity), at: 20, subscribers: 1)
        #expect(table.received(publisher: 0, mut: 1, at: 30) == .overrun)
        #expect(table.received(publisher: 0, mut: 1 + UInt64(FanoutTable.capacity), at: 50) == .complete(latencyNs: 30, sentNs: 20))
        #expect(table.received(publisher: 5, mut: 1, at: 50) == .overrun)
    }

    @Test func publishersDoNotShareSlots() {
        let table = FanoutTable(publishers: 2)
        table.sending(publisher: 0, mut: 4, at: 100, subscribers: 1)
        table.sending(publisher: 1, mut: 4, at: 200, subscribers: 1)
        #expect(table.received(publisher: 0, mut: 4, at: 150) == .complete(latencyNs: 50, sentNs: 100))
        #expect(table.received(publisher: 1, mut: 4, at: 260) == .complete(latencyNs: 60, sentNs: 200))
    }
}

@Suite struct StreamHashTests {
    func hash(_ lines: [String]) -> StreamHash {
        var hash = StreamHash()
        for line in lines { Array(line.utf8).withUnsafeBytes { hash.add($0) } }
        return hash
    }

    @Test func equalStreamsHashEqualAndAnyChangeShows() {
        let lines = [#"{"type":"delta","seq":1}"#, #"{"type":"delta","seq":2,"op":{"kind":"chat","text":"hello there"}}"#]
        #expect(hash(lines) == hash(lines))
        #expect(hash(lines).lines == 2)
        #expect(hash(lines) != hash(lines.reversed()))
        #expect(hash(lines) != hash([lines[0]]))
        #expect(hash(lines) != hash([lines[0], lines[1].replacingOccurrences(of: "there", with: "therE")]))
        // Moving bytes across the line boundary changes the hash too.
        #expect(hash(["ab", "c"]) != hash(["a", "bc"]))
    }
}

/// What the verdict blames for paced slots that were never sent.
@Suite struct UnsentCauseTests {
    @Test func lostPublishersAreNamedNotTheServersSpeed() {
        #expect(Summary.unsentCause(publishers: 4, completed: 2) == "2 of 4 publisher(s) lost their connection")
        #expect(Summary.unsentCause(publishers: 4, completed: 4) == "the server answered too slowly")
    }
}

