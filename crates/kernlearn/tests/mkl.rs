//! Multiple kernel learning through the public API: Nyström features against the kernel;
//! weights are distributions; multiclass models vote and survive a model file; bad input
//! gets clear errors. The checks against independent computations on the crate's
//! internals (UNIFORM, MWUMKL, Gilbert, EasyMKL's KOMD) are in `src/mkl/tests.rs`.

use kernlearn::bank::{KernelFamily, NystromFeatures};
use kernlearn::data::{read_csv, Dataset, Features, ScaleMode, Scaler};
use kernlearn::kernel::normalize_trace;
use kernlearn::metrics::accuracy;
use kernlearn::mkl::{
    EasyMklParams, MklMethod, MklModel, MklParams, MwumklParams, NystromLinearModel,
    NystromLinearParams, UniformParams,
};
use kernlearn::AnyModel;
use kernlearn::Pipeline;
use kernlearn::Predictor;
use std::path::Path;

/// A data set of the repository's `data/`, scaled to [0, 1], the first `n` rows.
fn data(name: &str, n: usize) -> (Features, Vec<f64>) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(name);
    let d: Dataset = read_csv(&p, None).unwrap();
    let idx: Vec<usize> = (0..n.min(d.len())).collect();
    let d = d.subset(&idx);
    let x = Scaler::fit(ScaleMode::ZeroOne, &d.x)
        .transform(&d.x)
        .unwrap();
    (x, d.y)
}

/// `Σ_i w_i K̄_i` built the slow way: every Gram matrix, trace-normalised.
fn explicit_combination(family: &KernelFamily, x: &Features, w: &[f64]) -> faer::Mat<f64> {
    let n = x.n_rows();
    let mut sum = faer::Mat::<f64>::zeros(n, n);
    for (i, k) in family.expand(x.n_cols()).unwrap().iter().enumerate() {
        let mut g = k.gram(x).unwrap();
        normalize_trace(&mut g).unwrap();
        sum += faer::Scale(w[i]) * &g;
    }
    sum
}

#[test]
fn weights_are_distributions() {
    let (x, y) = data("ionosphere.csv", 200);
    let family: KernelFamily = "family12@each".parse().unwrap();
    for method in [
        MklMethod::Mwumkl({
            let mut p = MwumklParams::default();
            p.c = Some(10.0);
            p
        }),
        MklMethod::EasyMkl(EasyMklParams::default()),
        MklMethod::Uniform({
            let mut p = UniformParams::default();
            p.c = 10.0;
            p
        }),
    ] {
        let name = method.name();
        let model = MklModel::fit(&MklParams::new(method, family.clone()), &x, &y).unwrap();
        for w in model.weights() {
            assert_eq!(w.len(), 12 * x.n_cols());
            assert!(w.iter().all(|&v| v >= 0.0), "{name}");
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{name}");
        }
        let acc = accuracy(&model.predict(&x).unwrap(), &y).unwrap();
        assert!(acc > 0.85, "{name}: training accuracy {acc}");
        let s = model.summary();
        assert_eq!(
            s.extra["weights"][0].as_array().unwrap().len(),
            12 * x.n_cols()
        );
        assert!(s.n_support.unwrap() > 0);
    }
}

#[test]
fn nystrom_features_reproduce_the_kernel_on_the_landmarks() {
    let (x, y) = data("heart.csv", 120);
    let family: KernelFamily = "rbf(sigma=2);poly(degree=2,gamma=1,coef0=1)@[0,4]"
        .parse()
        .unwrap();
    let feats = NystromFeatures::fit(&family, &x, 120, 3).unwrap();
    let z = feats.transform(&x).unwrap();
    let dim = feats.dim();
    let k = explicit_combination(&family, &x, &[1.0, 1.0]);
    for i in (0..120).step_by(7) {
        for j in (0..120).step_by(5) {
            let dot: f64 = (0..dim).map(|c| z[i * dim + c] * z[j * dim + c]).sum();
            assert!(
                (dot - k[(i, j)]).abs() < 1e-6,
                "({i},{j}): {dot} vs {}",
                k[(i, j)]
            );
        }
    }
    let params = NystromLinearParams::new("family12@each".parse().unwrap(), 60);
    let model = NystromLinearModel::fit(&params, &x, &y).unwrap();
    let acc = accuracy(&model.predict(&x).unwrap(), &y).unwrap();
    assert!(acc > 0.8, "training accuracy {acc}");
}

#[test]
fn multiclass_models_vote_and_survive_a_model_file() {
    let (x, y) = data("wine.csv", 178);
    let family: KernelFamily = "family12@each".parse().unwrap();
    let dir = std::env::temp_dir().join(format!("kernlearn-mkl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let models: Vec<AnyModel> = vec![
        AnyModel::new(
            MklModel::fit(
                &MklParams::new(
                    MklMethod::Mwumkl({
                        let mut p = MwumklParams::default();
                        p.c = Some(1.0);
                        p
                    }),
                    family.clone(),
                ),
                &x,
                &y,
            )
            .unwrap(),
        ),
        AnyModel::new(
            MklModel::fit(
                &MklParams::new(MklMethod::EasyMkl(EasyMklParams::default()), family.clone()),
                &x,
                &y,
            )
            .unwrap(),
        ),
        AnyModel::new(
            NystromLinearModel::fit(&NystromLinearParams::new(family.clone(), 50), &x, &y).unwrap(),
        ),
    ];
    for model in models {
        let name = model.method();
        let dec = model.decision_function(&x).unwrap();
        assert!(dec.iter().all(|d| d.len() == 3), "{name}");
        let pred = model.predict(&x).unwrap();
        let acc = accuracy(&pred, &y).unwrap();
        assert!(acc > 0.9, "{name}: training accuracy {acc}");
        let path = dir.join(format!("{name}.json"));
        let scaler = Scaler::identity(x.n_cols());
        Pipeline::new(scaler, model, vec![]).save(&path).unwrap();
        let back = Pipeline::load(&path).unwrap();
        assert_eq!(back.predict(&x).unwrap(), pred, "{name}");
        assert_eq!(back.decision_function(&x).unwrap(), dec, "{name}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_gets_clear_errors() {
    let (x, y) = data("heart.csv", 60);
    let fit = |method: MklMethod, spec: &str| {
        MklModel::fit(&MklParams::new(method, spec.parse().unwrap()), &x, &y)
            .unwrap_err()
            .to_string()
    };
    let mwu = |eps: f64| {
        MklMethod::Mwumkl({
            let mut p = MwumklParams::default();
            p.epsilon = eps;
            p
        })
    };
    let e = fit(mwu(0.0), "family12");
    assert!(e.contains("epsilon") && e.contains("> 0"), "{e}");
    assert!(fit(mwu(-0.5), "family12").contains("epsilon"));
    let e = fit(mwu(0.2), "sigmoid(gamma=1,coef0=0)@each");
    assert!(
        e.contains("not positive semi-definite") && e.contains("MWUMKL"),
        "{e}"
    );
    let e = fit(
        MklMethod::EasyMkl(EasyMklParams::default()),
        "rbf(sigma=1);poly(degree=2,gamma=1,coef0=-3)",
    );
    assert!(e.contains("base kernel 2") && e.contains("EasyMKL"), "{e}");
    // UNIFORM is an SVM: LIBSVM-style indefinite kernels are allowed.
    assert!(MklModel::fit(
        &MklParams::new(
            MklMethod::Uniform(UniformParams::default()),
            "sigmoid(gamma=0.1,coef0=0)".parse().unwrap()
        ),
        &x,
        &y
    )
    .is_ok());
    let e = fit(
        MklMethod::EasyMkl({
            let mut p = EasyMklParams::default();
            p.lambda = 0.0;
            p
        }),
        "family12",
    );
    assert!(e.contains("lambda"), "{e}");
    let e = fit(mwu(0.2), "rbf(sigma=1)@[0,99]");
    assert!(e.contains("feature index 99 out of range"), "{e}");
    let empty = KernelFamily { kernels: vec![] };
    let e = MklModel::fit(&MklParams::new(mwu(0.2), empty), &x, &y)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no kernels"), "{e}");
    let e = KernelFamily::from_spec_or_file("family12@each;rbf(sigma=1)@[1,2")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("column 28") && e.contains("missing closing `]`"),
        "{e}"
    );
    let e = MklModel::fit(
        &MklParams::new(mwu(0.2), "family12".parse().unwrap()),
        &x,
        &vec![1.0; 60],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("at least two classes"), "{e}");
    let model = MklModel::fit(
        &MklParams::new(mwu(0.2), "family12".parse().unwrap()),
        &x,
        &y,
    )
    .unwrap();
    let e = model
        .predict(&Features::new(1, 3, vec![0.0; 3]).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("fitted on 13 features"), "{e}");
}
