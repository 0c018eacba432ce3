//! Draws the papers' toy comparisons with the baseline SVM: for the sandwich (KNPL
//! Fig. 2) and clowns (DANK Fig. 1) sets, an SVM with σ = 1 beside SVM-CV (σ, C by
//! 5-fold CV), support vectors ringed, and the two decision functions as heat maps.
//! The learned-kernel panels are added by the methods' own examples.
//!
//! ```text
//! cargo run --release -p kernlearn --example toy_figures -- OUT_DIR [N] [SEED]
//! ```

use kernlearn::data::synthetic;
use kernlearn::kernel::Kernel;
use kernlearn::plot::{decision_boundaries, heatmap, GridValues, HeatPanel, Panel, PlaneGrid};
use kernlearn::select::GridSearch;
use kernlearn::svm::{SvmModel, SvmParams};
use std::path::PathBuf;

fn decision_on(grid: &PlaneGrid, model: &SvmModel) -> kernlearn::Result<GridValues> {
    let dec = model.decision_function(&grid.points())?;
    grid.with_values(dec.into_iter().map(|d| d[0]).collect())
}

fn accuracy(model: &SvmModel, data: &kernlearn::data::Dataset) -> kernlearn::Result<f64> {
    let pred = model.predict(&data.x)?;
    kernlearn::metrics::accuracy(&pred, &data.y)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = PathBuf::from(
        args.first()
            .ok_or("usage: toy_figures OUT_DIR [N] [SEED]")?,
    );
    let n: usize = args.get(1).map_or(Ok(200), |s| s.parse())?;
    let seed: u64 = args.get(2).map_or(Ok(1), |s| s.parse())?;
    std::fs::create_dir_all(&out)?;
    for name in synthetic::NAMES {
        let data = synthetic::generate(name, n, seed)?;
        let grid = PlaneGrid::around(&data.x, 0.08, 200, 200)?;
        let mut fixed = SvmParams::default();
        fixed.kernel = Kernel::rbf_sigma(1.0)?;
        let plain = SvmModel::fit(&fixed, &data.x, &data.y)?;
        let (sel, cv) = GridSearch::new(SvmParams::default()).fit_best(&data.x, &data.y, &|| {})?;
        let (plain_dec, cv_dec) = (decision_on(&grid, &plain)?, decision_on(&grid, &cv)?);
        let panels = [
            Panel::new(
                format!(
                    "SVM σ = 1 (train acc {:.1} %)",
                    100.0 * accuracy(&plain, &data)?
                ),
                &data.x,
                &data.y,
                &plain_dec,
            )
            .support(&plain.sv_indices),
            Panel::new(
                format!(
                    "SVM-CV σ = {}, C = {} ({:.1} %)",
                    sel.best.sigma,
                    sel.best.c,
                    100.0 * accuracy(&cv, &data)?
                ),
                &data.x,
                &data.y,
                &cv_dec,
            )
            .support(&cv.sv_indices)
            .boundary_name("SVM-CV")
            .overlay("SVM σ = 1", &plain_dec, kernlearn::plot::LineKind::Dashed),
        ];
        for ext in ["png", "svg"] {
            let path = out.join(format!("{name}.{ext}"));
            decision_boundaries(&path, &panels)?;
            println!("{}", path.display());
            let values = [
                HeatPanel::new("SVM σ = 1", &plain_dec).points(&data.x, &data.y),
                HeatPanel::new("SVM-CV", &cv_dec).points(&data.x, &data.y),
            ];
            let path = out.join(format!("{name}-values.{ext}"));
            heatmap(&path, &values, "decision value", None)?;
            println!("{}", path.display());
        }
    }
    Ok(())
}
