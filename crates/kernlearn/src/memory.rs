//! Large zeroed buffers on transparent huge pages.
//!
//! Linux backs a large allocation with 4 KiB pages unless asked (`madvise`, with
//! `/sys/kernel/mm/transparent_hugepage/enabled = madvise`, the common default). For the
//! matrices held whole in memory whose rows are read at random, again and again (each
//! fold's `Q` in a grid search, kept from one fold to the next; the MKL selection's
//! kernel table) that means a TLB miss on nearly every row; 2 MiB pages remove them.
//! A matrix written once and read row by row (a grid search's Gram matrix) stays on
//! ordinary pages: in a virtual machine a fresh huge page can cost more to fault in than
//! its TLB misses (measured on this project's 2-core VM: +10 % on a grid search).

/// `len` zeros, on transparent huge pages where the system offers them for the asking.
/// The pages are not touched here (the allocation is zeroed by the system), so the advice
/// applies before the first write.
pub(crate) fn huge_page_zeros<T: Copy + Default>(len: usize) -> Vec<T> {
    let values = vec![T::default(); len];
    advise_huge_pages(&values);
    values
}

/// Asks for huge pages under the whole 2 MiB pages of `values`'s storage.
fn advise_huge_pages<T>(values: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let start = values.as_ptr() as usize;
        let end = start + std::mem::size_of_val(values);
        let (lo, hi) = (
            start.next_multiple_of(HUGE_PAGE),
            end / HUGE_PAGE * HUGE_PAGE,
        );
        if hi > lo {
            // SAFETY: advice on whole pages inside `values`'s own allocation.
            // MADV_HUGEPAGE changes how pages are backed, never their contents; a refusal
            // (no huge pages) leaves them as they were, so its result is not needed.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = values;
}
