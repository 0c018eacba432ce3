//! LIBSVM-compatible commands: `kernlearn svm-train`, `svm-predict` and `svm-scale` take
//! LIBSVM 3.x's options and positional files, and read and write its model, data and
//! range files, so that a LIBSVM user's scripts run unchanged. Their argv is parsed by
//! hand (LIBSVM's `-w-2 5` is no clap option), before clap sees the command line.

mod predict;
mod scale;
mod train;

/// `println!` that ignores a closed standard output (`| head`) instead of panicking.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}
pub(crate) use say;

use std::io::Write as _;
use std::path::Path;

/// The LIBSVM-compatible commands, listed at the end of `kernlearn --help`.
pub const HELP: &str = "LIBSVM-compatible commands (LIBSVM 3.x options and files; run one \
without arguments for its usage):\n  svm-train    svm-train [options] training_set_file \
[model_file]\n  svm-predict  svm-predict [options] test_file model_file output_file\n  \
svm-scale    svm-scale [options] data_filename";

/// How a LIBSVM-compatible command failed.
#[derive(Debug, PartialEq)]
pub(crate) enum Fail {
    /// A command-line problem (the reason, if any, then the usage, as LIBSVM).
    Usage(Option<String>),
    /// Anything else: the message, printed on standard error.
    Error(String),
}

/// Refuses an output file that is one of the command's inputs: LIBSVM would truncate
/// the data or model it is about to read (`svm-predict test model test`); other
/// existing outputs are replaced, as LIBSVM replaces them.
pub(crate) fn refuse_output_over_input(output: &Path, inputs: &[&Path]) -> Result<(), Fail> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    match inputs.iter().find(|i| same(output, i)) {
        Some(input) => Err(Fail::Error(format!(
            "the output file {} is the input file {}: refusing to overwrite it",
            output.display(),
            input.display()
        ))),
        None => Ok(()),
    }
}

impl From<kernlearn::Error> for Fail {
    fn from(e: kernlearn::Error) -> Self {
        Fail::Error(format!("ERROR: {e}"))
    }
}

/// Runs `kernlearn svm-train|svm-predict|svm-scale ...` and exits when argv[1] names
/// one of them; returns otherwise (the clap commands follow). `--help` anywhere prints
/// the command's usage (status 0); `--quiet` anywhere is `-q`.
pub fn intercept() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let usage = match args.first().map(String::as_str) {
        Some("svm-train") => train::USAGE,
        Some("svm-predict") => predict::USAGE,
        Some("svm-scale") => scale::USAGE,
        _ => return,
    };
    let command = args.remove(0);
    // kernlearn's own `--help` and `--quiet` are understood anywhere (LIBSVM has neither).
    if args.iter().any(|a| a == "--help") {
        let _ = write!(std::io::stdout(), "{usage}");
        let _ = std::io::stdout().flush();
        std::process::exit(0);
    }
    if let Some(at) = args.iter().position(|a| a == "--quiet") {
        args.remove(at);
        if command != "svm-scale" {
            args.insert(0, "-q".to_string());
        }
    }
    let result = match command.as_str() {
        "svm-train" => train::run(&args),
        "svm-predict" => predict::run(&args),
        _ => scale::run(&args),
    };
    let code = match result {
        Ok(()) => 0,
        Err(Fail::Usage(why)) => {
            if let Some(why) = why {
                eprintln!("{why}");
            }
            let _ = write!(std::io::stdout(), "{usage}");
            1
        }
        Err(Fail::Error(message)) => {
            eprintln!("{message}");
            1
        }
    };
    let _ = std::io::stdout().flush();
    std::process::exit(code);
}

/// The value after option `opt` (at `args[*i]`), advancing `i`.
pub(crate) fn value<'a>(args: &'a [String], i: &mut usize, opt: &str) -> Result<&'a str, Fail> {
    *i += 1;
    args.get(*i)
        .map(String::as_str)
        .ok_or_else(|| Fail::Usage(Some(format!("option {opt} needs a value"))))
}

/// Option `opt`'s value as a number (LIBSVM's `atof`, but refusing what is no number).
pub(crate) fn number(v: &str, opt: &str) -> Result<f64, Fail> {
    v.parse::<f64>()
        .ok()
        .filter(|x| !x.is_nan())
        .ok_or_else(|| Fail::Usage(Some(format!("option {opt}: `{v}` is not a number"))))
}

/// Option `opt`'s value as an integer (LIBSVM's `atoi`, but refusing what is none).
pub(crate) fn integer(v: &str, opt: &str) -> Result<i64, Fail> {
    v.parse::<i64>()
        .map_err(|_| Fail::Usage(Some(format!("option {opt}: `{v}` is not an integer"))))
}

/// glibc's `rand()` (the additive feedback generator of `random_r`, TYPE_3), seeded 1 as
/// a program that never calls `srand` is: LIBSVM's cross-validation folds and its SVR
/// probability folds come from it, so on glibc systems they are the same folds.
pub(crate) struct CRand {
    ring: [u32; 34],
    pos: usize,
}

impl CRand {
    /// The generator after `srand(seed)`.
    pub(crate) fn new(seed: u32) -> Self {
        let mut r = [0i64; 34];
        r[0] = if seed == 0 { 1 } else { i64::from(seed) };
        for i in 1..31 {
            r[i] = (16807 * r[i - 1]) % 2_147_483_647;
            if r[i] < 0 {
                r[i] += 2_147_483_647;
            }
        }
        for i in 31..34 {
            r[i] = r[i - 31];
        }
        let mut g = CRand {
            ring: r.map(|v| v as u32),
            pos: 0,
        };
        for _ in 34..344 {
            g.step();
        }
        g
    }

    fn step(&mut self) -> u32 {
        let n = self.ring.len();
        let v = self.ring[(self.pos + n - 31) % n].wrapping_add(self.ring[(self.pos + n - 3) % n]);
        self.ring[self.pos] = v;
        self.pos = (self.pos + 1) % n;
        v
    }

    /// The next `rand()`: 0 ..= 2³¹ − 1.
    pub(crate) fn next(&mut self) -> usize {
        (self.step() >> 1) as usize
    }
}

/// A command line's words (the tests' argv).
#[cfg(test)]
pub(crate) fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crand_is_glibcs_rand() {
        let mut r = CRand::new(1);
        let first: Vec<usize> = (0..3).map(|_| r.next()).collect();
        assert_eq!(first, [1804289383, 846930886, 1681692777]);
    }
}
