import BoardCore
import BoardStore
import BoardWire
import Foundation
import Logging

/// Presence across nodes sharing one PostgreSQL database: publishes this node's presence changes on the
/// store's presence channel and merges the other nodes' into this node's boards, so a subscriber here sees the
/// people on every node, in `presence.state` and as `presence` / `presence.left` lines.
///
/// Three loops: the publisher packs what the boards dropped in ``PresenceOutbound`` into `NOTIFY` payloads, in order;
/// the listener hands what is heard to the merge; the merge (``RemotePresence``) applies it to the boards, beats every
/// `heartbeat`, and forgets a node not heard for `ttl`. On every (re-)established `LISTEN`, and after publishing failed,
/// the node announces its whole presence again and asks the others to do the same, so a dropped connection leaves
/// nobody out and no ghost behind.
struct PresenceRelay {
    let bus: any PresenceBus
    let registry: BoardRegistry
    /// This node's sessions, told of inbox entries read on other nodes.
    let directory: SessionDirectory
    let outbound: PresenceOutbound
    /// This process's id, new at every start.
    let node: String
    /// The host and port this node serves on, stable across restarts.
    let name: String
    let heartbeat: Duration
    let ttl: Duration
    let retryDelay: Duration
    let clock: any ServerClock
    let logger: Logger
    /// The most events waiting to be published; past it they are dropped and the node announces everything again.
    var queueMax = 10_000

    /// What the merge loop is told.
    enum Input: Sendable {
        case bus(PresenceBusSignal)
        case tick
        /// Publishing works again after a failure (or after events were dropped): announce everything.
        case recovered
        /// This node started serving the board: show the other nodes' people already known there.
        case served(BoardID)
    }

    /// A new random node id.
    static func newNodeID() -> String { "n-" + Session.randomID() }

    /// Runs until cancelled; then tells the other nodes that this node's sessions are gone (`bye`).
    func run() async {
        let (inputs, input) = AsyncStream.makeStream(of: Input.self)
        let queue = PresenceSendQueue(limit: queueMax)
        await withDiscardingTaskGroup { group in
            group.addTask { await listen(input) }
            group.addTask { await pump(queue) }
            group.addTask { await publish(queue, input) }
            group.addTask { await tick(input) }
            group.addTask {
                for await board in registry.served { input.yield(.served(board)) }
            }
            group.addTask { await merge(inputs) }
        }
        input.finish()
        await sayBye()
    }

    /// Hands what the presence channel brings to the merge.
    private func listen(_ input: AsyncStream<Input>.Continuation) async {
        await bus.watchPresence(retryDelay: retryDelay) { signal in
            input.yield(.bus(signal))
        }
    }

    /// Moves what the boards dropped into the bounded queue, in order.
    private func pump(_ queue: PresenceSendQueue) async {
        for await event in outbound.stream { await queue.push(event) }
    }

    /// Tells the merge the time, twice a second (or every heartbeat, if shorter).
    private func tick(_ input: AsyncStream<Input>.Continuation) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: min(heartbeat, .milliseconds(500)))
            input.yield(.tick)
        }
    }

    /// Publishes `bye` from a task of its own (the relay's is cancelled by then), bounded by the store's lease timeout.
    private func sayBye() async {
        let payloads = PresenceRelayMessage.pack(node: node, events: [.bye], maxBytes: bus.presencePayloadMax)
        let farewell = Task { [bus] in
            for payload in payloads { try? await bus.publishPresence(payload) }
        }
        await farewell.value
    }

    /// Publishes what the boards dropped, in order, packed into as few payloads as fit.
    private func publish(_ queue: PresenceSendQueue, _ input: AsyncStream<Input>.Continuation) async {
        var failing = false
        for await _ in queue.bell {
            let (events, dropped) = await queue.takeAll()
            if dropped {
                logger.warning("presence relay fell behind; dropped its queue and announces everything again")
                failing = true
            }
            for payload in PresenceRelayMessage.pack(node: node, events: events, maxBytes: bus.presencePayloadMax) {
                do {
                    try await bus.publishPresence(payload)
                    if failing {
                        failing = false
                        input.yield(.recovered)
                    }
                } catch {
                    if !failing { logger.warning("cannot publish presence to the other nodes", metadata: ["error": "\(error)"]) }
                    failing = true
                }
            }
        }
    }

    /// Merges what is heard and keeps this node's announcements going.
    private func merge(_ inputs: AsyncStream<Input>) async {
        var remote = RemotePresence(me: node, ttlMs: ttl.wholeMilliseconds)
        let listenLog = RetryLog(
            "presence LISTEN lost: other nodes' people drop out after \(ttl) unless it is back",
            recovered: "presence LISTEN re-established; announcing presence again")
        var lastBeat = Int64.min / 2
        for await input in inputs {
            let now = clock.monotonicMs()
            switch input {
            case .bus(.listening(let reconnected)):
                if reconnected {
                    logger.info("\(listenLog.workedLine() ?? listenLog.recovered)")
                } else {
                    outbound.send(.hello(name: name))
                }
                outbound.send(.beat(name: name))
                lastBeat = now
                outbound.send(.ask(to: nil))
                await announce()
            case .bus(.lost(let reason, _)):
                listenLog.failed(reason, logger)
            case .bus(.message(let payload)):
                guard let message = PresenceRelayMessage.parse(payload) else { continue }
                await route(remote.receive(message, nowMs: now))
            case .tick:
                if now - lastBeat >= heartbeat.wholeMilliseconds {
                    outbound.send(.beat(name: name))
                    lastBeat = now
                }
                await route(remote.expire(nowMs: now))
            case .recovered:
                await announce()
            case .served(let board):
                await route(remote.entries(on: board).values.map { .set(board, $0) })
            }
        }
    }

    /// Applies the merge's actions to this node's boards (a board not served here ignores them).
    private func route(_ actions: [RemotePresence.Action]) async {
        var announced = false
        for action in actions {
            switch action {
            case .set(let board, let entry):
                await registry.loaded(board)?.remotePresenceSet(entry)
            case .left(let board, let session, let user):
                await registry.loaded(board)?.remotePresenceLeft(session, user: user)
            case .announce:
                if !announced { await announce() }
                announced = true
            case .ask(let id):
                outbound.send(.ask(to: id))
            case .inboxRead(let user, let ids, let unread):
                let line = Lines.line(.inboxRead(ServerMessage.InboxMarked(ids: ids, unread: unread)))
                for session in await directory.sessions(of: user) { session.outbox.send(line) }
            }
        }
    }

    /// Announces every local session present on every board: `begin`, each board's entries, `end`. Each board drops
    /// its entries itself, so they fall in order with its other changes.
    private func announce() async {
        outbound.send(.begin)
        for board in await registry.all() { await board.announcePresence() }
        outbound.send(.end)
    }
}

/// The events waiting to be published, bounded; `bell` rings when there are some.
actor PresenceSendQueue {
    private var events: [PresenceRelayEvent] = []
    private var dropped = false
    private let limit: Int
    nonisolated let bell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation

    init(limit: Int) {
        self.limit = limit
        (bell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Adds one event; past `limit` the queue is emptied and marked as having dropped events.
    func push(_ event: PresenceRelayEvent) {
        if events.count >= limit {
            events = []
            dropped = true
        }
        events.append(event)
        ring.yield()
    }

    /// Everything waiting, and whether events were dropped since the last call.
    func takeAll() -> (events: [PresenceRelayEvent], dropped: Bool) {
        defer {
            events = []
            dropped = false
        }
        return (events, dropped)
    }
}
