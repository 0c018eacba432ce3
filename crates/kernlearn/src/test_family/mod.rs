//! A family that exists only in the library's own tests, to prove docs/DESIGN.md's
//! "Adding a family": this folder and one name in `families!` are all it took. Its one
//! method is the kernel mean classifier (Schölkopf and Smola, *Learning with Kernels*,
//! §1.2): the class whose mean in the feature space is nearer,
//! `f(x) = mean_{p∈P} k(x, p) − mean_{n∈N} k(x, n) + b`, with
//! `b = ½ (mean k(N, N) − mean k(P, P))` unless `--kernel-mean-no-offset`.

use crate::data::{Dataset, Features};
use crate::kernel::Kernel;
use crate::learner::options::KERNEL_MACHINE;
use crate::learner::{
    timed, AnyModel, ChosenParams, Family, FittedMethod, GridSettings, Learner, Method, MethodInfo,
    Model, ModelKind, ProgressFn, Takes,
};
use crate::options::{MethodOptions, OptionSpec, OptionValue};
use crate::predictor::{FitSummary, Predictor, Task};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// `--kernel-mean-no-offset`.
static NO_OFFSET: OptionSpec = OptionSpec::new(
    "kernel-mean-no-offset",
    OptionValue::Flag,
    "kernel-mean: no offset b (the classes' mean self-similarity is not balanced)",
);

/// The test family.
pub(crate) static FAMILY: Family = Family {
    name: "test family",
    methods: &[MethodInfo {
        name: "kernel-mean",
        tasks: &[Task::Classification],
        summary: "kernel mean classifier (Schölkopf and Smola 2002, §1.2)",
        selection: "none",
        options: &[KERNEL_MACHINE, &[&NO_OFFSET]],
        in_demo: false,
        representations: &[],
        takes: Takes::DENSE,
        build,
    }],
    models: &[ModelKind::of::<KernelMeanModel>()],
    scale_out: &[],
};

fn build(
    _name: &str,
    options: &MethodOptions,
    data: &Dataset,
    search: Option<GridSettings>,
) -> Result<Method> {
    if search.is_some() {
        return Err(Error::param("select", "kernel-mean has no grid search"));
    }
    Ok(Method::new(KernelMeanLearner {
        kernel: options.kernel(data.x.n_cols())?,
        offset: !options.flag(&NO_OFFSET),
    }))
}

/// The kernel mean classifier's learner.
#[derive(Clone, Debug)]
struct KernelMeanLearner {
    kernel: Kernel,
    offset: bool,
}

impl Learner for KernelMeanLearner {
    fn name(&self) -> String {
        "kernel-mean".into()
    }
    fn task(&self) -> Task {
        Task::Classification
    }
    fn steps(&self) -> u64 {
        0
    }
    fn fit(&self, x: &Features, y: &[f64], _seed: u64, _: ProgressFn) -> Result<FittedMethod> {
        let (model, secs) = timed(|| KernelMeanModel::fit(&self.kernel, self.offset, x, y))?;
        Ok(FittedMethod::new(
            AnyModel::new(model),
            ChosenParams::default(),
            secs,
        ))
    }
}

/// The fitted classifier: the training points, their signs (`+1` for `classes[0]`) and
/// the offset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct KernelMeanModel {
    kernel: Kernel,
    points: Features,
    signs: Vec<f64>,
    classes: Vec<f64>,
    offset: f64,
}

impl KernelMeanModel {
    fn fit(kernel: &Kernel, offset: bool, x: &Features, y: &[f64]) -> Result<Self> {
        let mut classes: Vec<f64> = Vec::new();
        for &v in y {
            if !classes.contains(&v) {
                classes.push(v);
            }
        }
        if classes.len() != 2 {
            return Err(Error::data(format!(
                "kernel-mean is binary; the labels have {} classes",
                classes.len()
            )));
        }
        let signs: Vec<f64> = y
            .iter()
            .map(|&v| if v == classes[0] { 1.0 } else { -1.0 })
            .collect();
        let mut model = Self {
            kernel: kernel.clone(),
            points: x.clone(),
            signs,
            classes,
            offset: 0.0,
        };
        if offset {
            // Without an offset, f(x_t) = mean k(x_t, P) − mean k(x_t, N); averaged over
            // P that is mean k(P, P) − mean k(N, P), over N mean k(P, N) − mean k(N, N),
            // so b = ½ (mean k(N, N) − mean k(P, P)) = −½ (mean_P f + mean_N f).
            let f: Vec<f64> = x.rows().map(|q| model.decision(q)).collect();
            let mean_over = |s: f64| {
                let (sum, n) = f
                    .iter()
                    .zip(&model.signs)
                    .filter(|(_, &v)| v == s)
                    .fold((0.0, 0.0), |(a, n), (v, _)| (a + v, n + 1.0));
                sum / n
            };
            model.offset = -0.5 * (mean_over(1.0) + mean_over(-1.0));
        }
        Ok(model)
    }

    fn decision(&self, q: &[f64]) -> f64 {
        let (mut pos, mut neg, mut np, mut nn) = (0.0, 0.0, 0.0, 0.0);
        for (t, &s) in self.signs.iter().enumerate() {
            let k = self.kernel.eval(q, self.points.row(t));
            if s > 0.0 {
                pos += k;
                np += 1.0;
            } else {
                neg += k;
                nn += 1.0;
            }
        }
        pos / np - neg / nn + self.offset
    }
}

impl Predictor for KernelMeanModel {
    fn method(&self) -> String {
        "kernel-mean".into()
    }
    fn task(&self) -> Task {
        Task::Classification
    }
    fn n_features(&self) -> usize {
        self.points.n_cols()
    }
    fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        let dec = self.decision_function(x)?;
        Ok(dec.iter().map(|d| self.predict_from_decision(d)).collect())
    }
    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        if x.n_cols() != self.n_features() {
            return Err(Error::data("kernel-mean: wrong number of features"));
        }
        Ok(x.rows().map(|q| vec![self.decision(q)]).collect())
    }
    fn params_json(&self) -> serde_json::Value {
        serde_json::json!({ "kernel": self.kernel.to_string(), "offset": self.offset })
    }
    fn summary(&self) -> FitSummary {
        FitSummary {
            n_support: Some(self.signs.len()),
            ..FitSummary::default()
        }
    }
    fn classes(&self) -> Vec<f64> {
        self.classes.clone()
    }
    fn validate(&self) -> Result<()> {
        crate::validate::ensure(self.signs.len() == self.points.n_rows(), || {
            "signs: one per point".to_string()
        })
    }
}

impl Model for KernelMeanModel {
    const KIND: &'static str = "kernel_mean";
}

#[cfg(test)]
mod tests {
    use crate::data::{synthetic::sandwich, ScaleMode};
    use crate::method::{options, MethodKind};
    use crate::options::MethodOptions;
    use crate::pipeline::Pipeline;
    use crate::Method;

    /// The family is in the catalogue, its option in the option table, and a fit goes
    /// through the one fitting path and a model file like any other.
    #[test]
    fn a_family_registered_by_one_name_is_a_method_like_any_other() {
        let kind: MethodKind = "kernel-mean".parse().unwrap();
        assert_eq!(kind.family().name, "test family");
        assert!(options().iter().any(|o| o.name == "kernel-mean-no-offset"));
        assert!(MethodKind::catalogue_json()
            .to_string()
            .contains("kernel-mean"));
        let data = sandwich(80, 0.2, 4).unwrap();
        let mut o = MethodOptions::default();
        o.set("sigma", "1").unwrap();
        let method = Method::build(kind, &o, &data, None).unwrap();
        let fitted = Pipeline::fit(ScaleMode::None, &method, &data, 0, &|_| {}).unwrap();
        let p = fitted.pipeline;
        let text = serde_json::to_string(&p).unwrap();
        assert!(text.contains(r#""kind":"kernel_mean""#), "{text}");
        let back = Pipeline::from_json(&text, "kernel-mean").unwrap();
        assert_eq!(back.predict(&data.x).unwrap(), p.predict(&data.x).unwrap());
        // Against the formula evaluated directly on the first point.
        let k = |a: &[f64], b: &[f64]| (-(a[0] - b[0]).powi(2) - (a[1] - b[1]).powi(2)).exp();
        let (pos, neg): (Vec<usize>, Vec<usize>) =
            (0..data.len()).partition(|&t| data.y[t] == p.model.classes()[0]);
        let mean = |q: &[f64], set: &[usize]| {
            set.iter().map(|&t| k(q, data.x.row(t))).sum::<f64>() / set.len() as f64
        };
        let within = |set: &[usize]| {
            set.iter().map(|&t| mean(data.x.row(t), set)).sum::<f64>() / set.len() as f64
        };
        let b = 0.5 * (within(&neg) - within(&pos));
        let q = data.x.row(0);
        let want = mean(q, &pos) - mean(q, &neg) + b;
        let got = p.model.decision_function(&data.x).unwrap()[0][0];
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        let e = Method::build(kind, &o.clone(), &data, Some(Default::default()));
        assert!(e.is_err());
    }
}
