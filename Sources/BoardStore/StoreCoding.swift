import BoardCore
import Foundation
import GRDB

/// JSON and integer conversions between the store's Swift values and its SQLite columns.
enum StoreCoding {
    /// A JSON encoder with sorted keys, so equal values are stored as equal text.
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Encodes `value` as JSON text; `.internal` if it cannot be encoded.
    static func json<T: Encodable>(_ value: T, _ encoder: JSONEncoder, _ what: String) throws(StoreError) -> String {
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw StoreError(.internal, "cannot encode \(what): \(error)")
        }
    }

    /// Decodes JSON text; `.corrupt` if the stored text is not what it should be.
    static func decode<T: Decodable>(
        _ type: T.Type, _ text: String, _ decoder: JSONDecoder, _ what: String
    ) throws(StoreError) -> T {
        do {
            return try decoder.decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError(.corrupt, "cannot decode stored \(what): \(error)")
        }
    }

    /// A seq, mut or other unsigned number as an SQLite integer; `.internal` above `Int64.max`.
    static func int64(_ value: UInt64, _ what: String) throws(StoreError) -> Int64 {
        guard let result = Int64(exactly: value) else {
            throw StoreError(.internal, "\(what) \(value) is too large to store")
        }
        return result
    }

    /// An SQLite integer as an unsigned number; `.corrupt` when negative.
    static func uint64(_ value: Int64, _ what: String) throws(StoreError) -> UInt64 {
        guard let result = UInt64(exactly: value) else {
            throw StoreError(.corrupt, "stored \(what) \(value) is negative")
        }
        return result
    }

    /// The value of a row's column; `.corrupt` when it is NULL where a value must be, or of the
    /// wrong type. Ask for an optional where NULL is allowed.
    static func column<T: DatabaseValueConvertible>(_ row: Row, _ index: Int) throws(StoreError) -> T {
        do {
            return try row.decode(atIndex: index)
        } catch {
            throw StoreError(.corrupt, "cannot read stored column \(index): \(error)")
        }
    }

    /// Admin outcomes as the `admin` table keeps them: each id with its failure as JSON text (nil: applied).
    static func outcomes(_ results: [(id: Int64, failure: AdminFailure?)]) throws(StoreError) -> [(Int64, String?)] {
        let encoder = makeEncoder()
        return try results.map { (result) throws(StoreError) in
            (result.id, try result.failure.map { (failure) throws(StoreError) in try json(failure, encoder, "admin failure") })
        }
    }

    /// A fresh random epoch: 16 lower-case hex digits (64 random bits).
    static func newEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
