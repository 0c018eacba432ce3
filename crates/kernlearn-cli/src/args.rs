//! Command-line options shared by the subcommands, and their translation into library
//! parameters.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use kernlearn::data::{
    read_csv_unlabeled, read_dataset, read_libsvm, read_libsvm_sparse, Dataset, Format, ScaleMode,
    SparseDataset,
};
use kernlearn::learner::GridSettings;
use kernlearn::method::{spell, Spelling};
use kernlearn::options::{OptionSpec, OptionValue};
use kernlearn::Method;
use kernlearn::MethodKind;
use kernlearn::MethodOptions;
use kernlearn::{Error, Pipeline, Result};
use std::path::{Path, PathBuf};

/// Where the data comes from.
#[derive(Args, Debug, Clone)]
pub struct DataArgs {
    /// Data file (CSV with header, LIBSVM/SVMlight, or KEEL .dat).
    #[arg(long, short = 'd')]
    pub data: PathBuf,
    /// Input format; by default chosen from the extension (.csv, .libsvm/.svm/.txt, .dat).
    #[arg(long)]
    pub format: Option<Format>,
    /// Label/target column of a CSV or KEEL file (default: the last column).
    #[arg(long)]
    pub target: Option<String>,
}

/// Data rows as read: kept sparse (CSR) or dense.
pub enum Rows {
    /// Kept sparse (CSR).
    Sparse(SparseDataset),
    /// Dense.
    Dense(Dataset),
}

/// Dense storage (bytes) above which a LIBSVM file may be kept sparse unasked.
const UNASKED_SPARSE_BYTES: u64 = 64 << 20;
/// How many times its CSR storage the dense form must take for that.
const UNASKED_SPARSE_RATIO: f64 = 8.0;

/// Whether a LIBSVM file read as CSR is kept sparse unasked (by a caller that can take
/// CSR): its dense form would take more than 64 MiB and more than 8 times its CSR form,
/// as LIBSVM and scikit-learn's `load_svmlight_file` keep such files.
pub fn too_wide_for_dense(data: &SparseDataset) -> bool {
    data.dense_bytes() > UNASKED_SPARSE_BYTES && data.dense_to_sparse_ratio() > UNASKED_SPARSE_RATIO
}

impl DataArgs {
    /// The file's format: `--format`, else from its extension.
    pub fn format(&self) -> Result<Format> {
        match self.format {
            Some(f) => Ok(f),
            None => Format::from_path(&self.data),
        }
    }

    /// The training file as `fit` reads it: [`DataArgs::read_libsvm_rows`] for a
    /// LIBSVM/SVMlight file (no `--target`), everything else dense.
    pub fn read_training(
        &self,
        quiet: bool,
        can_take: impl Fn(usize) -> Result<bool>,
    ) -> Result<Rows> {
        if self.format()? != Format::Libsvm || self.target.is_some() {
            return Ok(Rows::Dense(self.read()?));
        }
        self.read_libsvm_rows(None, quiet, can_take)
    }

    /// A LIBSVM/SVMlight file (at least `n_features` columns), read once as CSR and kept
    /// so without `--sparse`, as LIBSVM and scikit-learn's `load_svmlight_file` read such
    /// files, when its dense form would take more than 64 MiB and more than 8 times its
    /// CSR form (12 bytes a non-zero) and the caller can take CSR (`can_take(columns)`:
    /// a method with a sparse kernel, none of the dense-only options; for prediction an
    /// svm model); stderr says so unless `quiet`. Otherwise
    /// densified from the rows read.
    pub fn read_libsvm_rows(
        &self,
        n_features: Option<usize>,
        quiet: bool,
        can_take: impl Fn(usize) -> Result<bool>,
    ) -> Result<Rows> {
        let sparse = read_libsvm_sparse(&self.data, n_features)?;
        let (bytes, ratio) = (sparse.dense_bytes(), sparse.dense_to_sparse_ratio());
        if too_wide_for_dense(&sparse) && can_take(sparse.x.n_cols())? {
            if !quiet {
                eprintln!(
                    "{}: kept sparse ({} non-zeros; dense it would take {:.1} GB, {ratio:.0}× \
                     more)",
                    self.data.display(),
                    sparse.x.nnz(),
                    bytes as f64 / 1e9
                );
            }
            return Ok(Rows::Sparse(sparse));
        }
        let (rows, cols) = (sparse.x.n_rows(), sparse.x.n_cols());
        let path = self.data.display().to_string();
        let dense = sparse.into_dense(&path).map_err(|_| {
            Error::data(format!(
                "{path}: a dense matrix of {rows} rows × {cols} features does not fit in \
                 memory, and this run cannot keep it sparse: sparse fits are svm (fixed or \
                 --select grid), without --target, --trace, --relevance-plot or \
                 --weight-column (--weight-file is fine)"
            ))
        })?;
        Ok(Rows::Dense(dense))
    }

    /// Reads the dataset.
    pub fn read(&self) -> Result<Dataset> {
        read_dataset(&self.data, self.format, self.target.as_deref())
    }

    /// Reads a LIBSVM/SVMlight file as CSR (`--sparse`), `n_features` columns at least;
    /// other formats are refused: they are dense tables.
    pub fn read_sparse(&self, n_features: Option<usize>) -> Result<SparseDataset> {
        let format = self.format()?;
        if format != Format::Libsvm {
            return Err(Error::param(
                "sparse",
                format!(
                    "{}: --sparse reads LIBSVM/SVMlight files, this one is {format:?} (a dense \
                     table; drop --sparse)",
                    self.data.display()
                ),
            ));
        }
        read_libsvm_sparse(&self.data, n_features)
    }
}

/// Per-sample weights of the training rows (`fit`): each row's bound in the SVM dual is
/// `C · weight` (LIBSVM's weighted variant, scikit-learn's `sample_weight`); rows of zero
/// weight are left out. Methods that cannot honour weights refuse them.
#[derive(Args, Debug, Clone, Default)]
pub struct WeightArgs {
    /// Column of the data file (CSV or KEEL with a header) holding each row's weight; it
    /// is taken out of the features.
    #[arg(long, value_name = "NAME", conflicts_with = "weight_file")]
    pub weight_column: Option<String>,
    /// File with one weight per training row (one number a line, in the data's row
    /// order; a first line that is not a number is read as a header).
    #[arg(long, value_name = "FILE")]
    pub weight_file: Option<PathBuf>,
}

impl WeightArgs {
    /// The training set without the weight column (if one was named) and the weights.
    pub fn apply(&self, data: Dataset, path: &Path) -> Result<(Dataset, Option<Vec<f64>>)> {
        if let Some(name) = &self.weight_column {
            let Some(j) = data.feature_names.iter().position(|f| f == name) else {
                return Err(Error::param(
                    "--weight-column",
                    format!(
                        "{}: no feature column `{name}` (columns: {}); the weight column \
                         must be a named column other than the target",
                        path.display(),
                        data.feature_names.join(", ")
                    ),
                ));
            };
            let weights: Vec<f64> = data.x.rows().map(|r| r[j]).collect();
            let keep: Vec<usize> = (0..data.n_features()).filter(|&c| c != j).collect();
            let names = keep
                .iter()
                .map(|&c| data.feature_names[c].clone())
                .collect();
            let rows: Vec<Vec<f64>> = (data.x.rows())
                .map(|r| keep.iter().map(|&c| r[c]).collect())
                .collect();
            let x = kernlearn::data::Features::from_rows(&rows)?;
            let data = Dataset {
                x,
                feature_names: names,
                ..data
            };
            return Ok((data, Some(weights)));
        }
        let weights = self.file_weights(data.len(), path)?;
        Ok((data, weights))
    }

    /// The weights of `--weight-file`, one for each of the `rows` rows of the data file
    /// `path`, or `None` without the option.
    pub fn file_weights(&self, rows: usize, path: &Path) -> Result<Option<Vec<f64>>> {
        let Some(file) = &self.weight_file else {
            return Ok(None);
        };
        let weights = kernlearn::data::read_weight_file(file)?;
        if weights.len() != rows {
            return Err(Error::param(
                "--weight-file",
                format!(
                    "{} has {} weights, {} has {rows} rows (one weight per row)",
                    file.display(),
                    weights.len(),
                    path.display(),
                ),
            ));
        }
        Ok(Some(weights))
    }
}

/// Reads a file to predict on with `pipeline`. When the model stores the names of its
/// feature columns (a CSV header at fit time), a CSV's columns are matched by name: any
/// order is fine, a missing column is an error, and the label is the one column left
/// over (or `--target`; more than one left over is an error). Otherwise columns are
/// taken by position, and a CSV with exactly the model's feature count (or
/// `--no-labels`) is read as unlabelled.
pub fn read_for_prediction(
    path: &Path,
    format: Option<Format>,
    target: Option<&str>,
    pipeline: &Pipeline,
    no_labels: bool,
) -> Result<Dataset> {
    let n_features = pipeline.model.n_features();
    let format = match format {
        Some(f) => f,
        None => Format::from_path(path)?,
    };
    let names = &pipeline.feature_names;
    if format == Format::Libsvm {
        return read_libsvm(path, Some(n_features));
    }
    // By name when the model's names are real names, or when the file shares any of
    // them; by position only for `f1, f2, …` (a model fitted on a file without header
    // names) against a header that has none of those.
    let header = match format {
        Format::Csv => csv_header(path)?,
        _ => Vec::new(),
    };
    let named = format == Format::Csv
        && !names.is_empty()
        && (names.iter().any(|n| header.contains(n)) || !is_default_names(names));
    let data = match format {
        Format::Csv if named => {
            let label = label_column(path, &header, names, target, no_labels)?;
            match label {
                Some(t) => read_dataset(path, Some(format), Some(&t))?,
                None => read_csv_unlabeled(path)?,
            }
        }
        Format::Csv if no_labels || header.len() == n_features => read_csv_unlabeled(path)?,
        _ => read_dataset(path, Some(format), target)?,
    };
    if named && data.feature_names != *names {
        return reorder_columns(data, names, path);
    }
    Ok(data)
}

/// `f1, f2, …`: the names a file without a header gets.
pub fn is_default_names(names: &[String]) -> bool {
    names
        .iter()
        .enumerate()
        .all(|(i, n)| *n == format!("f{}", i + 1))
}

/// The label column among `header` for a model fitted on `names`.
fn label_column(
    path: &Path,
    header: &[String],
    names: &[String],
    target: Option<&str>,
    no_labels: bool,
) -> Result<Option<String>> {
    let extra: Vec<&String> = header.iter().filter(|h| !names.contains(h)).collect();
    match (target, no_labels, extra.as_slice()) {
        (Some(t), _, _) => Ok(Some(t.to_string())),
        (None, _, []) => Ok(None),
        (None, false, [label]) => Ok(Some(label.to_string())),
        (None, _, more) => {
            let shown: Vec<String> = more.iter().take(5).map(|c| format!("`{c}`")).collect();
            let ellipsis = if more.len() > 5 { ", …" } else { "" };
            Err(Error::data(format!(
                "{}: the model was fitted on {} features, input has {} besides one label \
                 column; cannot tell the label among {}{ellipsis}, which are not features \
                 of the model (pass --target NAME{})",
                path.display(),
                names.len(),
                header.len().saturating_sub(1),
                shown.join(", "),
                if no_labels {
                    ""
                } else {
                    ", or drop the extra columns"
                }
            )))
        }
    }
}

/// `data` with its feature columns in the model's order `names`.
pub fn reorder_columns(data: Dataset, names: &[String], path: &Path) -> Result<Dataset> {
    let index: Vec<usize> = names
        .iter()
        .map(|n| {
            data.feature_names
                .iter()
                .position(|f| f == n)
                .ok_or_else(|| {
                    Error::data(format!(
                        "{}: column `{n}`, a feature of the model, is missing",
                        path.display()
                    ))
                })
        })
        .collect::<Result<_>>()?;
    if data.feature_names.len() != names.len() {
        let extra: Vec<&String> = data
            .feature_names
            .iter()
            .filter(|f| !names.contains(f))
            .collect();
        return Err(Error::data(format!(
            "{}: columns {extra:?} are not features of the model",
            path.display()
        )));
    }
    let rows: Vec<Vec<f64>> = data
        .x
        .rows()
        .map(|r| index.iter().map(|&j| r[j]).collect())
        .collect();
    let x = if rows.is_empty() {
        kernlearn::data::Features::new(0, names.len(), Vec::new())?
    } else {
        kernlearn::data::Features::from_rows(&rows)?
    };
    Ok(Dataset {
        x,
        feature_names: names.to_vec(),
        ..data
    })
}

/// The column names of a CSV's header line.
fn csv_header(path: &Path) -> Result<Vec<String>> {
    use std::io::{BufRead, Read};
    // Only a regular file is opened (opening a FIFO blocks), and the header line is
    // read from its first MiB (`/dev/zero` has no line end); the full read that follows
    // goes through the library's bounded reader.
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "it is not a regular file (a directory, device, FIFO or socket); kernlearn \
                 reads only regular files",
            ),
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut header = String::new();
    std::io::BufReader::new(file.take(1 << 20))
        .read_line(&mut header)
        .map_err(|e| Error::io(path, e))?;
    Ok(header
        .trim_end()
        .split(',')
        .map(|c| c.trim().trim_matches('"').to_string())
        .collect())
}

/// `--method` values and their one-line help, from the library's catalogue.
pub fn method_parser() -> impl TypedValueParser<Value = MethodKind> {
    let values = MethodKind::all().map(|k| PossibleValue::new(k.name()).help(k.summary()));
    PossibleValuesParser::new(values).map(|s| s.parse().expect("catalogue names parse"))
}

/// The model to fit: `--method`, `--scale`, `--seed` and every method option of the
/// library's table ([`kernlearn::method::options`]), generated from it. Options the method does not read
/// are refused when the method is built (see `kernlearn methods`).
#[derive(Debug, Clone, Default)]
pub struct ModelArgs {
    /// `--method` (default: svm).
    pub method: Option<MethodKind>,
    /// The method options that were given.
    pub options: MethodOptions,
    /// Feature scaling fitted on the training data.
    pub scale: ScaleMode,
    /// Random seed (splits, CV folds, probability cross-validation, clusterings).
    pub seed: u64,
}

/// `cmd` and its subcommands with every argument's help cut to its first clause for
/// `-h`, one line each, so the list fits a screen; `--help` keeps the whole text.
pub fn one_line_help(cmd: Command) -> Command {
    let cmd = cmd.mut_args(|arg| match (arg.get_help(), arg.get_long_help()) {
        (Some(help), None) => {
            let full = help.to_string();
            let short = first_clause(&full).to_string();
            arg.help(short).long_help(full)
        }
        _ => arg,
    });
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    names
        .iter()
        .fold(cmd, |cmd, name| cmd.mut_subcommand(name, one_line_help))
}

/// The start of an option's help up to its first `;` or parenthesis, without a final
/// period: the line of `-h` (`--help` shows all of it).
fn first_clause(help: &str) -> &str {
    let end = [" (", "; ", ": "]
        .iter()
        .filter_map(|sep| help.find(sep))
        .min()
        .unwrap_or(help.len());
    help[..end].trim_end_matches('.')
}

/// A command-line argument for one library option. Options the base kernel machine
/// does not read are hidden from `--help` (they are a family's: `kernlearn methods
/// METHOD` lists them with their help) but parsed as any other.
fn option_arg(spec: &'static OptionSpec) -> Arg {
    let name = spec.name;
    let mut arg = Arg::new(name)
        .long(name)
        .help(spec.help)
        .hide(!MethodKind::base().info().reads(name));
    if let Some(c) = spec.short {
        arg = arg.short(c);
    }
    // Values are checked as the library will read them, so a bad one fails at parsing.
    let checked = move |v: &str| -> std::result::Result<String, String> {
        let mut o = MethodOptions::default();
        o.set(name, v)
            .map(|_| v.to_string())
            .map_err(|e| spell(&e.to_string(), Spelling::CommandLine))
    };
    match spec.value {
        OptionValue::Flag => arg.action(ArgAction::SetTrue),
        OptionValue::Choice(names) => arg.value_parser(PossibleValuesParser::new(names)),
        OptionValue::Repeated => arg
            .action(ArgAction::Append)
            .value_name("VALUE")
            .value_parser(checked),
        OptionValue::Number => arg.value_name("X").value_parser(checked),
        OptionValue::Count => arg.value_name("N").value_parser(checked),
        _ => arg.value_name("SPEC").value_parser(checked),
    }
}

impl Args for ModelArgs {
    fn augment_args(cmd: Command) -> Command {
        let cmd = cmd
            .arg(
                Arg::new("method")
                    .long("method")
                    .short('m')
                    .value_name("METHOD")
                    .value_parser(method_parser())
                    .hide_possible_values(true)
                    .help(
                        "Method, default svm (`kernlearn methods [METHOD]`: all, or one's options)",
                    )
                    .long_help(
                        "Method (default: svm, i.e. svr when the last column is named \
                         `target`, svc otherwise); `kernlearn methods` lists them, \
                         `kernlearn methods METHOD` the options one reads",
                    ),
            )
            .arg(
                Arg::new("scale")
                    .long("scale")
                    .default_value("01")
                    .value_name("MODE")
                    .value_parser(clap::value_parser!(ScaleMode))
                    .help(
                        "Feature scaling fitted on the training data: none, 01, pm1, standard \
                         or maxabs (divides by the largest |value|; keeps sparse data sparse)",
                    ),
            )
            .arg(
                Arg::new("seed")
                    .long("seed")
                    .default_value("0")
                    .value_name("N")
                    .value_parser(clap::value_parser!(u64))
                    .help(
                        "Random seed (splits, CV folds, probability cross-validation, clusterings)",
                    ),
            );
        kernlearn::method::options()
            .iter()
            .fold(cmd, |cmd, spec| cmd.arg(option_arg(spec)))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for ModelArgs {
    fn from_arg_matches(m: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        let mut me = Self::default();
        me.update_from_arg_matches(m)?;
        Ok(me)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> std::result::Result<(), clap::Error> {
        if let Some(k) = m.get_one::<MethodKind>("method") {
            self.method = Some(*k);
        }
        if let Some(s) = m.get_one::<ScaleMode>("scale") {
            self.scale = *s;
        }
        if let Some(s) = m.get_one::<u64>("seed") {
            self.seed = *s;
        }
        self.options.seed = self.seed;
        for spec in kernlearn::method::options() {
            let values: Vec<String> = match spec.value {
                OptionValue::Flag if m.get_flag(spec.name) => vec!["true".into()],
                OptionValue::Flag => Vec::new(),
                _ => m
                    .get_many::<String>(spec.name)
                    .into_iter()
                    .flatten()
                    .cloned()
                    .collect(),
            };
            for v in values {
                self.options.set(spec.name, &v).map_err(|e| {
                    clap::Error::raw(
                        ErrorKind::ValueValidation,
                        format!("{}\n", spell(&e.to_string(), Spelling::CommandLine)),
                    )
                })?;
            }
        }
        Ok(())
    }
}

impl ModelArgs {
    /// The method named by `--method` (default `svm`).
    pub fn kind(&self) -> MethodKind {
        self.method.unwrap_or_else(MethodKind::base)
    }

    /// The method to run on `data`, with the grid search `grid` when selection is on.
    pub fn method(&self, data: &Dataset, grid: Option<GridSettings>) -> Result<Method> {
        Method::build(self.kind(), &self.options, data, grid)
    }
}
