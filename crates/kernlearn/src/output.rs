//! Every file kernlearn writes (models, predictions, traces and their plots, experiment
//! tables, figures) goes through this module, so nothing the user gave is lost:
//!
//! - [`Outputs::plan`] refuses a path that is one of the command's inputs or another
//!   output of the same command (even with `force`), a target that is not a regular
//!   file (a directory, a device such as `/dev/full`, a FIFO), a missing directory, and
//!   an existing file unless `force`;
//! - [`write_atomic`] / [`write_atomic_with`] write a temporary file in the target's
//!   directory, flush it to disk and rename it over the target, removing the temporary
//!   file on every error path; errors name the path the user gave.

use crate::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The inputs and planned outputs of one command.
#[derive(Debug)]
pub struct Outputs {
    inputs: Vec<PathBuf>,
    planned: Vec<PathBuf>,
    force: bool,
}

impl Outputs {
    /// A command that reads `inputs`; `force` allows replacing existing files (never an
    /// input).
    /// An input that is a Gram-set manifest brings the kernel and label files it names
    /// along: they are inputs too.
    pub fn new(inputs: &[&Path], force: bool) -> Self {
        let mut outputs = Self {
            inputs: Vec::new(),
            planned: Vec::new(),
            force,
        };
        for p in inputs {
            outputs.push_input(p);
        }
        outputs
    }

    /// [`Outputs::plan`] for a figure: also refuses an extension the plots cannot write
    /// (PNG and SVG only), so a command fails before it writes anything.
    pub fn plan_figure(&mut self, path: &Path) -> Result<()> {
        self.plan(path)?;
        let ext = path.extension().and_then(|e| e.to_str());
        if !ext.is_some_and(|e| e.eq_ignore_ascii_case("png") || e.eq_ignore_ascii_case("svg")) {
            return Err(refusal(
                path,
                "unsupported file extension; use .png or .svg",
            ));
        }
        Ok(())
    }

    /// Adds an input (e.g. a kernel-family file named by an option) when it is a file.
    pub fn add_input(&mut self, path: &Path) {
        if path.is_file() {
            self.push_input(path);
        }
    }

    fn push_input(&mut self, path: &Path) {
        self.inputs.push(path.to_path_buf());
        let manifest = path.extension().is_some_and(|e| e == "json") && path.is_file();
        if manifest {
            if let Ok(files) = crate::data::gram_set_files(path) {
                self.inputs.extend(files);
            }
        }
    }

    /// Checks that `path` may be written by this command and records it.
    pub fn plan(&mut self, path: &Path) -> Result<()> {
        let inputs: Vec<&Path> = self.inputs.iter().map(PathBuf::as_path).collect();
        crate::data::ensure_not_same_file(path, &inputs)?;
        let planned: Vec<&Path> = self.planned.iter().map(PathBuf::as_path).collect();
        if crate::data::ensure_not_same_file(path, &planned).is_err() {
            return Err(refusal(
                path,
                "this command already writes another output there",
            ));
        }
        check_target(path)?;
        check_writable(path)?;
        if path.exists() && !self.force {
            return Err(refusal(
                path,
                "the file exists (pass «force» to replace it)",
            ));
        }
        self.planned.push(path.to_path_buf());
        Ok(())
    }
}

fn refusal(path: &Path, reason: &str) -> Error {
    Error::WouldOverwrite {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

fn io_error(path: &Path, kind: std::io::ErrorKind, message: String) -> Error {
    Error::io(path, std::io::Error::new(kind, message))
}

/// `path` can be a regular file in an existing directory.
fn check_target(path: &Path) -> Result<()> {
    if path.as_os_str().is_empty() {
        return Err(refusal(path, "the path is empty"));
    }
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.is_dir() {
            return Err(refusal(path, "it is a directory"));
        }
        if !meta.is_file() {
            return Err(refusal(
                path,
                "it is not a regular file (a device, FIFO or socket); kernlearn writes only regular files",
            ));
        }
    }
    let dir = parent(path);
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(io_error(
            path,
            std::io::ErrorKind::NotFound,
            format!("`{}` is not a directory", dir.display()),
        )),
        Err(_) => Err(io_error(
            path,
            std::io::ErrorKind::NotFound,
            format!("directory `{}` does not exist", dir.display()),
        )),
    }
}

/// The directory of `path` accepts a new file: a probe file is created there and
/// removed, so an unwritable folder is refused before any work instead of after the
/// first of several outputs has been written.
fn check_writable(path: &Path) -> Result<()> {
    let probe = parent(path).join(format!(".kernlearn-probe-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(io_error(
            path,
            e.kind(),
            format!("cannot write in `{}`: {e}", parent(path).display()),
        )),
    }
}

/// The directory `path` is in (`.` for a bare file name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A temporary name beside `path` with the same extension (so writers that choose a
/// format by extension, such as the plots, still do).
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_stem()
        .map_or_else(|| "output".into(), |s| s.to_string_lossy());
    let ext = path
        .extension()
        .map_or_else(String::new, |e| format!(".{}", e.to_string_lossy()));
    parent(path).join(format!(".{name}.kernlearn-tmp-{}{ext}", std::process::id()))
}

/// Writes `bytes` to `path` atomically (see the module docs).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |tmp| {
        let mut f = std::fs::File::create(tmp).map_err(|e| Error::io(tmp, e))?;
        f.write_all(bytes).map_err(|e| Error::io(tmp, e))
    })
}

/// Lets `write` produce the file at a temporary path beside `path`, then flushes it to
/// disk and renames it to `path`. The temporary file is removed on every error, and
/// errors name `path`, not the temporary file.
pub fn write_atomic_with(path: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    check_target(path)?;
    let tmp = temp_path(path);
    let result = write(&tmp)
        .and_then(|()| sync(&tmp))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| Error::io(&tmp, e)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(|e| rename_path(e, &tmp, path))
}

fn sync(path: &Path) -> Result<()> {
    std::fs::File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| Error::io(path, e))
}

/// The same error, naming `user` wherever it named the temporary file `tmp`.
fn rename_path(e: Error, tmp: &Path, user: &Path) -> Error {
    let user_name = user.display().to_string();
    let tmp_name = tmp.display().to_string();
    match e {
        Error::Io { path, source } if path == tmp => Error::Io {
            path: user.to_path_buf(),
            source,
        },
        Error::Plot { path, reason } if path == tmp_name => Error::Plot {
            path: user_name,
            reason: reason.replace(&tmp_name, &user.display().to_string()),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("kernlearn-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn plans_refuse_inputs_duplicates_existing_files_and_non_regular_targets() {
        let dir = scratch("plan");
        let data = dir.join("data.csv");
        std::fs::write(&data, "a,label\n1,1\n").unwrap();
        let mut o = Outputs::new(&[&data], true);
        let e = o.plan(&data).unwrap_err().to_string();
        assert!(e.contains("input"), "{e}");
        o.plan(&dir.join("m.json")).unwrap();
        let e = o.plan(&dir.join("m.json")).unwrap_err().to_string();
        assert!(e.contains("another output"), "{e}");
        let e = o.plan(&dir).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        let e = o.plan(Path::new("/dev/null")).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        let e = o.plan(&dir.join("no/such/m.json")).unwrap_err().to_string();
        assert!(e.contains("does not exist") && e.contains("m.json"), "{e}");
        let existing = dir.join("old.json");
        std::fs::write(&existing, "keep").unwrap();
        let e = Outputs::new(&[], false)
            .plan(&existing)
            .unwrap_err()
            .to_string();
        assert!(e.contains("«force»"), "{e}");
        assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn atomic_writes_leave_no_temporary_file_and_name_the_users_path() {
        let dir = scratch("atomic");
        let out = dir.join("x.csv");
        write_atomic(&out, b"a\n").unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "a\n");
        let failed = write_atomic_with(&out, |tmp| {
            std::fs::write(tmp, "partial").unwrap();
            Err(Error::io(tmp, std::io::Error::other("disk full")))
        });
        let e = failed.unwrap_err().to_string();
        assert!(e.contains("x.csv") && !e.contains("kernlearn-tmp"), "{e}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "a\n");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 1, "temporary file left behind");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
