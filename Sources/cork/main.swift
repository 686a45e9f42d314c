import ArgumentParser
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
        // ArgumentParser: help and version exit 0; usage errors exit 2 (not EX_USAGE, 64).
        if Cork.exitCode(for: error) == .validationFailure {
            Output.standardError(Cork.fullMessage(for: error) + "\n")
            exit(CorkExitCode.usage.rawValue)
        }
        Cork.exit(withError: error)
    }
}
