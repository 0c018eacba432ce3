//! Standard output that fails like a Unix tool: when the reader has gone (a closed pipe,
//! `kernlearn … | head`) the program ends quietly; any other write error (a full device)
//! is a plain error message and exit status 1, never a panic.

use std::fmt;
use std::io::{self, Write};

/// Writes `args` to standard output.
pub fn write(args: fmt::Arguments) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(args) {
        fail(e);
    }
}

/// Flushes standard output (at the end of the program).
pub fn flush() {
    if let Err(e) = io::stdout().lock().flush() {
        fail(e);
    }
}

fn fail(e: io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    let _ = writeln!(io::stderr(), "error: cannot write to standard output: {e}");
    std::process::exit(1);
}

/// `print!` through [`write`].
macro_rules! out {
    ($($t:tt)*) => { $crate::out::write(format_args!($($t)*)) };
}

/// `println!` through [`write`].
macro_rules! outln {
    () => { $crate::out::write(format_args!("\n")) };
    ($($t:tt)*) => { $crate::out::write(format_args!("{}\n", format_args!($($t)*))) };
}

pub(crate) use {out, outln};
