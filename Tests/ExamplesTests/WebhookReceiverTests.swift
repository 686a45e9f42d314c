import BoardTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `Examples/webhook_receiver.py` as `Examples/README.md` runs it: the documented receiver and
/// `cork hook add` lines against the real corkd, signed events printed in order, across a corkd restart.
@Suite(.serialized, .startsProcesses(within: .minutes(2))) struct WebhookReceiverTests {
    @Test func theReceiverPrintsSignedEventsInOrderAcrossARestart() async throws {
        _ = try SpawnedProcess.tool("python3")
        let corkd = try CorkdProcess()
        defer { corkd.cleanup() }
        let serve = try ExamplesReadmeTests.line("corkd serve --hooks-allow-http-loopback")
        try await corkd.start(options: Array(serve.split(separator: " ").dropFirst(2).map(String.init)))
        let checkout = try ExamplesReadmeTests.Checkout(corkd)
        // The documented lines, on a free port instead of 8080 (tests never use fixed ports).
        let receiverLine = try ExamplesReadmeTests.line("CORK_HOOK_SECRET='s3cret-for-the-example' python3 Examples/webhook_receiver.py")
        let receiver = try checkout.launch(
            receiverLine.replacingOccurrences(of: "--port 8080", with: "--port 0"), exported: true, name: "readme-webhook-receiver")
        defer { receiver.killAndReap() }
        #expect(await receiver.waitForOutput(containing: "listening on http://127.0.0.1:", timeout: .seconds(20)), "\(receiver.standardError)")
        let url = try #require(
            receiver.standardOutput.split(separator: "\n").first { $0.hasPrefix("listening on ") }.map { String($0.dropFirst(13)) })
        let add = try ExamplesReadmeTests.with(
            corkd.ownerURL, try ExamplesReadmeTests.line("CORK_URL='cork://…' cork hook add")
        ).replacingOccurrences(of: "http://127.0.0.1:8080/", with: url)
        let added = try await checkout.run(add, exported: true, name: "readme-hook-add")
        #expect(added.exit.isSuccess && added.standardOutput.contains("added webhook h-"), "\(added.exit) \(added.standardError)")

        let card = try ExamplesReadmeTests.with(corkd.ownerURL, try ExamplesReadmeTests.line(#"CORK_URL='cork://…' cork add "Try the webhook""#))
        #expect(try await checkout.run(card, exported: true, name: "readme-hook-card").exit.isSuccess)
        #expect(
            await receiver.waitForOutput(containing: #"card.add by owner #1 "Try the webhook""#, timeout: .seconds(20)),
            "stdout: \(receiver.standardOutput) stderr: \(receiver.standardError)")

        // A restart of corkd (new port): the hook is stored, the next change arrives too, after the first.
        _ = try await corkd.terminate()
        try await corkd.restart(options: ["--hooks-allow-http-loopback"])
        let again = try ExamplesReadmeTests.with(try String(contentsOf: corkd.dataDirectory.appendingPathComponent("owner.url"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines), #"CORK_URL='cork://…' cork add "After the restart""#)
        #expect(try await checkout.run(again, exported: true, name: "readme-hook-card-2").exit.isSuccess)
        #expect(await receiver.waitForOutput(containing: #"#2 "After the restart""#, timeout: .seconds(20)), "\(receiver.standardOutput)")
        // At least once, in order: a delivery whose answer crossed the restart may come again, and the documented
        // receiver prints it marked "(repeat)" (the same X-Corkboard-Delivery). The first of each is in order.
        let lines = receiver.standardOutput.split(separator: "\n").filter { $0.contains("card.add") && !$0.hasSuffix("(repeat)") }
        #expect(lines.count == 2 && lines[0].contains("#1") && lines[1].contains("#2"), "\(receiver.standardOutput)")
        #expect(!receiver.standardError.contains("refused"), "\(receiver.standardError)")
    }
}
