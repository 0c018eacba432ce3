//! Cooperative interruption of a running fit.
//!
//! A front end that cannot stop the thread running a fit (Python, whose Ctrl-C reaches
//! only its main thread) calls [`request`]; the long loops poll [`requested`] and end
//! early (the SMO solver at its shrinking checkpoints, every `min(n, 1000)` iterations;
//! network training after each epoch), so the fit returns within moments and the front
//! end discards it and calls [`reset`]. The command line needs none of this: Ctrl-C ends
//! the process, and its outputs are written atomically.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks every running fit of the process to end as soon as it can.
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Clears a request, once the interrupted fit has returned.
pub fn reset() {
    REQUESTED.store(false, Ordering::Relaxed);
}

/// Whether an interruption was requested.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}
