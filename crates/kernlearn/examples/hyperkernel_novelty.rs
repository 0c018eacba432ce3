//! Novelty detection with hyperkernels (paper section 7.6, Fig. 5) on 8 × 8 digits.
//!
//! ```text
//! python -c "from sklearn.datasets import load_digits; import numpy as np; d = load_digits(); \
//!   np.savetxt('digits.csv', np.c_[d.data, d.target], delimiter=',', fmt='%g', \
//!   header=','.join([f'p{i}' for i in range(64)] + ['label']), comments='')"
//! cargo run -p kernlearn --example hyperkernel_novelty -- --data digits.csv \
//!     [--digits 1,2] [--out docs/figures/hyperkernel_novelty.png]
//! ```
//!
//! For each digit, the one-class hyperkernel problem (Example 10, ν = 0.1, the paper's
//! other defaults, no scaling) is fitted on all images of that digit; the images are
//! ranked by the decision value `f(x)` (most negative = most novel). The PNG shows, per
//! digit, a row of the 8 most novel images and a row of 8 typical ones (largest `f`),
//! as the paper's Fig. 5 (top rows novel, bottom rows typical). Pixels (0–16) are drawn
//! dark on light, 4× enlarged.

use image::{GrayImage, Luma};
use kernlearn::data::read_csv;
use kernlearn::hyperkernel::{HyperkernelModel, HyperkernelParams, Problem};
use std::collections::BTreeMap;
use std::path::Path;

const SHOW: usize = 8;
const ZOOM: u32 = 4;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut opts = BTreeMap::new();
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        opts.insert(
            k.trim_start_matches("--").to_string(),
            it.next().unwrap_or_default(),
        );
    }
    let data = read_csv(
        Path::new(opts.get("data").ok_or("--data digits.csv")?),
        None,
    )?;
    let digits: Vec<f64> = opts
        .get("digits")
        .map(String::as_str)
        .unwrap_or("1,2")
        .split(',')
        .map(|s| s.trim().parse())
        .collect::<Result<_, _>>()?;
    let out = opts
        .get("out")
        .cloned()
        .unwrap_or_else(|| "hyperkernel_novelty.png".into());
    let mut params = HyperkernelParams::default();
    params.problem = Problem::OneClass;
    let cell = 8 * ZOOM + 2;
    let mut img = GrayImage::from_pixel(
        SHOW as u32 * cell,
        2 * digits.len() as u32 * cell,
        Luma([255]),
    );
    for (g, &digit) in digits.iter().enumerate() {
        let idx: Vec<usize> = (0..data.len()).filter(|&i| data.y[i] == digit).collect();
        let d = data.subset(&idx);
        let start = std::time::Instant::now();
        let model = HyperkernelModel::fit(&params, &d.x, &d.y, &|_| {})?;
        let f = model.decision(&d.x)?;
        let mut order: Vec<usize> = (0..f.len()).collect();
        order.sort_by(|&a, &b| f[a].total_cmp(&f[b]));
        let outliers = f.iter().filter(|&&v| v <= 0.0).count();
        println!(
            "digit {digit}: {} images, rank {}, {} outliers (f ≤ 0) at ν = {}, fit {:.2} s, \
             hypothesis {:?}; most novel rows {:?} (f = {:?})",
            d.len(),
            model.info.rank,
            outliers,
            params.nu(),
            start.elapsed().as_secs_f64(),
            model.info.hypothesis,
            order[..SHOW].iter().map(|&i| idx[i]).collect::<Vec<_>>(),
            order[..SHOW]
                .iter()
                .map(|&i| (f[i] * 1e4).round() / 1e4)
                .collect::<Vec<_>>()
        );
        let rows = [&order[..SHOW], &order[order.len() - SHOW..]];
        for (r, picks) in rows.iter().enumerate() {
            for (c, &i) in picks.iter().enumerate() {
                let px = d.x.row(i);
                for (p, &value) in px.iter().enumerate().take(64) {
                    let v = (255.0 - value.clamp(0.0, 16.0) * 255.0 / 16.0) as u8;
                    for dy in 0..ZOOM {
                        for dx in 0..ZOOM {
                            img.put_pixel(
                                c as u32 * cell + 1 + (p as u32 % 8) * ZOOM + dx,
                                (2 * g + r) as u32 * cell + 1 + (p as u32 / 8) * ZOOM + dy,
                                Luma([v]),
                            );
                        }
                    }
                }
            }
        }
    }
    img.save(&out)?;
    println!("wrote {out}");
    Ok(())
}
