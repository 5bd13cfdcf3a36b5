//! The `mcpconf` binary: parses the command line and runs it ([`mcpconf::run`]).
use std::process::ExitCode;

fn main() -> ExitCode {
    // glibc grows each thread's heap a few pages at a time, one `mprotect` per step; lint keeps
    // thousands of parsed files alive, which made that a call per file. Grow by 16 MiB instead
    // (address space only: untouched pages cost no memory).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called before any thread exists.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 16 << 20);
    }
    ExitCode::from(mcpconf::run(mcpconf::cli::parse()))
}
