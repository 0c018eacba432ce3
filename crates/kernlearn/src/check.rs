//! Checks of parameter domains shared by every module, so each domain has one message.

use crate::{Error, Result};

/// `value` must be finite and `> 0`; the error names the parameter `name`.
pub(crate) fn positive_finite(name: &str, value: f64) -> Result<()> {
    if value > 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!("must be finite and > 0, got {value}"),
        ))
    }
}

/// `value` must be finite and `≥ 0`; the error names the parameter `name`.
pub(crate) fn non_negative_finite(name: &str, value: f64) -> Result<()> {
    if value >= 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!("must be finite and >= 0, got {value}"),
        ))
    }
}

/// Memory this process may still allocate, in bytes: the least of the machine's
/// available memory (Linux `MemAvailable`), what the address-space limit (`ulimit -v`,
/// `RLIMIT_AS`) leaves above the process's current size, and what its cgroup's limit
/// (v2 `memory.max`, v1 `memory.limit_in_bytes`) leaves above the group's usage; 16 GiB
/// when none can be read. Every size check before a large allocation goes through it,
/// so a limit the machine's total does not show still gives an error, not an abort.
pub(crate) fn available_memory() -> u64 {
    let machine = meminfo_available().unwrap_or(16 << 30);
    [Some(machine), address_space_left(), cgroup_left()]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(machine)
}

fn meminfo_available() -> Option<u64> {
    let m = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = m.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `RLIMIT_AS` minus the process's virtual size (`VmSize`), when a limit is set.
#[cfg(target_os = "linux")]
fn address_space_left() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one `rlimit` through a valid pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let used = line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024;
    Some(limit.rlim_cur.saturating_sub(used))
}

/// No address-space limit is read off Linux.
#[cfg(not(target_os = "linux"))]
fn address_space_left() -> Option<u64> {
    None
}

/// The cgroup's memory limit minus what it holds that the kernel cannot reclaim, when
/// the process's cgroup has a limit: its usage less the inactive file cache (as kubelet
/// counts a container's working set), since page cache of files read is dropped before
/// the group would be killed. The process's own group (`/proc/self/cgroup`) under cgroup
/// v2, else the mount's root, else cgroup v1.
fn cgroup_left() -> Option<u64> {
    let read = |p: &str| -> Option<u64> { std::fs::read_to_string(p).ok()?.trim().parse().ok() };
    let stat = |p: &str, key: &str| -> Option<u64> {
        let text = std::fs::read_to_string(p).ok()?;
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(key))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    let own = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("0::").map(str::to_string))
        });
    let mut dirs: Vec<String> = own
        .map(|path| format!("/sys/fs/cgroup{}", path.trim_end_matches('/')))
        .into_iter()
        .collect();
    dirs.push("/sys/fs/cgroup".into());
    for dir in &dirs {
        if let (Some(max), Some(used)) = (
            read(&format!("{dir}/memory.max")),
            read(&format!("{dir}/memory.current")),
        ) {
            let cache = stat(&format!("{dir}/memory.stat"), "inactive_file").unwrap_or(0);
            return Some(max.saturating_sub(used.saturating_sub(cache)));
        }
    }
    let v1 = "/sys/fs/cgroup/memory";
    match (
        read(&format!("{v1}/memory.limit_in_bytes")),
        read(&format!("{v1}/memory.usage_in_bytes")),
    ) {
        (Some(max), Some(used)) if max < 1 << 60 => {
            let cache = stat(&format!("{v1}/memory.stat"), "total_inactive_file").unwrap_or(0);
            Some(max.saturating_sub(used.saturating_sub(cache)))
        }
        _ => None,
    }
}

/// Copies of a dense feature matrix a reader holds at once: the matrix and the entries
/// it was built from (or one working copy of a command that reads it).
pub(crate) const READ_COPIES: f64 = 2.0;

/// Copies of a dense feature matrix a fit holds at once, with room for the allocator:
/// the matrix as read, the training split, its scaled copy and the kernel's reordered
/// copy of the scaled rows (`kernel::reordered`). Measured: a fit on a 40 × 3·10⁶ LIBSVM
/// file (0.96 GB dense) peaks at 4.1 GB resident.
pub(crate) const FIT_COPIES: f64 = 5.0;

/// Whether `copies` copies of a dense matrix of `values` doubles fit in the memory this
/// process may still allocate ([`available_memory`]).
pub(crate) fn dense_matrix_fits(values: usize, copies: f64) -> bool {
    values as f64 * 8.0 * copies <= available_memory() as f64
}

/// Refuses work that needs more memory than is available, before it starts: `bytes`
/// is an estimate of what `what` needs; the error names the option to change.
pub(crate) fn memory_fits(option: &str, what: &str, bytes: f64) -> Result<()> {
    let available = available_memory() as f64;
    if bytes <= available {
        return Ok(());
    }
    Err(Error::param(
        option,
        format!(
            "{what} needs about {:.1} GB of memory, more than the {:.1} GB available",
            bytes / 1e9,
            available / 1e9
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains() {
        assert!(positive_finite("c", 1e-300).is_ok());
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = positive_finite("c", bad).unwrap_err().to_string();
            assert!(e.contains("`c`"), "{e}");
        }
        assert!(non_negative_finite("tau", 0.0).is_ok());
        assert!(non_negative_finite("tau", f64::NAN).is_err());
        assert!(memory_fits("kernels", "x", 1e3).is_ok());
        let e = memory_fits("kernels", "1e8 kernels", 1e30)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`kernels`") && e.contains("GB"), "{e}");
    }
}
