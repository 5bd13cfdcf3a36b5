//! Standard output and standard error for the CLI layer.
//!
//! `print!` panics when a write fails, and a reader that stops early closes the pipe
//! (`mcpconf schema | head -c1`): the next write fails with `EPIPE`. Like ripgrep, mcpconf treats
//! that as a quiet end of output: later writes to that stream are dropped and the command ends
//! with the exit code it would have had. Any other write error (a full disk behind a redirect) is
//! reported once on stderr and turns a successful exit into [`Exit::Io`](crate::engine::Exit).
//!
//! The macros here shadow `std`'s `print!` family in the modules that import them, so the CLI
//! code reads as usual.

use std::fmt;
use std::io::{self, ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout's reader is gone (`EPIPE`) or a write failed otherwise.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);
/// Set when a write to stdout failed for another reason than a closed pipe.
static STDOUT_FAILED: AtomicBool = AtomicBool::new(false);
/// Set once a write to stderr failed; stderr's failures are never reported anywhere.
static STDERR_CLOSED: AtomicBool = AtomicBool::new(false);

/// Write to stdout, surviving a closed pipe.
pub fn out(args: fmt::Arguments<'_>) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut o = io::stdout().lock();
    if let Err(e) = o.write_fmt(args) {
        stdout_failed(&e);
    }
}

/// Write bytes to stdout, surviving a closed pipe.
pub fn out_bytes(bytes: &[u8]) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut o = io::stdout().lock();
    if let Err(e) = o.write_all(bytes) {
        stdout_failed(&e);
    }
}

/// Flush stdout, surviving a closed pipe (before a prompt, and at the end of a command).
pub fn flush_out() {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    if let Err(e) = io::stdout().lock().flush() {
        stdout_failed(&e);
    }
}

/// Write to stderr; a failure (a closed pipe there too) is dropped.
pub fn err(args: fmt::Arguments<'_>) {
    if STDERR_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut e = io::stderr().lock();
    if e.write_fmt(args).and_then(|()| e.flush()).is_err() {
        STDERR_CLOSED.store(true, Ordering::Relaxed);
    }
}

fn stdout_failed(e: &io::Error) {
    STDOUT_CLOSED.store(true, Ordering::Relaxed);
    if e.kind() != ErrorKind::BrokenPipe {
        STDOUT_FAILED.store(true, Ordering::Relaxed);
        err(format_args!(
            "error: cannot write to standard output: {e}\n"
        ));
    }
}

/// The exit code of a command once its output is written: flushes stdout, and turns a success
/// into [`Exit::Io`](crate::engine::Exit) when stdout could not be written (a closed pipe is no
/// failure).
pub fn finish(code: u8) -> u8 {
    flush_out();
    if code == 0 && STDOUT_FAILED.load(Ordering::Relaxed) {
        crate::engine::Exit::Io as u8
    } else {
        code
    }
}

/// `print!` that survives a closed pipe.
macro_rules! print {
    ($($t:tt)*) => { $crate::console::out(format_args!($($t)*)) };
}
/// `println!` that survives a closed pipe.
macro_rules! println {
    () => { $crate::console::out(format_args!("\n")) };
    ($($t:tt)*) => {
        $crate::console::out(format_args!("{}\n", format_args!($($t)*)))
    };
}
/// `eprint!` that survives a closed pipe.
macro_rules! eprint {
    ($($t:tt)*) => { $crate::console::err(format_args!($($t)*)) };
}
/// `eprintln!` that survives a closed pipe.
macro_rules! eprintln {
    () => { $crate::console::err(format_args!("\n")) };
    ($($t:tt)*) => {
        $crate::console::err(format_args!("{}\n", format_args!($($t)*)))
    };
}
pub(crate) use {eprint, eprintln, print, println};
