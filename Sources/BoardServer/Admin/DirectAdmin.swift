import BoardCore
import BoardStore
import Foundation

/// Applies admin commands to the store itself, for when no server runs (the tool holds the serving lock, so
/// nothing else writes): the same outcomes the running server would record.
///
/// Op commands (members, renames) are applied by the reducer as the actor `corkd`, exactly as the server applies
/// them, and all their events are appended in one transaction at the end.
struct DirectAdmin {
    let store: any AdminStore
    /// The `members_max` the server enforces (from `listen.json`), so a board grows no larger offline.
    let membersMax: Int
    /// A snapshot is stored with the events when a board got at least this many (as the server does).
    let snapshotInterval: UInt64

    func apply(_ commands: [AdminCommand], now: Timestamp) async -> [AdminFailure?] {
        var results = [AdminFailure?](repeating: nil, count: commands.count)
        var boards: [BoardID: Board] = [:]
        var records: [BoardID: BoardRecord] = [:]
        do {
            for record in try await store.boards() { records[record.id] = record }
        } catch {
            return commands.map { _ in .store(error) }
        }
        var events: [StoredEvent] = []
        var written: [BoardID: UInt64] = [:]
        var applied: [Int] = []
        for (index, command) in commands.enumerated() {
            switch command {
            case .createBoard(let id, let name, let owner):
                guard records[id] == nil else {
                    results[index] = AdminFailure(.refused, "board id \(id) is taken\(records[id]!.archived ? " (by an archived board)" : "")")
                    continue
                }
                do {
                    _ = try await store.ensureUser(owner, displayName: "")
                    records[id] = try await store.createBoard(Board(id: id, name: name, owner: owner))
                } catch {
                    results[index] = .store(error)
                }
            case .archiveBoard(let id), .unarchiveBoard(let id):
                guard records[id] != nil else {
                    results[index] = .noBoard(id)
                    continue
                }
                let archive = if case .archiveBoard = command { true } else { false }
                do {
                    try await store.setArchived(id, archive, now: now)
                    records[id]?.archived = archive
                } catch {
                    results[index] = .store(error)
                }
            case .revoke:
                // The tokens are revoked in the store already; with no server there are no sessions to close.
                break
            case .addMember(let id, _, _), .renameBoard(let id, _):
                guard let record = records[id], !record.archived else {
                    results[index] = .noBoard(id, archived: records[id]?.archived ?? false)
                    continue
                }
                if boards[id] == nil {
                    do {
                        guard let loaded = try await store.load(id) else {
                            results[index] = .noBoard(id)
                            continue
                        }
                        boards[id] = try loaded.replayed()
                    } catch {
                        results[index] = .store(error)
                        continue
                    }
                }
                let op = command.op!
                let context = ApplyContext(
                    actor: "corkd", role: .owner, now: now, seq: boards[id]!.seq + 1, membersMax: membersMax)
                switch boards[id]!.apply(op, context: context) {
                case .failure(let rejection):
                    results[index] = .refused(id, rejection)
                case .success(let change) where change.isNoop:
                    break
                case .success(let change):
                    events.append(
                        StoredEvent(
                            board: id, seq: context.seq, at: now, actor: "corkd", op: op, activity: change.activity,
                            inverse: change.inverse))
                    written[id, default: 0] += 1
                    applied.append(index)
                }
            }
        }
        guard !events.isEmpty else { return results }
        let snapshots = written.filter { $0.value >= snapshotInterval }.keys.compactMap { boards[$0] }
        do {
            try await store.append(events, snapshots: snapshots)
        } catch {
            for index in applied { results[index] = .store(error) }
        }
        return results
    }
}
