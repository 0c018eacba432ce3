//! `kernlearn svm-train`: LIBSVM's `svm-train` (options, defaults, messages and model
//! file), on kernlearn's solver (which follows LIBSVM's iterations).

use super::{integer, number, say, value, CRand, Fail};
use kernlearn::data::{parse_libsvm_sparse, read_libsvm_sparse, Features, SparseFeatures};
use kernlearn::kernel::Kernel;
use kernlearn::svm::{printf_g, ClassOrder, SvmModel, SvmParams, SvmType};
use std::path::{Path, PathBuf};

pub(crate) const USAGE: &str = "\
Usage: svm-train [options] training_set_file [model_file]
options:
-s svm_type : set type of SVM (default 0)
	0 -- C-SVC		(multi-class classification)
	1 -- nu-SVC		(multi-class classification)
	2 -- one-class SVM
	3 -- epsilon-SVR	(regression)
	4 -- nu-SVR		(regression)
-t kernel_type : set type of kernel function (default 2)
	0 -- linear: u'*v
	1 -- polynomial: (gamma*u'*v + coef0)^degree
	2 -- radial basis function: exp(-gamma*|u-v|^2)
	3 -- sigmoid: tanh(gamma*u'*v + coef0)
	4 -- precomputed kernel (kernel values in training_set_file)
-d degree : set degree in kernel function (default 3)
-g gamma : set gamma in kernel function (default 1/num_features)
-r coef0 : set coef0 in kernel function (default 0)
-c cost : set the parameter C of C-SVC, epsilon-SVR, and nu-SVR (default 1)
-n nu : set the parameter nu of nu-SVC, one-class SVM, and nu-SVR (default 0.5)
-p epsilon : set the epsilon in loss function of epsilon-SVR (default 0.1)
-m cachesize : set cache memory size in MB (default 100)
-e epsilon : set tolerance of termination criterion (default 0.001)
-h shrinking : whether to use the shrinking heuristics, 0 or 1 (default 1)
-b probability_estimates : whether to train a SVC or SVR model for probability estimates, 0 or 1 (default 0)
-wi weight : set the parameter C of class i to weight*C, for C-SVC (default 1)
-v n: n-fold cross validation mode
-q : quiet mode (no outputs)
The model file (default: the training file's name + .model, in the current directory)
is replaced if it exists, as LIBSVM's svm-train does. No scaling (see svm-scale).
";

/// svm-train's command line.
#[derive(Debug, PartialEq)]
pub(crate) struct TrainArgs {
    svm_type: i64,
    kernel_type: i64,
    degree: i64,
    gamma: f64,
    coef0: f64,
    c: f64,
    nu: f64,
    p: f64,
    cache_mb: f64,
    eps: f64,
    shrinking: i64,
    probability: i64,
    /// `-wi weight`, in the order given.
    weights: Vec<(i64, f64)>,
    folds: Option<usize>,
    quiet: bool,
    input: PathBuf,
    model: PathBuf,
}

/// Parses svm-train's arguments (after the command name) as LIBSVM's
/// `parse_command_line`: options first, then the training file and the model file.
pub(crate) fn parse(args: &[String]) -> Result<TrainArgs, Fail> {
    let mut a = TrainArgs {
        svm_type: 0,
        kernel_type: 2,
        degree: 3,
        gamma: 0.0,
        coef0: 0.0,
        c: 1.0,
        nu: 0.5,
        p: 0.1,
        cache_mb: 100.0,
        eps: 1e-3,
        shrinking: 1,
        probability: 0,
        weights: Vec::new(),
        folds: None,
        quiet: false,
        input: PathBuf::new(),
        model: PathBuf::new(),
    };
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') && args[i].len() > 1 {
        let opt = args[i].as_str();
        if opt == "-q" {
            a.quiet = true;
            i += 1;
            continue;
        }
        if let Some(label) = opt.strip_prefix("-w") {
            let label = integer(label, opt).map_err(|_| {
                Fail::Usage(Some(format!(
                    "option {opt}: `{label}` is not a class label (write -w<label> <weight>, \
                     e.g. -w-1 5)"
                )))
            })?;
            let w = number(value(args, &mut i, opt)?, opt)?;
            a.weights.push((label, w));
            i += 1;
            continue;
        }
        let v = value(args, &mut i, opt)?;
        match opt {
            "-s" => a.svm_type = integer(v, opt)?,
            "-t" => a.kernel_type = integer(v, opt)?,
            "-d" => a.degree = integer(v, opt)?,
            "-g" => a.gamma = number(v, opt)?,
            "-r" => a.coef0 = number(v, opt)?,
            "-n" => a.nu = number(v, opt)?,
            "-m" => a.cache_mb = number(v, opt)?,
            "-c" => a.c = number(v, opt)?,
            "-e" => a.eps = number(v, opt)?,
            "-p" => a.p = number(v, opt)?,
            "-h" => a.shrinking = integer(v, opt)?,
            "-b" => a.probability = integer(v, opt)?,
            "-v" => {
                let n = integer(v, opt)?;
                if n < 2 {
                    return Err(Fail::Usage(Some(
                        "n-fold cross validation: n must >= 2".to_string(),
                    )));
                }
                a.folds = Some(n as usize);
            }
            _ => return Err(Fail::Usage(Some(format!("Unknown option: {opt}")))),
        }
        i += 1;
    }
    let Some(input) = args.get(i) else {
        return Err(Fail::Usage(None));
    };
    a.input = PathBuf::from(input);
    a.model = match args.get(i + 1) {
        Some(m) => PathBuf::from(m),
        None => {
            let base = input.rsplit('/').next().unwrap_or(input);
            PathBuf::from(format!("{base}.model"))
        }
    };
    if args.len() > i + 2 {
        return Err(Fail::Usage(Some(format!(
            "unexpected argument `{}` after the model file",
            args[i + 2]
        ))));
    }
    Ok(a)
}

/// LIBSVM's `svm_check_parameter` on the parts that do not need the data, with its
/// messages.
fn check(a: &TrainArgs) -> Result<(), Fail> {
    let err = |m: &str| Err(Fail::Error(format!("ERROR: {m}")));
    if !(0..=4).contains(&a.svm_type) {
        return err("unknown svm type");
    }
    if !(0..=4).contains(&a.kernel_type) {
        return err("unknown kernel type");
    }
    if matches!(a.kernel_type, 1..=3) && a.gamma < 0.0 {
        return err("gamma < 0");
    }
    if a.kernel_type == 1 && a.degree < 0 {
        return err("degree of polynomial kernel < 0");
    }
    if a.cache_mb <= 0.0 {
        return err("cache_size <= 0");
    }
    if a.eps <= 0.0 {
        return err("eps <= 0");
    }
    if matches!(a.svm_type, 0 | 3 | 4) && a.c <= 0.0 {
        return err("C <= 0");
    }
    if matches!(a.svm_type, 1 | 2 | 4) && (a.nu <= 0.0 || a.nu > 1.0) {
        return err("nu <= 0 or nu > 1");
    }
    if a.svm_type == 3 && a.p < 0.0 {
        return err("p < 0");
    }
    if a.shrinking != 0 && a.shrinking != 1 {
        return err("shrinking != 0 and shrinking != 1");
    }
    if a.probability != 0 && a.probability != 1 {
        return err("probability != 0 and probability != 1");
    }
    if a.probability == 1 && a.svm_type == 2 {
        return err("one-class SVM probability output not supported yet");
    }
    Ok(())
}

/// The training rows: feature rows (dense, or CSR when the dense form would be large),
/// or for a precomputed kernel the Gram matrix `K[i][j] = k(x_i, x_j)` with each row's
/// serial number (its `0:` column).
pub(crate) enum Rows {
    Dense(Features),
    Sparse(SparseFeatures),
    Gram(Features, Vec<usize>),
}

impl Rows {
    fn len(&self) -> usize {
        match self {
            Rows::Dense(x) | Rows::Gram(x, _) => x.n_rows(),
            Rows::Sparse(x) => x.n_rows(),
        }
    }

    /// Fits on rows `idx` (all rows when `None`).
    fn fit(
        &self,
        params: &SvmParams,
        y: &[f64],
        idx: Option<&[usize]>,
    ) -> kernlearn::Result<SvmModel> {
        let ys: Vec<f64> = idx.map_or_else(|| y.to_vec(), |i| i.iter().map(|&t| y[t]).collect());
        match (self, idx) {
            (Rows::Dense(x), None) => SvmModel::fit(params, x, y),
            (Rows::Dense(x), Some(i)) => SvmModel::fit(params, &x.select_rows(i), &ys),
            (Rows::Sparse(x), None) => SvmModel::fit_sparse(params, x, y),
            (Rows::Sparse(x), Some(i)) => SvmModel::fit_sparse(params, &x.select_rows(i), &ys),
            (Rows::Gram(k, _), None) => SvmModel::fit(params, k, y),
            (Rows::Gram(k, _), Some(i)) => SvmModel::fit(params, &gram_block(k, i, i)?, &ys),
        }
    }

    /// Rows `test` as LIBSVM would see them against a model fitted on rows `train`.
    fn query(&self, test: &[usize], train: &[usize]) -> kernlearn::Result<SparseFeatures> {
        match self {
            Rows::Dense(x) => SparseFeatures::from_dense(&x.select_rows(test)),
            Rows::Sparse(x) => Ok(x.select_rows(test)),
            Rows::Gram(k, _) => SparseFeatures::from_dense(&gram_block(k, test, train)?),
        }
    }
}

/// `K[rows][cols]`.
fn gram_block(k: &Features, rows: &[usize], cols: &[usize]) -> kernlearn::Result<Features> {
    let values = rows
        .iter()
        .flat_map(|&r| cols.iter().map(move |&c| k.row(r)[c]))
        .collect();
    Features::new(rows.len(), cols.len(), values)
}

/// Reads the training file: labels and rows, and the largest feature index (LIBSVM's
/// default γ is its inverse).
fn read_rows(path: &Path, precomputed: bool) -> Result<(Vec<f64>, Rows, usize), Fail> {
    if precomputed {
        let KernelRows { y, x: k, serials } = read_precomputed(path, true)?;
        let n = y.len();
        let Some(max) = serials.iter().copied().max() else {
            return Err(Fail::Error(format!("{}: no data rows", path.display())));
        };
        let mut values = Vec::with_capacity(n * n);
        for i in 0..n {
            let (idx, vals) = k.row(i);
            for &s in &serials {
                let col = (s - 1) as u32;
                values.push(idx.binary_search(&col).map_or(0.0, |p| vals[p]));
            }
        }
        return Ok((y, Rows::Gram(Features::new(n, n, values)?, serials), max));
    }
    let data = read_libsvm_sparse(path, None)?;
    let max_index = data.x.n_cols();
    // Dense rows unless too wide (the rule of `kernlearn fit`).
    if crate::args::too_wide_for_dense(&data) {
        return Ok((data.y, Rows::Sparse(data.x), max_index));
    }
    let what = path.display().to_string();
    let data = data.into_dense(&what)?;
    Ok((data.y, Rows::Dense(data.x), max_index))
}

/// The rows of a precomputed kernel's file.
pub(crate) struct KernelRows {
    /// Labels.
    pub(crate) y: Vec<f64>,
    /// Kernel values: column `t` against training row `t + 1` (LIBSVM index `t + 1`).
    pub(crate) x: SparseFeatures,
    /// Each row's `0:serial` (1-based).
    pub(crate) serials: Vec<usize>,
}

/// Reads a file of a precomputed kernel: each row's `0:serial` token is taken out, the
/// rest (kernel values at indices 1..) read as LIBSVM rows. Errors as LIBSVM's.
pub(crate) fn read_precomputed(path: &Path, training: bool) -> Result<KernelRows, Fail> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Fail::Error(format!("can't open input file {name}: {e}")))?;
    let (mut rest, mut serials) = (String::with_capacity(text.len()), Vec::new());
    for (ln, line) in text.lines().enumerate() {
        let mut tokens = line.split_ascii_whitespace();
        let Some(label) = tokens.next() else {
            continue;
        };
        // Test rows' serial numbers can be any value (LIBSVM's README: "?"); only
        // training rows name their own row of the kernel.
        let serial = tokens
            .next()
            .and_then(|t| t.strip_prefix("0:"))
            .and_then(|s| {
                if training {
                    s.parse::<f64>().ok()
                } else {
                    Some(1.0)
                }
            })
            .filter(|&s| s >= 1.0)
            .ok_or_else(|| {
                Fail::Error(format!(
                    "{name}:{}: Wrong input format: first column must be 0:sample_serial_number \
                     (from 1) with a precomputed kernel (-t 4)",
                    ln + 1
                ))
            })?;
        serials.push(serial as usize);
        rest.push_str(label);
        for t in tokens {
            rest.push(' ');
            rest.push_str(t);
        }
        rest.push('\n');
    }
    let data = parse_libsvm_sparse(&rest, &name, None)?;
    let max_index = data.x.n_cols();
    if let Some(s) = serials.iter().find(|&&s| training && s > max_index) {
        return Err(Fail::Error(format!(
            "{name}: Wrong input format: sample_serial_number {s} out of range (1..{max_index})"
        )));
    }
    Ok(KernelRows {
        y: data.y,
        x: data.x,
        serials,
    })
}

/// The library's parameters for `a` on data with `max_index` features and classes
/// `labels` (class weights of absent labels are dropped with LIBSVM's warning).
fn params_of(a: &TrainArgs, max_index: usize, y: &[f64]) -> Result<SvmParams, Fail> {
    let gamma = if a.gamma == 0.0 && max_index > 0 {
        1.0 / max_index as f64
    } else {
        a.gamma
    };
    let mut p = SvmParams::default();
    p.svm_type = [
        SvmType::CSvc,
        SvmType::NuSvc,
        SvmType::OneClass,
        SvmType::EpsilonSvr,
        SvmType::NuSvr,
    ][a.svm_type as usize];
    p.kernel = match a.kernel_type {
        0 => Kernel::Linear,
        1 => Kernel::Polynomial {
            gamma,
            coef0: a.coef0,
            degree: a.degree as u32,
        },
        2 => Kernel::Rbf { gamma },
        3 => Kernel::Sigmoid {
            gamma,
            coef0: a.coef0,
        },
        _ => Kernel::Precomputed,
    };
    p.c = a.c;
    p.nu = a.nu;
    p.epsilon = a.p;
    p.probability = a.probability == 1 && matches!(a.svm_type, 0 | 1);
    p.solver.tol = a.eps;
    p.solver.shrinking = a.shrinking == 1;
    p.solver.cache_bytes = (a.cache_mb * f64::from(1 << 20)) as usize;
    p.class_order = ClassOrder::FirstSeen;
    if matches!(a.svm_type, 0 | 1) {
        for &(label, w) in &a.weights {
            let l = label as f64;
            if !y.contains(&l) {
                eprintln!("WARNING: class label {label} specified in weight is not found");
            } else if let Some(e) = p.class_weights.iter_mut().find(|(c, _)| *c == l) {
                e.1 *= w;
            } else {
                p.class_weights.push((l, w));
            }
        }
    }
    Ok(p)
}

/// LIBSVM's check that ν-SVC is feasible for every pair of classes.
fn check_nu(a: &TrainArgs, y: &[f64]) -> Result<(), Fail> {
    if a.svm_type != 1 {
        return Ok(());
    }
    let (labels, _, count) = group_classes(y);
    for i in 0..labels.len() {
        for j in i + 1..labels.len() {
            let (n1, n2) = (count[i] as f64, count[j] as f64);
            if a.nu * (n1 + n2) / 2.0 > n1.min(n2) {
                return Err(Fail::Error("ERROR: specified nu is infeasible".to_string()));
            }
        }
    }
    Ok(())
}

/// LIBSVM's `svm_group_classes`: labels by first appearance (−1/+1 swapped to +1
/// first), each class's start in `perm` and count; `perm` lists rows by class.
fn group_classes(y: &[f64]) -> (Vec<f64>, Vec<usize>, Vec<usize>) {
    let mut labels: Vec<f64> = Vec::new();
    let mut count: Vec<usize> = Vec::new();
    for &v in y {
        match labels.iter().position(|&l| l == v) {
            Some(j) => count[j] += 1,
            None => {
                labels.push(v);
                count.push(1);
            }
        }
    }
    if labels == [-1.0, 1.0] {
        labels.swap(0, 1);
        count.swap(0, 1);
    }
    let mut start = vec![0; labels.len()];
    for i in 1..labels.len() {
        start[i] = start[i - 1] + count[i - 1];
    }
    (labels, start, count)
}

/// Rows grouped by class in `labels` order (LIBSVM's `perm`).
fn grouped_rows(y: &[f64], labels: &[f64]) -> Vec<usize> {
    labels
        .iter()
        .flat_map(|&l| (0..y.len()).filter(move |&i| y[i] == l))
        .collect()
}

/// LIBSVM's `svm_cross_validation`: the predicted label or value of every row when
/// its fold was held out (stratified folds for classification), folds drawn with
/// `rand()` as LIBSVM draws them.
fn cross_validate(
    rows: &Rows,
    y: &[f64],
    params: &SvmParams,
    folds: usize,
    rng: &mut CRand,
    quiet: bool,
) -> Result<Vec<f64>, Fail> {
    let l = rows.len();
    let mut nr_fold = folds;
    if nr_fold > l {
        nr_fold = l;
        eprintln!("WARNING: # folds > # data. Will use # folds = # data instead (i.e., leave-one-out cross validation)");
    }
    let (perm, fold_start) =
        if params.svm_type.is_regressor() || params.svm_type == SvmType::OneClass || nr_fold >= l {
            let mut perm: Vec<usize> = (0..l).collect();
            for i in 0..l {
                let j = i + rng.next() % (l - i);
                perm.swap(i, j);
            }
            (
                perm,
                (0..=nr_fold).map(|i| i * l / nr_fold).collect::<Vec<_>>(),
            )
        } else {
            stratified_folds(y, nr_fold, rng)
        };
    let mut target = vec![0.0; l];
    for f in 0..nr_fold {
        let (begin, end) = (fold_start[f], fold_start[f + 1]);
        let train: Vec<usize> = perm[..begin].iter().chain(&perm[end..]).copied().collect();
        let test = &perm[begin..end];
        let model = rows.fit(params, y, Some(&train))?;
        if !quiet {
            let ys: Vec<f64> = train.iter().map(|&t| y[t]).collect();
            print_solver(&model, &ys);
        }
        let x = rows.query(test, &train)?;
        let predictions = if params.probability {
            let p = model.predict_proba_libsvm(&x)?;
            p.into_iter().map(|(label, _)| label).collect()
        } else {
            model.predict_libsvm(&x)?
        };
        for (&t, v) in test.iter().zip(predictions) {
            target[t] = v;
        }
    }
    Ok(target)
}

/// The stratified folds of `svm_cross_validation`: rows in fold order and each fold's
/// start.
fn stratified_folds(y: &[f64], nr_fold: usize, rng: &mut CRand) -> (Vec<usize>, Vec<usize>) {
    let (labels, start, count) = group_classes(y);
    let mut index = grouped_rows(y, &labels);
    for c in 0..labels.len() {
        for i in 0..count[c] {
            let j = i + rng.next() % (count[c] - i);
            index.swap(start[c] + j, start[c] + i);
        }
    }
    let fold_count: Vec<usize> = (0..nr_fold)
        .map(|i| {
            (0..labels.len())
                .map(|c| (i + 1) * count[c] / nr_fold - i * count[c] / nr_fold)
                .sum()
        })
        .collect();
    let mut fold_start = vec![0; nr_fold + 1];
    for i in 1..=nr_fold {
        fold_start[i] = fold_start[i - 1] + fold_count[i - 1];
    }
    let mut perm = vec![0; y.len()];
    let mut next = fold_start.clone();
    for c in 0..labels.len() {
        for i in 0..nr_fold {
            let begin = start[c] + i * count[c] / nr_fold;
            let end = start[c] + (i + 1) * count[c] / nr_fold;
            for &row in &index[begin..end] {
                perm[next[i]] = row;
                next[i] += 1;
            }
        }
    }
    (perm, fold_start)
}

/// LIBSVM's `svm_svr_probability`: the scale σ of a Laplace model of the 5-fold
/// cross-validated residuals (those beyond 5 standard deviations left out).
fn svr_sigma(
    rows: &Rows,
    y: &[f64],
    params: &SvmParams,
    rng: &mut CRand,
    quiet: bool,
) -> Result<f64, Fail> {
    let target = cross_validate(rows, y, params, 5, rng, quiet)?;
    let residuals: Vec<f64> = y.iter().zip(&target).map(|(y, t)| y - t).collect();
    let l = y.len() as f64;
    let mae = residuals.iter().map(|r| r.abs()).fold(0.0, |a, b| a + b) / l;
    let std = (2.0 * mae * mae).sqrt();
    let (mut count, mut sum) = (0usize, 0.0);
    for r in &residuals {
        if r.abs() > 5.0 * std {
            count += 1;
        } else {
            sum += r.abs();
        }
    }
    Ok(sum / (l - count as f64))
}

/// Runs svm-train.
pub(crate) fn run(args: &[String]) -> Result<(), Fail> {
    let a = parse(args)?;
    if a.folds.is_none() {
        super::refuse_output_over_input(&a.model, &[a.input.as_path()])?;
    }
    let precomputed = a.kernel_type == 4;
    let (mut y, rows, max_index) = read_rows(&a.input, precomputed).map_err(|e| match e {
        Fail::Error(m) if m.starts_with("ERROR: ") => Fail::Error(m[7..].to_string()),
        other => other,
    })?;
    check(&a)?;
    if matches!(a.svm_type, 0 | 1) {
        // LIBSVM groups classes by `(int)label`.
        if y.iter().any(|v| v.fract() != 0.0) {
            eprintln!("WARNING: class labels are truncated to integers, as LIBSVM does");
        }
        for v in &mut y {
            *v = v.trunc();
        }
    }
    check_nu(&a, &y)?;
    let mut params = params_of(&a, max_index, &y)?;
    let mut rng = CRand::new(1);
    if let Some(folds) = a.folds {
        let target = cross_validate(&rows, &y, &params, folds, &mut rng, a.quiet)?;
        print_cv(&y, &target, params.svm_type.is_regressor());
        return Ok(());
    }
    let mut sigma = None;
    if a.probability == 1 && params.svm_type.is_regressor() {
        let s = svr_sigma(&rows, &y, &params, &mut rng, a.quiet)?;
        if !a.quiet {
            say!("Prob. model for test data: target value = predicted value + z,\nz: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma= {}", printf_g(s, 6));
        }
        sigma = Some(s);
    }
    params.seed = 1;
    let mut model = rows.fit(&params, &y, None)?;
    if let Some(s) = sigma {
        model.prob_a = vec![s];
    }
    if let Rows::Gram(_, serials) = &rows {
        for i in &mut model.sv_indices {
            *i = serials[*i] - 1;
        }
    }
    if !a.quiet {
        print_solver(&model, &y);
    }
    model.save_libsvm_model(&a.model).map_err(|e| {
        Fail::Error(format!(
            "can't save model to file {}: {e}",
            a.model.display()
        ))
    })
}

/// The solver's summary of each subproblem as LIBSVM prints it while training
/// (`#iter`, `nu` / `C` / `epsilon`, `obj`, `rho`, `nSV`, `nBSV`, `Total nSV`) for a
/// model fitted on labels `y`; its progress marks (`.` and `*`) and its hint that `-h 0`
/// may be faster are not reproduced.
fn print_solver(model: &SvmModel, y: &[f64]) {
    let p = &model.params;
    let weight = |label: f64| {
        (p.class_weights.iter())
            .find(|(l, _)| *l == label)
            .map_or(1.0, |&(_, w)| w)
    };
    let mut pairs = Vec::new();
    for i in 0..model.classes.len() {
        for j in i + 1..model.classes.len() {
            pairs.push((i, j));
        }
    }
    for (k, coef) in model.subproblem_coef.iter().enumerate() {
        let iter = model
            .info
            .subproblem_iterations
            .get(k)
            .copied()
            .unwrap_or(0);
        let derived = model.info.derived.get(k).copied().unwrap_or(0.0);
        let l = coef.len() as f64;
        let sum: f64 = coef.iter().map(|c| c.abs()).fold(0.0, |a, b| a + b);
        // The bounds of the positive and negative points, and where the positives end.
        let (up, un, n_pos) = match (p.svm_type, pairs.get(k)) {
            (SvmType::CSvc, Some(&(i, j))) => {
                let n_pos = y.iter().filter(|&&v| v == model.classes[i]).count();
                (
                    p.c * weight(model.classes[i]),
                    p.c * weight(model.classes[j]),
                    n_pos,
                )
            }
            (SvmType::NuSvc, _) => (derived, derived, coef.len()),
            (SvmType::OneClass, _) => (1.0, 1.0, coef.len()),
            _ => (p.c, p.c, coef.len()),
        };
        say!("optimization finished, #iter = {iter}");
        match p.svm_type {
            SvmType::CSvc if up == un => say!("nu = {:.6}", sum / (up * l)),
            SvmType::NuSvc => say!("C = {derived:.6}"),
            SvmType::EpsilonSvr => say!("nu = {:.6}", sum / (p.c * l)),
            SvmType::NuSvr => say!("epsilon = {derived:.6}"),
            _ => {}
        }
        let obj = model.info.objectives.get(k).copied().unwrap_or(0.0);
        let rho = model.rho.get(k).copied().unwrap_or(0.0);
        say!("obj = {obj:.6}, rho = {rho:.6}");
        let n_sv = coef.iter().filter(|c| c.abs() > 0.0).count();
        let n_bsv = (coef.iter().enumerate())
            .filter(|&(t, c)| c.abs() > 0.0 && c.abs() >= if t < n_pos { up } else { un })
            .count();
        say!("nSV = {n_sv}, nBSV = {n_bsv}");
    }
    if !model.classes.is_empty() {
        say!("Total nSV = {}", model.n_support());
    }
}

/// The lines `svm-train -v` prints.
fn print_cv(y: &[f64], target: &[f64], regression: bool) {
    let l = y.len() as f64;
    if regression {
        let (mut err, mut sv, mut sy, mut svv, mut syy, mut svy) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        for (&y, &v) in y.iter().zip(target) {
            err += (v - y) * (v - y);
            sv += v;
            sy += y;
            svv += v * v;
            syy += y * y;
            svy += v * y;
        }
        say!(
            "Cross Validation Mean squared error = {}",
            printf_g(err / l, 6)
        );
        let r2 = ((l * svy - sv * sy) * (l * svy - sv * sy))
            / ((l * svv - sv * sv) * (l * syy - sy * sy));
        say!(
            "Cross Validation Squared correlation coefficient = {}",
            printf_g(r2, 6)
        );
    } else {
        let correct = y.iter().zip(target).filter(|(y, t)| y == t).count();
        say!(
            "Cross Validation Accuracy = {}%",
            printf_g(100.0 * correct as f64 / l, 6)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::words as args;

    #[test]
    fn parses_libsvm_options_and_weights() {
        let a = parse(&args("-s 0 -c 10 -w1 1 -w-2 5 -w4 2 -q data/train.txt")).unwrap();
        assert_eq!(a.c, 10.0);
        assert_eq!(a.weights, [(1, 1.0), (-2, 5.0), (4, 2.0)]);
        assert!(a.quiet);
        assert_eq!(a.input, PathBuf::from("data/train.txt"));
        assert_eq!(a.model, PathBuf::from("train.txt.model"));
        let a = parse(&args("-g 0.5 -v 5 train out.model")).unwrap();
        assert_eq!((a.gamma, a.folds), (0.5, Some(5)));
        assert_eq!(a.model, PathBuf::from("out.model"));
    }

    #[test]
    fn names_the_option_and_why() {
        let why = |line: &str| match parse(&args(line)) {
            Err(Fail::Usage(Some(m))) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(why("-x 1 train"), "Unknown option: -x");
        assert_eq!(why("-c"), "option -c needs a value");
        assert_eq!(why("-c ten train"), "option -c: `ten` is not a number");
        assert!(why("-wx 2 train").contains("-wx"));
        assert_eq!(why("-v 1 train"), "n-fold cross validation: n must >= 2");
        assert_eq!(parse(&args("-c 1")).unwrap_err(), Fail::Usage(None));
    }

    #[test]
    fn stratified_folds_keep_every_row_once() {
        let y = [1.0, -1.0, 1.0, 1.0, -1.0, 2.0, 2.0, 1.0];
        let (perm, start) = stratified_folds(&y, 3, &mut CRand::new(1));
        let mut sorted = perm.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..8).collect::<Vec<_>>());
        assert_eq!((start[0], start[3]), (0, 8));
    }
}
