//! Progress display: shown on a terminal, silent with `--quiet` or when stderr is not a TTY.

use indicatif::{ProgressBar, ProgressStyle};
use kernlearn::learner::Progress;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

fn visible(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// A spinner with a message, ticking in the background.
pub fn spinner(quiet: bool, msg: &str) -> ProgressBar {
    if !visible(quiet) {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new_spinner();
    // The elapsed time shows that a long single fit (no steps to count) is running.
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    pb.set_message(msg.to_string());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

/// Runs `fit` while the spinner `pb` follows the SMO solver's way to its tolerance
/// ([`kernlearn::watch`]): from the solver's first report on, a bar with the share of
/// the way and indicatif's estimate of the time left (the share grows about linearly
/// in time, see `watch`).
pub fn watching<T>(pb: &ProgressBar, fit: impl FnOnce() -> T) -> T {
    if pb.is_hidden() {
        return fit();
    }
    kernlearn::watch::reset();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut shown = false;
            while !done.load(Ordering::Relaxed) {
                if let Some(share) = kernlearn::watch::solver_share() {
                    if !shown {
                        pb.set_length(1000);
                        pb.set_style(
                            ProgressStyle::with_template(
                                "{msg} [{bar:30}] {percent}% {elapsed}, about {eta} left",
                            )
                            .unwrap_or_else(|_| ProgressStyle::default_bar())
                            .progress_chars("=> "),
                        );
                        shown = true;
                    }
                    pb.set_position((share * 1000.0) as u64);
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        });
        let out = fit();
        done.store(true, Ordering::Relaxed);
        out
    })
}

/// A bar over `len` steps.
pub fn bar(quiet: bool, len: u64, msg: &str) -> ProgressBar {
    if !visible(quiet) {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.set_message(msg.to_string());
    pb
}

/// Shows one progress event of a fit on `pb` (labelled `msg`): a step advances the bar, an
/// epoch also shows its loss and validation accuracy, a stage names what runs now.
pub fn show(pb: &ProgressBar, msg: &str, p: Progress) {
    match p {
        Progress::Epoch {
            epoch,
            loss,
            val_accuracy,
        } => pb.set_message(format!(
            "{msg}: epoch {epoch}, loss {loss:.4}, validation accuracy {val_accuracy:.4}"
        )),
        Progress::Stage(stage) => pb.set_message(format!("{msg}: {stage}")),
        _ => {}
    }
    if p.advances() {
        pb.inc(1)
    }
}

/// Runs `fit` of a method with `steps` progress steps under a bar counting them, or a
/// spinner showing the elapsed time when it has none; the bar is cleared after.
pub fn fitting<T>(
    quiet: bool,
    steps: u64,
    msg: &str,
    fit: impl FnOnce(&(dyn Fn(Progress) + Sync)) -> T,
) -> T {
    let pb = match steps {
        0 => spinner(quiet, msg),
        n => bar(quiet, n, msg),
    };
    let tick = |p: Progress| show(&pb, msg, p);
    let out = match steps {
        0 => watching(&pb, || fit(&tick)),
        _ => fit(&tick),
    };
    pb.finish_and_clear();
    out
}
