import BoardCore
import BoardStore
import BoardTesting
import Foundation
import Logging
import Testing

/// `corkd backup --to FILE`: a consistent copy of the SQLite store while the server runs, and a restore from it.
@Suite(.startsProcesses(within: .minutes(2)))
struct BackupCommandTests {
    @Test("corkd backup while serving writes a copy that opens as a store with every acknowledged op; a second run refuses the existing file")
    func backupWhileServing() async throws {
        try await withCorkd { corkd in
            let owner = try await ProcessLifecycleTests.hello(corkd, token: corkd.ownerToken, clientID: "owner-1")
            for mut in 1...20 {
                try await owner.send(#"{"type":"op","board":"main","mut":\#(mut),"op":{"kind":"card.add","card":"c\#(mut)","title":"card \#(mut)"}}"#)
                #expect(try await owner.expect(type: "ack", skipping: ["presence", "presence.state", "ping"])["mut"] as? Int == mut)
            }
            await owner.close()
            // A directory that does not exist is a usage error that names it, not SQLite's "unable to open".
            let nowhere = corkd.root.appendingPathComponent("no-such-dir/backup.sqlite")
            let missing = try await corkd.admin(["backup", "--to", nowhere.path])
            #expect(missing.exit.status == 2, "\(missing.exit): \(missing.standardError)")
            #expect(missing.standardError.contains("\(corkd.root.path)/no-such-dir does not exist"), "\(missing.standardError)")
            // The command it suggests makes the directory for the data directory's owner, whoever that is here.
            let serviceUser = try #require(try FileManager.default.attributesOfItem(atPath: corkd.dataDirectory.path)[.ownerAccountName] as? String)
            #expect(missing.standardError.contains("install -d -o \(serviceUser) -m 0700"), "\(missing.standardError)")
            // So is one this user cannot write in.
            let locked = corkd.root.appendingPathComponent("read-only")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o555])
            let refused = try await corkd.admin(["backup", "--to", locked.appendingPathComponent("backup.sqlite").path])
            #expect(refused.exit.status == 2, "\(refused.exit): \(refused.standardError)")
            #expect(refused.standardError.contains("cannot write in the backup's directory \(locked.path)"), "\(refused.standardError)")
            let file = corkd.root.appendingPathComponent("backup.sqlite")
            let result = try await corkd.admin(["backup", "--to", file.path])
            #expect(result.exit.isSuccess, "\(result.exit): \(result.standardError)")
            #expect(result.standardOutput.contains("wrote a consistent copy"))

            // Restored into a directory of its own, the copy is a store whose board main has the 20 cards.
            let restore = corkd.root.appendingPathComponent("restore")
            try FileManager.default.createDirectory(at: restore, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: file, to: restore.appendingPathComponent(SQLiteStore.fileName))
            var logger = Logger(label: "corkd-test")
            logger.logLevel = .critical
            let store = try await SQLiteStore.open(directory: restore, logger: logger)
            let board = try #require(try await store.load("main")?.replayed())
            #expect((1...20).allSatisfy { board.cards[CardID("c\($0)")] != nil }, "every acknowledged card is in the copy")
            try await store.close()

            let again = try await corkd.admin(["backup", "--to", file.path])
            #expect(again.exit.status == 1 && again.standardError.contains("already exists"), "\(again.standardError)")
        }
    }
}
