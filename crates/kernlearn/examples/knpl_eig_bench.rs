use faer::{Mat, Par};
use kernlearn::linalg::{project_psd, symmetric_eigen};
use std::time::Instant;

fn main() {
    for n in [100usize, 135, 175, 280, 350] {
        let a = Mat::from_fn(n, n, |i, j| {
            ((i * 7 + j * 13) % 17) as f64 + ((j * 7 + i * 13) % 17) as f64 - 16.0
        });
        for (name, par) in [("seq", Par::Seq), ("rayon", Par::rayon(0))] {
            faer::set_global_parallelism(par);
            let reps = 20;
            let t = Instant::now();
            for _ in 0..reps {
                std::hint::black_box(symmetric_eigen(a.as_ref()).unwrap());
            }
            let e = t.elapsed().as_secs_f64() / reps as f64;
            let t = Instant::now();
            for _ in 0..reps {
                std::hint::black_box(project_psd(a.as_ref()).unwrap());
            }
            let p = t.elapsed().as_secs_f64() / reps as f64;
            println!(
                "n={n} {name}: eig {:.2} ms, project_psd {:.2} ms",
                1e3 * e,
                1e3 * p
            );
        }
    }
}
