import Glibc

extension Terminal {
    /// Hands the terminal back and stops the process, as Ctrl-Z does to a program in a cooked terminal; returns once
    /// the process is continued (`fg`), with raw mode and the full screen back. Call inside `withFullScreen` (outside,
    /// it does nothing). Redraw everything afterwards: the shell wrote over the screen meanwhile.
    ///
    /// The terminal goes back to the settings from before raw mode and leaves the alternate screen, SIGTSTP gets its
    /// default action for the moment (stop) and is raised in this thread with it unblocked, so the stop happens
    /// before the call returns. Where the shell has no job control (an orphaned process group), the kernel discards
    /// the signal and this returns at once.
    public func suspend() throws(TerminalError) {
        guard let original = TerminalRestore.savedSettings() else { return }
        var current = termios()
        guard tcgetattr(input, &current) == 0 else {
            throw TerminalError(.systemCallFailed, operation: "tcgetattr", errno: errno)
        }
        try? write(TerminalControl.leaveFullScreen)
        var cooked = original
        _ = tcsetattr(input, TCSAFLUSH, &cooked)
        Terminal.stopProcess()
        _ = tcsetattr(input, TCSAFLUSH, &current)
        try write(TerminalControl.enterFullScreen)
    }

    /// Puts raw mode and the full screen back after the process was stopped and continued by someone else (`kill
    /// -STOP`, then `-CONT`): the shell may have reset the terminal meanwhile. Call inside `withFullScreen` (outside,
    /// it does nothing), then redraw everything.
    public func resumeFullScreen() throws(TerminalError) {
        guard let original = TerminalRestore.savedSettings() else { return }
        var raw = Terminal.rawSettings(from: original)
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else {
            throw TerminalError(.systemCallFailed, operation: "tcsetattr", errno: errno)
        }
        try write(TerminalControl.enterFullScreen)
    }

    /// Stops the process with SIGTSTP's default action and returns when it is continued.
    static func stopProcess() {
        var stop = sigaction()
        stop.__sigaction_handler.sa_handler = SIG_DFL
        sigemptyset(&stop.sa_mask)
        var previous = sigaction()
        _ = sigaction(SIGTSTP, &stop, &previous)
        // Threads of the concurrency pool block most signals; unblock SIGTSTP here so the raise stops us now.
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, SIGTSTP)
        var mask = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &only, &mask)
        raise(SIGTSTP)
        pthread_sigmask(SIG_SETMASK, &mask, nil)
        _ = sigaction(SIGTSTP, &previous, nil)
    }
}
