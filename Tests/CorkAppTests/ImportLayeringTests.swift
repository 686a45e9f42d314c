import Foundation
import Testing

/// A UI is built on `BoardClient` and `BoardCore` only. `cork` (its library and its executable) and the
/// Swift bot example are such UIs, so none of their files may import `BoardWire` (the wire envelopes stay inside the
/// client library; the few wire values a UI names are re-exported by `BoardClient`).
@Suite struct ImportLayeringTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Swift files under `folder` (relative to the package root) that import `module`.
    static func files(under folder: String, importing module: String) throws -> [String] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var found: [String] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            let imports = text.split(separator: "\n").contains { line in
                let words = line.split(separator: " ")
                return words.count >= 2 && words[words.count - 2] == "import" && words.last == Substring(module)
            }
            if imports { found.append(url.path.replacingOccurrences(of: root.path + "/", with: "")) }
        }
        return found.sorted()
    }

    @Test(arguments: ["Sources/CorkApp", "Sources/cork", "Examples/SwiftBot"])
    func clientsOfTheLibraryDoNotImportBoardWire(folder: String) throws {
        #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(folder).path))
        #expect(try Self.files(under: folder, importing: "BoardWire") == [])
    }
}
