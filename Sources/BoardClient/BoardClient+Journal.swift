extension BoardClient {
    /// The journal writer: runs in ``withClient(_:_:)``'s task group, off the actor, so an `fsync` never blocks the
    /// client. Each wake writes the session's newest state (so changes made during a write share the next one).
    /// When the client stops it writes once more, so nothing acknowledged before the stop is lost.
    nonisolated func runJournal() async {
        guard let file = journalFile else { return }
        for await _ in journalKicks {
            await writeJournal(file)
        }
        await writeJournal(file)
        await journalEnded()
    }

    private nonisolated func writeJournal(_ file: JournalFile) async {
        guard let (journal, generation) = await journalToWrite() else { return }
        do {
            try file.save(journal)
            await journalWrote(generation, error: nil)
        } catch {
            await journalWrote(generation, error: error)
        }
    }

    func journalToWrite() -> (journal: ClientJournal, generation: Int)? {
        session.journalToWrite()
    }

    func journalWrote(_ generation: Int, error: ClientError?) {
        carryOut(session.journalWritten(generation, error: error, now: elapsed))
    }

    /// The writer has ended: nobody is left to answer a submitter still waiting.
    func journalEnded() {
        let waiting = durableWaiters
        durableWaiters = [:]
        for (_, continuation) in waiting { continuation.resume(throwing: stoppedError()) }
    }
}
