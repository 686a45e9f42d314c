import Testing
import _ConnectionPoolModule

@testable import BoardStore

/// A pool that can hand out no connection (the database down) is a lost connection, said in words: the operator's
/// log and a client's `storage_busy` never carry a Swift type's name.
@Suite struct PostgresErrorWordsTests {
    @Test(arguments: [
        (ConnectionPoolError.connectionCreationCircuitBreakerTripped, "new connections to it keep failing"),
        (.requestCancelled, "cancelled"),
        (.poolShutdown, "corkd is stopping"),
    ])
    func aPoolWithNoConnectionIsAnIOErrorInWords(_ error: ConnectionPoolError, _ words: String) {
        let mapped = StoreError(postgres: error, context: "events of main")
        #expect(mapped.code == .io)
        #expect(mapped.message.hasPrefix("events of main: cannot get a connection to the database ("))
        #expect(mapped.message.contains(words), "\(mapped.message)")
        #expect(!mapped.message.contains("ConnectionPoolError"), "\(mapped.message)")
    }
}
