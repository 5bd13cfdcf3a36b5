//! The `mcpconf` binary: parses the command line and runs it ([`mcpconf::run`]).
use std::process::ExitCode;

/// The static Linux binary (musl, what the release archives ship) allocates with mimalloc:
/// musl's own allocator takes one lock around every call and returns memory with a system
/// call at a time, which made `lint` over 3 000 files twice as slow as with mimalloc (53-59
/// against 24-27 ms, `jq empty` 58 ms). docs/design.md, "Why mimalloc in the static Linux
/// binary".
#[cfg(all(target_os = "linux", target_env = "musl"))]
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // glibc grows each thread's heap a few pages at a time, one `mprotect` per step; lint keeps
    // thousands of parsed files alive, which made that a call per file. Grow by 1 MiB instead
    // (address space only: untouched pages cost no memory). Not more: glibc keeps that much
    // free memory at the top of a heap when it gives the rest back, so 16 MiB kept what an edit
    // of a big file had freed resident until the end (docs/benchmarks.md, issue 44).
    // (Not one arena for all threads: `M_ARENA_MAX = 1` saved lint about 0.2 MB but cost it a
    // third more CPU time on an idle machine, its two threads waiting for each other's lock.)
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any thread exists.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 1 << 20);
    }
    ExitCode::from(mcpconf::run_args(std::env::args_os()))
}
