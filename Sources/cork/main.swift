import ArgumentParser
import BuildInfo
import CorkApp

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `cork`: argument parsing, the environment and exit codes; the logic lives in CorkApp.
Signals.unblockTermination()
Output.holdStandardDescriptors()
await runCork()

/// Parses the command line, runs the command and exits with its code (CorkExitCode).
func runCork() async -> Never {
    if let index = firstArgumentNotInUTF8() {
        // Swift would read it with U+FFFD in place of the bad bytes, and cork would post that text in silence.
        Output.error("argument \(index) is not valid UTF-8 (convert it first, e.g. with iconv -f latin1 -t utf-8)")
        exit(CorkExitCode.usage.rawValue)
    }
    do {
        var command = try await Cork.asyncParseAsRoot()
        if var asynchronous = command as? AsyncParsableCommand {
            try await asynchronous.run()
        } else {
            try command.run()
        }
        exit(CorkExitCode.ok.rawValue)
    } catch let failure as CorkFailure {
        Output.error(failure.message)
        exit(failure.exitCode.rawValue)
    } catch {
        // ArgumentParser: help and version exit 0; usage errors exit 2 (not EX_USAGE, 64), on one line as every
        // other failure (docs/scripting.md): `cork: ` and the reason, then where the usage is.
        if Cork.exitCode(for: error) == .validationFailure {
            Output.error(BuildInfo.usageLine(message: Cork.message(for: error), full: Cork.fullMessage(for: error)))
            exit(CorkExitCode.usage.rawValue)
        }
        Cork.exit(withError: error)
    }
}

/// The position (1 = the first after the program's name) of the first argument whose bytes are not UTF-8, or nil.
func firstArgumentNotInUTF8() -> Int? {
    for index in 1..<Int(CommandLine.argc) {
        guard let pointer = CommandLine.unsafeArgv[index] else { continue }
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
        if String(validating: bytes, as: UTF8.self) == nil { return index }
    }
    return nil
}
