//! MWUMKL's memory is `O(mn)`: it never holds a Gram matrix. A counting global allocator
//! measures the peak heap growth of a fit (this file is its own test binary, and runs
//! its checks in one test so that nothing else allocates meanwhile).

use kernlearn::bank::KernelFamily;
use kernlearn::data::Features;
use kernlearn::mkl::{MklMethod, MklModel, MklParams, MwumklParams};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout);
        CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak bytes allocated by `f` above what was allocated before it.
fn peak_growth(f: impl FnOnce()) -> usize {
    let base = CURRENT.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    f();
    PEAK.load(Ordering::SeqCst) - base
}

fn problem(n: usize, d: usize) -> (Features, Vec<f64>) {
    let mut s = 12345u64;
    let mut v = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let label = if i % 2 == 0 { 1.0 } else { -1.0 };
        for f in 0..d {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (s >> 11) as f64 / (1u64 << 53) as f64;
            v.push(u + if f == 0 { 0.3 * label } else { 0.0 });
        }
        y.push(label);
    }
    (Features::new(n, d, v).unwrap(), y)
}

#[test]
fn mwumkl_memory_is_linear_in_m_and_n() {
    let mut params = MwumklParams::default();
    params.epsilon = 0.5;
    params.c = Some(1.0);
    // MWUMKL on one class pair, through the public model (one-vs-one over one pair).
    let fit = |family: KernelFamily, x: &Features, y: &[f64]| {
        MklModel::fit(&MklParams::new(MklMethod::Mwumkl(params), family), x, y).unwrap()
    };
    // Warm the thread pool so its setup is not counted.
    let (x, y) = problem(50, 3);
    fit("rbf(sigma=1)".parse().unwrap(), &x, &y);

    // 1,000 kernels on 300 points: m·n² doubles would be 720 MB; m·n doubles 2.4 MB.
    let (n, m) = (300, 1000);
    let (x, y) = problem(n, 4);
    let family: KernelFamily = "rbf(sigma=1)@random(subsets=1000,size=2,seed=1)"
        .parse()
        .unwrap();
    let peak = peak_growth(|| {
        let model = fit(family, &x, &y);
        assert_eq!(model.machines.machines[0].weights.len(), m);
    });
    let budget = 4 * m * n * 8 + (2 << 20);
    assert!(
        peak < budget,
        "{m} kernels × {n} points: peak {peak} bytes > {budget}"
    );

    // 2,000 points, 4 kernels: one n × n matrix of doubles alone would be 32 MB.
    let (n, m) = (2000, 4);
    let (x, y) = problem(n, 3);
    let family: KernelFamily = "rbf(sigma=1);rbf(sigma=2);poly(degree=2,gamma=1,coef0=1);linear"
        .parse()
        .unwrap();
    let peak = peak_growth(|| {
        fit(family, &x, &y);
    });
    let budget = 4 * m * n * 8 + (2 << 20);
    assert!(
        peak < budget && peak < n * n * 8 / 8,
        "{n} points: peak {peak} bytes"
    );
}
