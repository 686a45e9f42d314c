import BoardCore
import BoardStore
import BoardWire
import NIOCore

extension BoardActor {
    /// Subscribes a session: the missed deltas (or a snapshot), `subscribed`, then everyone's presence. With
    /// `present` false the session follows the board without being present (Protocol.md, "subscribe").
    ///
    /// After reading the retained changes from the store if a resume needs them and they are not loaded yet, it
    /// runs without a suspension point, so no committed change can fall between the catch-up and the live stream.
    func subscribe(
        _ session: SessionRef, since: UInt64?, epoch clientEpoch: String?, present: Bool = true, req: RequestID?
    ) async {
        settleIfPublished()
        if let since, since < committed.seq { await loadRetained() }
        settleIfPublished()
        guard committed.members[session.user] != nil else {
            session.outbox.send(Lines.error(WireError(.notFound, "no board \(id)", req: req, board: id)))
            return
        }
        let seq = committed.seq
        var lines: [ByteBuffer] = []
        var reason: ServerMessage.SnapshotReason? = .initial
        if let since {
            if clientEpoch != epoch {
                reason = .resync
            } else if since > seq {
                session.outbox.send(
                    Lines.error(
                        WireError(.badRequest, "since \(since) is ahead of board \(id), which is at seq \(seq)", req: req, board: id)))
                return
            } else if let missed = retained(from: since + 1, to: seq) {
                lines = missed
                reason = nil
            } else {
                reason = .resync
            }
        }
        if let reason { lines.append(snapshotLine(req: req, reason: reason)) }
        lines.append(
            Lines.line(.subscribed(ServerMessage.Subscribed(req: req, board: id, seq: seq, epoch: epoch, hash: committedHash()))))
        configuration.metrics.subscribed(snapshot: reason)
        subscribers[session.id] = session
        let wasPresent = presence[session.id] != nil
        if present {
            presence[session.id] = presence[session.id]
                ?? ServerMessage.PresenceEntry(session: session.id, user: session.user, state: .viewing)
        } else if wasPresent {
            presence[session.id] = nil
            presenceUpdated[session.id] = nil
        }
        lines.append(presence.stateLine(board: id))
        // Joins the fan-out and writes these lines under its lock, with a batch the writer published meanwhile.
        publication.send(lines, to: session, after: seq, joining: true)
        if let entry = presence[session.id], !wasPresent {
            presenceChanged(entry, except: session.id)
        } else if wasPresent && !present {
            presenceLeft(session.id, user: session.user)
        }
    }

    /// The `snapshot` line of `committed`. The board's JSON is encoded once per seq — with a thousand members it is
    /// tens of kilobytes, and a thousand people joining would otherwise encode it a thousand times —, the envelope
    /// once per request. The bytes are exactly those of `Lines.line(.snapshot(…))`: `state` is the last key of the
    /// envelope, so the envelope is encoded around a placeholder board whose JSON is then replaced.
    func snapshotLine(req: RequestID?, reason: ServerMessage.SnapshotReason) -> ByteBuffer {
        let message = ServerMessage.snapshot(
            ServerMessage.Snapshot(req: req, board: id, seq: committed.seq, epoch: epoch, reason: reason, state: committed))
        let state: [UInt8]
        if let cached = snapshotCache, cached.seq == committed.seq {
            state = cached.state
        } else if let encoded = try? LineWriter.encode(committed) {
            state = encoded
            snapshotCache = (committed.seq, encoded)
        } else {
            return Lines.line(message)
        }
        let placeholder = Board(id: id, name: "", owner: "corkd")
        let closing = UInt8(ascii: "}")
        guard
            var line = try? LineWriter.encode(
                ServerMessage.snapshot(
                    ServerMessage.Snapshot(
                        req: req, board: id, seq: committed.seq, epoch: epoch, reason: reason, state: placeholder))),
            let placeholderJSON = try? LineWriter.encode(placeholder),
            line.count > placeholderJSON.count, line.last == closing,
            line.dropLast().suffix(placeholderJSON.count).elementsEqual(placeholderJSON)
        else { return Lines.line(message) }
        line.removeLast(placeholderJSON.count + 1)
        line.reserveCapacity(line.count + state.count + 2)
        line.append(contentsOf: state)
        line.append(closing)
        line.append(0x0A)
        return ByteBuffer(bytes: line)
    }

    /// How long presence lines wait to be written together: joins, changes and leaves within this window reach each
    /// subscriber in one write (Protocol.md, "presence"). A thousand people joining one board would otherwise cost
    /// every subscriber a write and a TLS record per join (a million writes).
    ///
    /// 20 ms up to 100 subscribers, then 1 ms more per 10 subscribers, at most 100 ms: each flush costs one write
    /// per subscriber, so on a big board the window grows with the board and the writes per second stay about the
    /// same (at 1,000 subscribers, 10 flushes a second instead of 50). A person's view of the others lags by a tenth
    /// of a second at most.
    static func presenceFlushMs(subscribers: Int) -> Int {
        min(100, 20 + max(0, subscribers - 100) / 10)
    }

    /// Queues a presence line for every subscriber but the session it is about, and schedules the flush.
    func queuePresence(_ line: ByteBuffer, about session: SessionID?) {
        presenceQueue.append((line, session))
        guard !presenceFlushScheduled, configuration.flushesPresence else { return }
        presenceFlushScheduled = true
        let wait = Self.presenceFlushMs(subscribers: subscribers.count)
        let clock = self.clock
        Task {
            await clock.sleep(milliseconds: Int64(wait))
            await self.flushPresence()
        }
    }

    /// Writes the queued presence lines in order as one buffer shared by every subscriber; a session a line is about
    /// gets its own pieces of that buffer, without its lines.
    func flushPresence() {
        presenceFlushScheduled = false
        let queued = presenceQueue
        presenceQueue = []
        guard !queued.isEmpty else { return }
        var shared = ByteBufferAllocator().buffer(capacity: queued.reduce(0) { $0 + $1.line.readableBytes })
        var spans: [(start: Int, end: Int)] = []
        var about: [SessionID: [Int]] = [:]
        for (index, item) in queued.enumerated() {
            var line = item.line
            let start = shared.writerIndex
            shared.writeBuffer(&line)
            spans.append((start, shared.writerIndex))
            if let session = item.about, subscribers[session] != nil { about[session, default: []].append(index) }
        }
        var personal: [SessionID: [ByteBuffer]] = [:]
        for (session, own) in about {
            var pieces: [ByteBuffer] = []
            var from = 0
            for index in own {
                if spans[index].start > from, let piece = shared.getSlice(at: from, length: spans[index].start - from) {
                    pieces.append(piece)
                }
                from = spans[index].end
            }
            if shared.writerIndex > from, let piece = shared.getSlice(at: from, length: shared.writerIndex - from) {
                pieces.append(piece)
            }
            personal[session] = pieces
        }
        publication.fanOut(shared, personal: personal)
    }

    /// The hash of `committed` for `subscribed`, computed once per seq.
    func committedHash() -> String {
        if let cached = hashCache, cached.seq == committed.seq { return cached.hash }
        let hash = committed.protocolHash
        hashCache = (committed.seq, hash)
        return hash
    }

    /// The retained deltas `from...to`, or nil when the log no longer holds every one of them: `from` is not among
    /// the last `history_max` or is older than `history_age_ms`. `subscribe` (from `since + 1`) and `fetch` decide
    /// with this one test, so they always agree (Protocol.md, "subscribe").
    func retained(from: UInt64, to: UInt64) -> [ByteBuffer]? {
        guard let lines = log.lines(from: from, to: to), isRecent(from) else { return nil }
        return lines
    }

    /// Whether the change at `seq` is within `history_age_ms`: a resume from further back gets a snapshot, however
    /// many changes the log still holds.
    func isRecent(_ seq: UInt64) -> Bool {
        guard let entry = log.entry(seq) else { return true }
        return clock.now().milliseconds - entry.activity.at.milliseconds <= Int64(configuration.limits.historyAgeMs)
    }

    /// Ends a session's subscription (unsubscribe or disconnect); the others see `presence.left` if it was present.
    /// Unsubscribing a session that is not subscribed does nothing.
    func unsubscribe(_ session: SessionID) {
        guard let ref = subscribers.removeValue(forKey: session) else { return }
        subscribers.releaseSparseCapacity()
        publication.withFanOut { $0.remove(session) }
        presenceUpdated[session] = nil
        presenceUpdated.releaseSparseCapacity()
        guard presence.removeValue(forKey: session) != nil else { return }
        presenceLeft(session, user: ref.user)
    }

    /// What `updatePresence` did.
    enum PresenceOutcome: Sendable, Equatable {
        /// Recorded and broadcast (or dropped as an intermediate drag position over the presence rate).
        case updated
        /// The user is not a member, or the board is no longer served: answered as for a missing board.
        case notFound
        /// The session is not present: not subscribed, or subscribed with `presence` false.
        case notPresent
    }

    /// Records what a session present on the board is doing and tells the others (ephemeral: never stored). An
    /// intermediate drag position over the presence rate comes with `held`: the wait until the session's bucket has
    /// a token again, and the bucket. It is held, replacing any held before it, and sent after that wait, for a
    /// token of that bucket, unless an update of the session goes out first. A burst of positions then ends where
    /// the drag is, never at the last one the burst let through, and the session's updates stay within the rate.
    func updatePresence(
        _ session: SessionRef, _ entry: ServerMessage.PresenceEntry, held: (waitMs: UInt64, bucket: PresenceBucket)? = nil
    ) -> PresenceOutcome {
        settleIfPublished()
        guard !isClosed, committed.members[session.user] != nil else { return .notFound }
        guard presence[session.id] != nil else { return .notPresent }
        presenceUpdated[session.id] = clock.monotonicMs()
        if let held {
            if heldDrags.updateValue(entry, forKey: session.id) == nil {
                releaseHeldDrag(session.id, after: held.waitMs, bucket: held.bucket)
            }
            return .updated
        }
        heldDrags[session.id] = nil
        presence[session.id] = entry
        presenceChanged(entry, except: session.id)
        return .updated
    }

    /// Sends a session's held drag position after `waitMs`, if it still has one and is still present, and the
    /// bucket has a token then (else it waits again).
    private func releaseHeldDrag(_ session: SessionID, after waitMs: UInt64, bucket: PresenceBucket) {
        let hold = configuration.presenceHoldMs ?? min(max(waitMs, 1), 1_000)
        let clock = self.clock
        Task {
            await clock.sleep(milliseconds: Int64(hold))
            guard self.heldDrags[session] != nil, !self.isClosed, self.presence[session] != nil else {
                self.heldDrags[session] = nil
                return
            }
            if let wait = bucket.take(nowMs: self.clock.monotonicMs()) {
                self.releaseHeldDrag(session, after: wait, bucket: bucket)
                return
            }
            guard let entry = self.heldDrags.removeValue(forKey: session) else { return }
            self.presence[session] = entry
            self.presenceUpdated[session] = self.clock.monotonicMs()
            self.presenceChanged(entry, except: session)
        }
    }

    /// Resets editing and dragging that were not refreshed within `presence_timeout_ms` to viewing, so a client that
    /// vanished mid-drag does not leave a ghost card on everyone's screen. Presence itself never times out.
    func expirePresence() {
        let now = clock.monotonicMs()
        let timeout = Int64(configuration.limits.presenceTimeoutMs)
        for (session, entry) in presence where (entry.state == .editing || entry.state == .dragging) && !isRemote(session) {
            guard now - (presenceUpdated[session] ?? now) >= timeout else { continue }
            let reset = ServerMessage.PresenceEntry(
                session: entry.session, user: entry.user, state: .viewing, away: entry.away, awayNote: entry.awayNote)
            presence[session] = reset
            presenceUpdated[session] = now
            // The others hear of it; the session itself never gets a line about its own session (Protocol.md,
            // "presence"): its client knows what it was doing and sees its next update taken as usual.
            presenceChanged(reset, except: session)
        }
    }

    /// Sends the deltas `from...to` again (after a gap), then `ok`; a snapshot when the retained log no longer holds
    /// them, decided exactly as `subscribe` decides. The session must be subscribed.
    func fetch(_ session: SessionRef, from: UInt64, to: UInt64, req: RequestID?) async {
        await loadRetained()
        settleIfPublished()
        guard committed.members[session.user] != nil else {
            session.outbox.send(Lines.error(WireError(.notFound, "no board \(id)", req: req, board: id)))
            return
        }
        guard subscribers[session.id] != nil else {
            session.outbox.send(
                Lines.error(WireError(.badRequest, "fetch needs a subscription to board \(id); subscribe first", req: req, board: id)))
            return
        }
        let seq = committed.seq
        guard to <= seq else {
            session.outbox.send(Lines.error(WireError(.badRequest, "to \(to) is ahead of board \(id), which is at seq \(seq)", req: req, board: id)))
            return
        }
        let maximum = UInt64(configuration.limits.fetchMax)
        guard to - from < maximum else {
            session.outbox.send(Lines.error(WireError(.badRequest, "fetch at most \(maximum) deltas at once", req: req, board: id)))
            return
        }
        let ok = Lines.line(.ok(ServerMessage.Ok(req: req, board: id)))
        if let lines = retained(from: from, to: to) {
            session.outbox.sendBulk(lines + [ok])
            return
        }
        // Under the fan-out's lock, with the deltas of a batch the writer published meanwhile after the snapshot.
        publication.send([snapshotLine(req: req, reason: .resync)], to: session, after: seq, then: [ok], joining: false)
    }

    /// One page of activity, oldest first: at most `limit` records and at most `outbox_bytes` bytes of line (the
    /// newest that fit, at least one), sent as catch-up is, outside the live outbox's cap: a page of long comments
    /// counted as live traffic would pass that cap and end the connection with `slow_consumer` on every ask.
    func history(_ session: SessionRef, card: CardID?, before: UInt64?, limit: Int, req: RequestID?) async {
        settleIfPublished()
        guard committed.members[session.user] != nil else {
            session.outbox.send(Lines.error(WireError(.notFound, "no board \(id)", req: req, board: id)))
            return
        }
        let limit = max(1, min(limit, configuration.limits.historyPageMax))
        do throws(StoreError) {
            let events = try await store.history(id, card: card, before: before, limit: limit + 1)
            // The store reads newest first; a page is oldest first (Protocol.md, "history").
            func line(_ count: Int) -> ByteBuffer {
                let page = events.prefix(count).map(\.activity).reversed()
                return Lines.line(.history(ServerMessage.HistoryPage(req: req, board: id, activities: Array(page), more: events.count > count)))
            }
            let cap = configuration.limits.outboxBytes
            let count = min(limit, events.count)
            var page = line(count)
            if page.readableBytes > cap, count > 1 {
                // The most records that fit, found by halving the range (a few encodings, for such pages only).
                var (fits, tooMany) = (1, count)
                var fitting = line(1)
                while tooMany - fits > 1 {
                    let middle = (fits + tooMany) / 2
                    let candidate = line(middle)
                    if candidate.readableBytes <= cap { (fits, fitting) = (middle, candidate) } else { tooMany = middle }
                }
                page = fitting
            }
            session.outbox.sendBulk([page])
        } catch {
            session.outbox.send(
                Lines.error(WireError(error.wireCode(during: .read), "the store could not be read", req: req, board: id)))
        }
    }
}
