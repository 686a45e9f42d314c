import Foundation

/// The connection `cork join URL` saves, used when neither `--url` nor `$CORK_URL` is given.
public struct Profile: Hashable, Sendable, Codable {
    /// The invite URL (with its token: the file is mode 0600).
    public var url: String

    /// A profile for `url`.
    public init(url: String) { self.url = url }

    /// The profile saved in `directory`, or nil when there is none.
    public static func load(from directory: ConfigDirectory) throws(CorkFailure) -> Profile? {
        guard let data = try directory.read(directory.profileFile) else { return nil }
        do {
            return try JSONDecoder().decode(Profile.self, from: data)
        } catch {
            throw CorkFailure(.failure, "\(directory.profileFile.path) is not a cork profile; run cork join URL again")
        }
    }

    /// Saves the profile in `directory` (mode 0600).
    public func save(in directory: ConfigDirectory) throws(CorkFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard var data = try? encoder.encode(self) else { throw CorkFailure(.failure, "cannot encode the profile") }
        data.append(0x0A)
        try directory.write(data, to: directory.profileFile)
    }
}
