//! Property tests of every parser: CSV, LIBSVM, KEEL, kernel specs, kernel-family specs
//! (text and JSON) and model files.
//!
//! For each parser: arbitrary input (bytes, including invalid UTF-8 through the file
//! readers, and text over the format's alphabet) returns `Ok` or `Err` and never panics;
//! mutations of the repository's valid files (bit flips, inserted separators and
//! quotes, deleted ranges, swapped / duplicated / deleted lines, truncation, numbers
//! replaced by `NaN`, `inf`, `1e308`, `-0`, huge integers, empty and duplicated fields)
//! never panic either; and a valid file written by the library's own writer (or a spec
//! printed by `Display`) reads back equal.
//!
//! Case counts are small by default (the whole file runs in a few seconds); set
//! `PROPTEST_CASES` to run every property with that many cases instead. The long run of
//! `scripts/fuzz_parsers.sh` (over a million generated inputs) is reported in
//! `docs/RELIABILITY.md`, "Parsers: property tests".

use kernlearn::bank::{FamilyItem, FeatureSet, KernelFamily, KernelSet};
use kernlearn::data::{
    parse_csv, parse_csv_unlabeled, parse_keel, parse_keel_with_target, parse_libsvm, read_csv,
    read_dataset, read_keel, read_libsvm, to_csv_string, to_keel_string, to_libsvm_string,
    write_csv, write_keel, write_libsvm, Dataset, Features, Format, ScaleMode,
};
use kernlearn::kernel::Kernel;
use kernlearn::MethodOptions;
use kernlearn::{Method, MethodKind, Pipeline};
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::LazyLock;

// ---------------------------------------------------------------------------------------
// Configuration and shared inputs
// ---------------------------------------------------------------------------------------

/// `default_cases` cases, or `PROPTEST_CASES` when it is set (`ProptestConfig::default()`
/// reads it; `with_cases` would override it).
fn config(default_cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = default_cases;
    }
    config
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// A fresh path in a per-process temporary directory (removed by [`TempFile`]'s drop).
struct TempFile(PathBuf);

impl TempFile {
    fn new(ext: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!("kernlearn-props-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        TempFile(dir.join(format!("f{n}.{ext}")))
    }

    fn with_bytes(ext: &str, bytes: &[u8]) -> Self {
        let f = Self::new(ext);
        std::fs::write(&f.0, bytes).unwrap();
        f
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

static CSV_FILES: LazyLock<Vec<String>> = LazyLock::new(|| {
    [
        "data/heart.csv",
        "tests/fixtures/tiny.raw.csv",
        "tests/fixtures/glass.train.csv",
        "tests/fixtures/models-v1/heart120.csv",
    ]
    .iter()
    .map(|p| read(p))
    .collect()
});

static LIBSVM_FILES: LazyLock<Vec<String>> = LazyLock::new(|| {
    [
        "tests/fixtures/heart.train.libsvm",
        "tests/fixtures/tiny.train.libsvm",
        "tests/fixtures/sonar.test.libsvm",
        "tests/fixtures/glass.test.libsvm",
    ]
    .iter()
    .map(|p| read(p))
    .collect()
});

/// A hand-written KEEL file using every header feature the reader knows.
const KEEL_TOY: &str = "\
@relation  toy
% a comment
@attribute SepalLength real [4.3, 7.9]
@Attribute Colour {red, 'dark green', blue}
@ATTRIBUTE count integer[0,10]
@attribute 'odd, name' numeric
@attribute Class{Iris-setosa, Iris-versicolor}
@inputs SepalLength, Colour, count, 'odd, name'
@outputs Class
@data
5.1, red, 3, 1e-3, Iris-setosa
4.9,'dark green',0,-0,Iris-versicolor
% a comment between rows

6.0, blue, 10, 2.5, Iris-setosa
";

/// KEEL texts: [`KEEL_TOY`], and data/heart.csv and data/wine.csv written by the KEEL
/// writer (nominal `{-1, 1}` and `{1, 2, 3}` outputs, integer and real inputs).
static KEEL_FILES: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut files = vec![KEEL_TOY.to_string()];
    for (path, relation) in [("data/heart.csv", "heart"), ("data/wine.csv", "wine")] {
        let data = read_csv(&repo().join(path), None).unwrap();
        files.push(to_keel_string(&data, relation).unwrap());
    }
    files
});

/// The model files of release 0.1.0 and the data each was fitted on.
const MODELS: [(&str, &str); 8] = [
    ("svc", "data/heart.csv"),
    ("svr", "data/housing.csv"),
    ("knpl", "data/wine.csv"),
    ("dank", "data/heart.csv"),
    ("dank-scalable", "data/heart.csv"),
    ("mwumkl", "data/heart.csv"),
    ("nystrom-linear", "data/heart.csv"),
    ("ldmkl", "data/wine.csv"),
];

/// A model fixture: its text, its parsed JSON, the places a structural mutation may hit
/// and the first rows of its data (raw features).
struct ModelFixture {
    name: &'static str,
    text: String,
    json: Value,
    paths: Vec<Vec<Seg>>,
    rows: Features,
}

static MODEL_FILES: LazyLock<Vec<ModelFixture>> = LazyLock::new(|| {
    MODELS
        .iter()
        .map(|&(name, data)| {
            let text = read(&format!("tests/fixtures/models-v1/{name}.json"));
            let json: Value = serde_json::from_str(&text).unwrap();
            let mut paths = Vec::new();
            collect_paths(&json, &mut Vec::new(), &mut paths);
            let data = read_csv(&repo().join(data), None).unwrap();
            let rows = data.x.select_rows(&[0, 1, 2, 3, 4]);
            ModelFixture {
                name,
                text,
                json,
                paths,
                rows,
            }
        })
        .collect()
});

// ---------------------------------------------------------------------------------------
// Byte-level mutations of valid files
// ---------------------------------------------------------------------------------------

/// Replacements for a number: non-finite values, extremes, signed zeros, integers past
/// `u32`/`i64`/`u64`, missing-value markers, malformed numbers. Integers between 10^5 and
/// 10^10 are left out on purpose: as a LIBSVM feature index they ask for a dense matrix
/// of gigabytes (by design the reader densifies; see `libsvm_mutations_never_panic`).
const NUMBERS: &[&str] = &[
    "NaN",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "+inf",
    "Infinity",
    "-Infinity",
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "1e309",
    "-1e309",
    "2.2250738585072014e-308",
    "5e-324",
    "1e-400",
    "-0",
    "-0.0",
    "+0",
    "0",
    "1",
    "-1",
    "2",
    "13",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999",
    "",
    "-",
    "?",
    "NA",
    "<null>",
    "1,5",
    "1.2.3",
    "0x10",
    "1_000",
    "١٢",
    "+",
    "e5",
    ".",
    "1e",
    "--1",
];

/// Snippets inserted into files: separators, quotes, line ends, comment starts, KEEL
/// keywords, a byte-order mark, a NUL, a lone surrogate's worth of bytes, invalid UTF-8.
const SNIPPETS: &[&[u8]] = &[
    b",",
    b",,",
    b"\"",
    b"\"\"",
    b"'",
    b"\n",
    b"\r\n",
    b"\r",
    b" ",
    b"\t",
    b":",
    b"::",
    b"#",
    b"%",
    b"@",
    b"@data\n",
    b"@attribute x real\n",
    b"@attribute y {a, b}\n",
    b"@inputs x\n",
    b"@outputs y\n",
    b"{",
    b"}",
    b"[",
    b"]",
    b"(",
    b")",
    b"=",
    b";",
    b"qid:3 ",
    b" 1:1",
    b" 0:1",
    b"\xef\xbb\xbf",
    b"\0",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    "é".as_bytes(),
    "中".as_bytes(),
];

#[derive(Clone, Debug)]
enum Mutation {
    FlipBit(Index, u8),
    InsertByte(Index, u8),
    InsertSnippet(Index, usize),
    Delete(Index, usize),
    Truncate(Index),
    SwapLines(Index, Index),
    DuplicateLine(Index),
    DeleteLine(Index),
    ReplaceNumber(Index, usize),
    EmptyField(Index),
    DuplicateField(Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        2 => (any::<Index>(), 0u8..8).prop_map(|(i, b)| Mutation::FlipBit(i, b)),
        1 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::InsertByte(i, b)),
        2 => (any::<Index>(), 0..SNIPPETS.len()).prop_map(|(i, s)| Mutation::InsertSnippet(i, s)),
        1 => (any::<Index>(), 1usize..16).prop_map(|(i, n)| Mutation::Delete(i, n)),
        1 => any::<Index>().prop_map(Mutation::Truncate),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        1 => any::<Index>().prop_map(Mutation::DuplicateLine),
        1 => any::<Index>().prop_map(Mutation::DeleteLine),
        4 => (any::<Index>(), 0..NUMBERS.len()).prop_map(|(i, n)| Mutation::ReplaceNumber(i, n)),
        1 => any::<Index>().prop_map(Mutation::EmptyField),
        1 => any::<Index>().prop_map(Mutation::DuplicateField),
    ]
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec(mutation(), 1..5)
}

/// `(start, end)` of every line, without its `\n`.
fn line_spans(b: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' {
            spans.push((start, i));
            start = i + 1;
        }
    }
    spans.push((start, b.len()));
    spans
}

/// `(start, end)` of maximal runs of bytes that satisfy `inside`.
fn runs(b: &[u8], inside: impl Fn(u8) -> bool) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, &c) in b.iter().enumerate() {
        match (start, inside(c)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, b.len()));
    }
    spans
}

/// Numbers: runs of `[0-9.eE+-]` holding a digit.
fn number_spans(b: &[u8]) -> Vec<(usize, usize)> {
    runs(b, |c| c.is_ascii_digit() || b".eE+-".contains(&c))
        .into_iter()
        .filter(|&(s, e)| b[s..e].iter().any(u8::is_ascii_digit))
        .collect()
}

/// Fields: runs of bytes other than `,` `;` blanks and line ends.
fn field_spans(b: &[u8]) -> Vec<(usize, usize)> {
    runs(b, |c| !b",; \t\r\n".contains(&c))
}

fn pick(spans: &[(usize, usize)], i: &Index) -> Option<(usize, usize)> {
    (!spans.is_empty()).then(|| spans[i.index(spans.len())])
}

fn apply(b: &mut Vec<u8>, m: &Mutation) {
    let pos = |i: &Index, len: usize| i.index(len + 1);
    match m {
        Mutation::FlipBit(i, bit) => {
            if !b.is_empty() {
                let p = i.index(b.len());
                b[p] ^= 1 << bit;
            }
        }
        Mutation::InsertByte(i, byte) => {
            let p = pos(i, b.len());
            b.insert(p, *byte);
        }
        Mutation::InsertSnippet(i, s) => {
            let p = pos(i, b.len());
            b.splice(p..p, SNIPPETS[*s].iter().copied());
        }
        Mutation::Delete(i, n) => {
            let p = pos(i, b.len());
            let end = (p + n).min(b.len());
            b.drain(p..end);
        }
        Mutation::Truncate(i) => {
            let p = pos(i, b.len());
            b.truncate(p);
        }
        Mutation::SwapLines(x, y) => {
            let spans = line_spans(b);
            let (a, c) = (x.index(spans.len()), y.index(spans.len()));
            let (a, c) = (a.min(c), a.max(c));
            if a != c {
                let (la, lc) = (spans[a], spans[c]);
                let mut out = b[..la.0].to_vec();
                out.extend_from_slice(&b[lc.0..lc.1]);
                out.extend_from_slice(&b[la.1..lc.0]);
                out.extend_from_slice(&b[la.0..la.1]);
                out.extend_from_slice(&b[lc.1..]);
                *b = out;
            }
        }
        Mutation::DuplicateLine(i) => {
            let (s, e) = pick(&line_spans(b), i).unwrap();
            let mut line = b[s..e].to_vec();
            line.push(b'\n');
            b.splice(s..s, line);
        }
        Mutation::DeleteLine(i) => {
            let (s, e) = pick(&line_spans(b), i).unwrap();
            b.drain(s..(e + 1).min(b.len()));
        }
        Mutation::ReplaceNumber(i, n) => {
            if let Some((s, e)) = pick(&number_spans(b), i) {
                b.splice(s..e, NUMBERS[*n].bytes());
            }
        }
        Mutation::EmptyField(i) => {
            if let Some((s, e)) = pick(&field_spans(b), i) {
                b.drain(s..e);
            }
        }
        Mutation::DuplicateField(i) => {
            if let Some((s, e)) = pick(&field_spans(b), i) {
                let sep = if s > 0 && b" \t".contains(&b[s - 1]) {
                    b[s - 1]
                } else {
                    b','
                };
                let mut copy = vec![sep];
                copy.extend_from_slice(&b[s..e]);
                b.splice(e..e, copy);
            }
        }
    }
}

/// `files[which]` with `muts` applied, as bytes.
fn mutate(files: &[String], which: &Index, muts: &[Mutation]) -> Vec<u8> {
    let mut bytes = files[which.index(files.len())].as_bytes().to_vec();
    for m in muts {
        apply(&mut bytes, m);
    }
    bytes
}

// ---------------------------------------------------------------------------------------
// Arbitrary inputs
// ---------------------------------------------------------------------------------------

/// Bytes: arbitrary, or over a format's `alphabet` (which finds far more structure).
fn arbitrary_bytes(alphabet: &'static str) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..256),
        prop::string::string_regex(alphabet)
            .unwrap()
            .prop_map(String::into_bytes),
        any::<String>().prop_map(String::into_bytes),
    ]
}

const CSV_ALPHABET: &str = "[a-c0-9,\"\n\r .eE+-]{0,120}";
const LIBSVM_ALPHABET: &str = "[0-9:# \n\r\t.eE+-qid]{0,120}";
const KEEL_ALPHABET: &str =
    "(@relation r\n|@attribute [ab] (real|integer|\\{x, ?y\\})\n|@inputs a\n|@outputs b\n|@data\n|[0-9xy,'% .?-]{0,12}\n){0,10}";
const SPEC_ALPHABET: &str =
    "(rbf|poly|linear|sigmoid|chi2|ard_rbf|laplacian|precomputed|family12|gamma|sigma|degree|coef0|gammas|sigmas|each|all|random|subsets|size|seed|[0-9.eE+-]{1,4}|[=,:;@()\\[\\] ]){0,16}";
const JSON_ALPHABET: &str = "[\\[\\]{}:,\"a-z0-9.eE+ -]{0,80}";

// ---------------------------------------------------------------------------------------
// Generated valid datasets
// ---------------------------------------------------------------------------------------

/// Finite values, with weight on the ones that are hard to print and read back.
fn finite() -> impl Strategy<Value = f64> {
    use prop::num::f64 as f;
    prop_oneof![
        3 => (-1000i32..1000).prop_map(f64::from),
        3 => f::POSITIVE | f::NEGATIVE | f::NORMAL | f::SUBNORMAL | f::ZERO,
        2 => -1e3..1e3f64,
        1 => prop::sample::select(vec![
            0.0,
            -0.0,
            0.1,
            1.0 / 3.0,
            1e15,
            1e-7,
            999_999_999_999_999.0,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
        ]),
    ]
}

/// A column name: a letter first (so no name reads as a number), then letters, digits,
/// blanks, punctuation, quotes and non-ASCII characters.
fn name() -> impl Strategy<Value = String> {
    prop::string::string_regex("[A-Za-zé中_][A-Za-z0-9_ .,;:%'\"é中{}\\[\\]-]{0,10}").unwrap()
}

/// Rows × features, labels (integers or any finite values), column names.
fn dataset(
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) -> impl Strategy<Value = Dataset> {
    (rows, cols, any::<bool>())
        .prop_flat_map(|(n, d, integer_labels)| {
            let labels = if integer_labels {
                prop::collection::vec((-3i32..4).prop_map(f64::from), n).boxed()
            } else {
                prop::collection::vec(finite(), n).boxed()
            };
            (
                prop::collection::vec(finite(), n * d),
                labels,
                prop::collection::vec(name(), d),
                name(),
                Just((n, d)),
            )
        })
        .prop_map(|(values, y, feature_names, target_name, (n, d))| Dataset {
            x: Features::new(n, d, values).unwrap(),
            y,
            feature_names,
            target_name,
        })
}

fn assert_same_bits(a: &Dataset, b: &Dataset) {
    assert_eq!(a, b);
    for (u, v) in a.x.as_slice().iter().zip(b.x.as_slice()) {
        assert_eq!(u.to_bits(), v.to_bits(), "{u} read back as {v}");
    }
    for (u, v) in a.y.iter().zip(&b.y) {
        assert_eq!(u.to_bits(), v.to_bits(), "{u} read back as {v}");
    }
}

// ---------------------------------------------------------------------------------------
// Readers of every format, from files (bytes, so invalid UTF-8 reaches the reader)
// ---------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(64))]

    /// Any bytes in a file: every dataset reader, the model loader and the family loader
    /// return `Ok` or `Err`.
    #[test]
    fn file_readers_never_panic(bytes in arbitrary_bytes(CSV_ALPHABET)) {
        let f = TempFile::with_bytes("txt", &bytes);
        for format in [Format::Csv, Format::Libsvm, Format::Keel] {
            let _ = read_dataset(f.path(), Some(format), None);
        }
        let _ = read_dataset(f.path(), Some(Format::Csv), Some("a"));
        let _ = read_libsvm(f.path(), Some(3));
        let _ = read_keel(f.path());
        let _ = Pipeline::load(f.path());
        let _ = KernelFamily::load(f.path());
        let _ = KernelFamily::from_spec_or_file(&f.path().display().to_string());
    }
}

// ---------------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------------

fn check_csv(text: &str, target: &str) {
    for target in [None, Some("label"), Some(target)] {
        if let Ok(d) = parse_csv(text, "m.csv", target) {
            assert_eq!(d.y.len(), d.len());
            d.check_shape().unwrap();
            assert!(d.x.find_non_finite().is_none());
        }
    }
    if let Ok(d) = parse_csv_unlabeled(text, "m.csv") {
        assert!(d.y.is_empty());
        d.check_shape().unwrap();
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn csv_arbitrary_text_never_panics(
        bytes in arbitrary_bytes(CSV_ALPHABET),
        target in "[a-c ]{0,3}",
    ) {
        check_csv(&String::from_utf8_lossy(&bytes), &target);
    }

    #[test]
    fn csv_mutations_never_panic(
        which in any::<Index>(),
        muts in mutations(),
        target in "[a-z_]{0,6}",
    ) {
        let bytes = mutate(&CSV_FILES, &which, &muts);
        check_csv(&String::from_utf8_lossy(&bytes), &target);
    }

    /// Labelled and unlabelled datasets written by `to_csv_string` / `write_csv` read
    /// back with the same names and bit-identical values.
    #[test]
    fn csv_round_trip(
        data in dataset(1..12, 1..6),
        labelled in any::<bool>(),
        padded in any::<bool>(),
    ) {
        let mut data = data;
        if padded {
            // Blanks around a name survive: the writer quotes such names.
            data.feature_names[0] = format!(" {} ", data.feature_names[0]);
        }
        if labelled {
            let text = to_csv_string(&data).unwrap();
            let back = parse_csv(&text, "rt.csv", None)
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_same_bits(&back, &data);
            let f = TempFile::new("csv");
            write_csv(f.path(), &data).unwrap();
            assert_same_bits(&read_csv(f.path(), None).unwrap(), &data);
        } else {
            data.y.clear();
            data.target_name.clear();
            let text = to_csv_string(&data).unwrap();
            let back = parse_csv_unlabeled(&text, "rt.csv")
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_same_bits(&back, &data);
        }
    }
}

// ---------------------------------------------------------------------------------------
// LIBSVM
// ---------------------------------------------------------------------------------------

/// The largest feature index the reader would accept in `text` (same tokenisation).
fn largest_index(text: &str) -> usize {
    text.lines()
        .flat_map(|l| {
            let content = l.split_once('#').map_or(l, |(c, _)| c);
            content.split_ascii_whitespace().skip(1)
        })
        .filter_map(|tok| tok.split_once(':')?.0.parse::<usize>().ok())
        .max()
        .unwrap_or(0)
}

/// Widest dense matrix a mutated file may ask for here: the reader densifies (by
/// design), so an index of 10^9 would allocate `rows × 10^9 × 8` bytes.
const MAX_TEST_WIDTH: usize = 1000;

fn check_libsvm(text: &str, n_features: Option<usize>) {
    let capped = |n: Option<usize>| {
        if largest_index(text) > MAX_TEST_WIDTH {
            Some(n.map_or(MAX_TEST_WIDTH, |n| n.min(MAX_TEST_WIDTH)))
        } else {
            n
        }
    };
    for n in [capped(None), capped(n_features)] {
        if let Ok(d) = parse_libsvm(text, "m.svm", n) {
            assert_eq!(d.y.len(), d.len());
            d.check_shape().unwrap();
            assert!(d.x.find_non_finite().is_none());
            if let Some(n) = n {
                assert!(d.n_features() >= n);
            }
        }
    }
}

fn n_features() -> impl Strategy<Value = Option<usize>> {
    prop_oneof![
        Just(None),
        (0usize..40).prop_map(Some),
        Just(Some(usize::MAX)),
        Just(Some(usize::MAX / 2)),
        Just(Some(usize::MAX / 8 + 1)),
    ]
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn libsvm_arbitrary_text_never_panics(
        bytes in arbitrary_bytes(LIBSVM_ALPHABET),
        n in n_features(),
    ) {
        check_libsvm(&String::from_utf8_lossy(&bytes), n);
    }

    /// Mutated fixtures. A mutation can raise a feature index to any value; indices
    /// past 1000 are read with `n_features = 1000` (an error at that index) so that the
    /// run does not allocate gigabytes.
    #[test]
    fn libsvm_mutations_never_panic(
        which in any::<Index>(),
        muts in mutations(),
        n in n_features(),
    ) {
        let bytes = mutate(&LIBSVM_FILES, &which, &muts);
        check_libsvm(&String::from_utf8_lossy(&bytes), n);
    }

    /// Datasets written by `to_libsvm_string` / `write_libsvm` read back equal (zeros
    /// are omitted, so `-0` reads back as `0`; names are always `f1..fd`, `label`).
    #[test]
    fn libsvm_round_trip(data in dataset(1..12, 0..6)) {
        let mut data = data;
        let d = data.n_features();
        data.feature_names = (1..=d).map(|j| format!("f{j}")).collect();
        data.target_name = "label".into();
        let text = to_libsvm_string(&data).unwrap();
        let back = parse_libsvm(&text, "rt.svm", Some(d))
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert_eq!(&back, &data);
        let f = TempFile::new("svm");
        write_libsvm(f.path(), &data).unwrap();
        prop_assert_eq!(&read_libsvm(f.path(), Some(d)).unwrap(), &data);
    }
}

// ---------------------------------------------------------------------------------------
// KEEL
// ---------------------------------------------------------------------------------------

fn check_keel(text: &str, target: &str) {
    let results = [
        parse_keel(text, "m.dat"),
        parse_keel_with_target(text, "m.dat", Some(target)),
    ];
    for d in results.into_iter().flatten() {
        assert_eq!(d.y.len(), d.len());
        d.check_shape().unwrap();
        assert!(d.x.find_non_finite().is_none());
    }
}

/// A KEEL-writable dataset: distinct names (the format declares each attribute once)
/// that hold at most one kind of quote (the writer quotes with the other).
fn keel_dataset() -> impl Strategy<Value = Dataset> {
    dataset(1..12, 1..6).prop_map(|mut d| {
        for (j, n) in d.feature_names.iter_mut().enumerate() {
            *n = format!("{}{j}", n.replace('"', ""));
        }
        d.target_name = format!("{}_y", d.target_name.replace('"', ""));
        d
    })
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn keel_arbitrary_text_never_panics(
        bytes in arbitrary_bytes(KEEL_ALPHABET),
        target in "[abxy]{0,2}",
    ) {
        check_keel(&String::from_utf8_lossy(&bytes), &target);
    }

    #[test]
    fn keel_mutations_never_panic(
        which in any::<Index>(),
        muts in mutations(),
        target in prop::sample::select(vec!["Class", "count", "label", "age", "nope", ""]),
    ) {
        let bytes = mutate(&KEEL_FILES, &which, &muts);
        check_keel(&String::from_utf8_lossy(&bytes), target);
    }

    /// Datasets written by `to_keel_string` / `write_keel` read back equal (an integer
    /// label is declared nominal and reads back as its value).
    #[test]
    fn keel_round_trip(data in keel_dataset(), relation in "[a-z ]{1,8}") {
        let text = to_keel_string(&data, &relation).unwrap();
        let back = parse_keel(&text, "rt.dat").unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert_eq!(&back, &data);
        let f = TempFile::new("dat");
        write_keel(f.path(), &data).unwrap();
        prop_assert_eq!(&read_keel(f.path()).unwrap(), &data);
    }
}

// ---------------------------------------------------------------------------------------
// Kernel specs
// ---------------------------------------------------------------------------------------

fn positive() -> impl Strategy<Value = f64> {
    use prop::num::f64 as f;
    prop_oneof![
        (f::POSITIVE | f::NORMAL | f::SUBNORMAL),
        prop::sample::select(vec![1.0, 0.5, 1e-4, 0.25, 2.0, 1e15, 1e-300, f64::MAX]),
    ]
}

fn kernel() -> impl Strategy<Value = Kernel> {
    prop_oneof![
        Just(Kernel::Linear),
        Just(Kernel::Precomputed),
        (positive(), finite(), 1u32..=u32::MAX)
            .prop_map(|(gamma, coef0, degree)| Kernel::polynomial(degree, gamma, coef0).unwrap()),
        positive().prop_map(|gamma| Kernel::rbf_gamma(gamma).unwrap()),
        positive().prop_map(|gamma| Kernel::laplacian(gamma).unwrap()),
        positive().prop_map(|gamma| Kernel::chi_squared(gamma).unwrap()),
        (positive(), finite()).prop_map(|(gamma, coef0)| Kernel::sigmoid(gamma, coef0).unwrap()),
        prop::collection::vec(prop_oneof![positive(), Just(0.0)], 1..8)
            .prop_map(|gammas| Kernel::ard_gammas(gammas).unwrap()),
    ]
}

/// Spec strings, printed by `Display` or in the other accepted spellings.
fn kernel_spec() -> impl Strategy<Value = String> {
    prop_oneof![
        kernel().prop_map(|k| k.to_string()),
        kernel().prop_map(|k| {
            // `name:key=value,...`, upper-case names, blanks.
            let s = k.to_string();
            match s.split_once('(') {
                Some((n, rest)) => format!(" {}: {}", n.to_uppercase(), rest.trim_end_matches(')')),
                None => s.to_uppercase(),
            }
        }),
        prop::sample::select(vec![
            "rbf(sigma=2)".to_string(),
            "gaussian:sigma=0.5".into(),
            "polynomial(gamma=1)".into(),
            "ard(sigmas=[1,2,0.5])".into(),
            "tanh(gamma=1, coef0=-1)".into(),
            "chi-squared(gamma=3)".into(),
            "laplace:gamma=1e-3".into(),
        ]),
    ]
}

fn check_kernel(spec: &str) {
    if let Ok(k) = spec.parse::<Kernel>() {
        k.check_params().unwrap();
        // Whatever parses prints a spec that parses back to the same kernel.
        let printed = k.to_string();
        let back: Kernel = printed
            .parse()
            .unwrap_or_else(|e| panic!("`{spec}` → `{printed}`: {e}"));
        assert_eq!(back, k, "`{spec}` → `{printed}`");
        for n in [1, 3] {
            if k.validate(n).is_ok() && !k.is_precomputed() {
                let row = vec![0.5; n];
                k.try_eval(&row, &row).unwrap();
            }
        }
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn kernel_spec_arbitrary_text_never_panics(bytes in arbitrary_bytes(SPEC_ALPHABET)) {
        check_kernel(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn kernel_spec_mutations_never_panic(spec in kernel_spec(), muts in mutations()) {
        let mut bytes = spec.into_bytes();
        for m in &muts {
            apply(&mut bytes, m);
        }
        check_kernel(&String::from_utf8_lossy(&bytes));
    }

    /// `Display` prints a spec that `FromStr` reads back to an equal kernel.
    #[test]
    fn kernel_spec_round_trip(k in kernel()) {
        let spec = k.to_string();
        let back: Kernel = spec.parse().unwrap_or_else(|e| panic!("`{spec}`: {e}"));
        prop_assert_eq!(back, k);
    }
}

// ---------------------------------------------------------------------------------------
// Kernel-family specs (text and JSON)
// ---------------------------------------------------------------------------------------

fn feature_set() -> impl Strategy<Value = FeatureSet> {
    prop_oneof![
        Just(FeatureSet::All),
        Just(FeatureSet::Each),
        prop::collection::vec(0usize..100, 1..6).prop_map(FeatureSet::Subset),
        (any::<usize>(), any::<usize>(), any::<u64>()).prop_map(|(subsets, size, seed)| {
            FeatureSet::Random {
                subsets,
                size,
                seed,
            }
        }),
        (1usize..50, 1usize..5, any::<u64>()).prop_map(|(subsets, size, seed)| {
            FeatureSet::Random {
                subsets,
                size,
                seed,
            }
        }),
    ]
}

fn family() -> impl Strategy<Value = KernelFamily> {
    let item = (
        prop_oneof![
            1 => Just(KernelSet::Family12),
            3 => kernel().prop_map(KernelSet::Kernel),
        ],
        feature_set(),
    )
        .prop_map(|(kernel, features)| FamilyItem { kernel, features });
    prop::collection::vec(item, 1..5).prop_map(|kernels| KernelFamily { kernels })
}

fn family_spec() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => family().prop_map(|f| f.to_string()),
        1 => prop::sample::select(vec![
            "family12@each".to_string(),
            "family12@each; rbf(sigma=2)@[0,3] ;poly:degree=2,gamma=1,coef0=1;linear@random(subsets=5,size=2,seed=9)".into(),
            "rbf(gamma=1)@per-feature;laplacian(gamma=2)@all".into(),
        ]),
    ]
}

/// Parsing, then what every caller does next (count and validate the kernels on data of
/// a few widths), never panics; whatever parses prints back to itself.
fn check_family(spec: &str) {
    let Ok(f) = spec.parse::<KernelFamily>() else {
        return;
    };
    let printed = f.to_string();
    let back: KernelFamily = printed
        .parse()
        .unwrap_or_else(|e| panic!("`{spec}` → `{printed}`: {e}"));
    assert_eq!(back, f, "`{spec}` → `{printed}`");
    check_parsed_family(&f);
}

fn check_parsed_family(f: &KernelFamily) {
    for n in [0, 1, 13] {
        let _ = f.len(n);
        let _ = f.validate(n);
    }
}

fn check_family_json(text: &str) {
    if let Ok(f) = KernelFamily::from_json(text, "m.json") {
        check_parsed_family(&f);
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn family_spec_arbitrary_text_never_panics(bytes in arbitrary_bytes(SPEC_ALPHABET)) {
        let text = String::from_utf8_lossy(&bytes);
        check_family(&text);
        check_family_json(&text);
    }

    #[test]
    fn family_spec_mutations_never_panic(spec in family_spec(), muts in mutations()) {
        let mut bytes = spec.into_bytes();
        for m in &muts {
            apply(&mut bytes, m);
        }
        let text = String::from_utf8_lossy(&bytes);
        check_family(&text);
        let _ = KernelFamily::from_spec_or_file(&text);
    }

    #[test]
    fn family_json_mutations_never_panic(f in family(), muts in mutations()) {
        let mut bytes = serde_json::to_vec(&f).unwrap();
        for m in &muts {
            apply(&mut bytes, m);
        }
        check_family_json(&String::from_utf8_lossy(&bytes));
    }

    /// A family prints a spec that parses back to it, and its JSON reads back to it.
    #[test]
    fn family_round_trip(f in family()) {
        let spec = f.to_string();
        let back: KernelFamily = spec.parse().unwrap_or_else(|e| panic!("`{spec}`: {e}"));
        prop_assert_eq!(&back, &f);
        let json = serde_json::to_string(&f).unwrap();
        let back = KernelFamily::from_json(&json, "rt.json")
            .unwrap_or_else(|e| panic!("{json}: {e}"));
        prop_assert_eq!(&back, &f);
        let f2 = TempFile::new("json");
        std::fs::write(f2.path(), &json).unwrap();
        let arg = f2.path().display().to_string();
        prop_assert_eq!(&KernelFamily::from_spec_or_file(&arg).unwrap(), &f);
    }
}

// ---------------------------------------------------------------------------------------
// Model files
// ---------------------------------------------------------------------------------------

/// One step of a path into a JSON document.
#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    At(usize),
}

/// The places a structural mutation may hit: every object member and container, and the
/// first three elements of each array (the rest of a long array of coefficients is more
/// of the same).
fn collect_paths(v: &Value, path: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    out.push(path.clone());
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                path.push(Seg::Key(k.clone()));
                collect_paths(child, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate().take(3) {
                path.push(Seg::At(i));
                collect_paths(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn node_mut<'a>(v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    let mut v = v;
    for seg in path {
        v = match seg {
            Seg::Key(k) => v.get_mut(k.as_str())?,
            Seg::At(i) => v.get_mut(*i)?,
        };
    }
    Some(v)
}

fn node<'a>(v: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    let mut v = v;
    for seg in path {
        v = match seg {
            Seg::Key(k) => v.get(k.as_str())?,
            Seg::At(i) => v.get(*i)?,
        };
    }
    Some(v)
}

/// Numbers a model field may be changed to (JSON has no NaN or infinity: those are
/// covered by the byte mutations, which reach serde's own number errors).
fn json_numbers() -> Vec<Value> {
    let f = |v: f64| Value::from(v);
    vec![
        f(0.0),
        f(-0.0),
        f(1.0),
        f(-1.0),
        f(0.5),
        f(1.5),
        f(1e308),
        f(-1e308),
        f(5e-324),
        f(1e-300),
        Value::from(0u64),
        Value::from(1u64),
        Value::from(2u64),
        Value::from(3u64),
        Value::from(13u64),
        Value::from(100u64),
        Value::from(-1i64),
        Value::from(u32::MAX as u64),
        Value::from(u32::MAX as u64 + 1),
        Value::from(i64::MIN),
        Value::from(i64::MAX),
        Value::from(u64::MAX),
        Value::from(1u64 << 53),
    ]
}

#[derive(Clone, Debug)]
enum JsonMutation {
    /// Replace the node with a number.
    Number(Index, usize),
    /// Replace the node with `null`, `true`, a string, `[]` or `{}`.
    Other(Index, u8),
    /// Replace the node with a copy of another node (an array of another length, a
    /// kernel of another kind, ...).
    CopyOf(Index, Index),
    /// Remove array element / object member `k` of the node.
    Remove(Index, Index),
    /// Duplicate array element `k` of the node.
    Duplicate(Index, Index),
    /// Keep the first `k` elements of an array.
    Truncate(Index, Index),
    /// Multiply every number of an array by `-1`, `0`, or a large factor.
    Scale(Index, u8),
}

fn json_mutation() -> impl Strategy<Value = JsonMutation> {
    let n = json_numbers().len();
    prop_oneof![
        4 => (any::<Index>(), 0..n).prop_map(|(i, k)| JsonMutation::Number(i, k)),
        1 => (any::<Index>(), 0u8..6).prop_map(|(i, k)| JsonMutation::Other(i, k)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| JsonMutation::CopyOf(a, b)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| JsonMutation::Remove(a, b)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| JsonMutation::Duplicate(a, b)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| JsonMutation::Truncate(a, b)),
        1 => (any::<Index>(), 0u8..3).prop_map(|(i, k)| JsonMutation::Scale(i, k)),
    ]
}

fn apply_json(doc: &mut Value, paths: &[Vec<Seg>], m: &JsonMutation) {
    let at = |i: &Index| &paths[i.index(paths.len())];
    match m {
        JsonMutation::Number(i, k) => {
            if let Some(v) = node_mut(doc, at(i)) {
                *v = json_numbers()[*k].clone();
            }
        }
        JsonMutation::Other(i, k) => {
            if let Some(v) = node_mut(doc, at(i)) {
                *v = match k {
                    0 => Value::Null,
                    1 => Value::Bool(true),
                    2 => Value::from(""),
                    3 => Value::from("rbf"),
                    4 => Value::Array(vec![]),
                    _ => Value::Object(Default::default()),
                };
            }
        }
        JsonMutation::CopyOf(i, j) => {
            if let Some(src) = node(doc, at(j)).cloned() {
                if let Some(v) = node_mut(doc, at(i)) {
                    *v = src;
                }
            }
        }
        JsonMutation::Remove(i, k) => match node_mut(doc, at(i)) {
            Some(Value::Array(items)) if !items.is_empty() => {
                items.remove(k.index(items.len()));
            }
            Some(Value::Object(map)) if !map.is_empty() => {
                let key = map.keys().nth(k.index(map.len())).unwrap().clone();
                map.remove(&key);
            }
            _ => {}
        },
        JsonMutation::Duplicate(i, k) => {
            if let Some(Value::Array(items)) = node_mut(doc, at(i)) {
                if !items.is_empty() {
                    let p = k.index(items.len());
                    items.insert(p, items[p].clone());
                }
            }
        }
        JsonMutation::Truncate(i, k) => {
            if let Some(Value::Array(items)) = node_mut(doc, at(i)) {
                let keep = k.index(items.len() + 1);
                items.truncate(keep);
            }
        }
        JsonMutation::Scale(i, k) => {
            if let Some(Value::Array(items)) = node_mut(doc, at(i)) {
                let factor = [-1.0, 0.0, 1e300][*k as usize];
                for v in items.iter_mut() {
                    if let Some(x) = v.as_f64() {
                        let y = x * factor;
                        *v = if y.is_finite() {
                            Value::from(y)
                        } else {
                            Value::Null
                        };
                    }
                }
            }
        }
    }
}

/// A fixture's JSON with `muts` applied, as text.
fn mutate_model(which: &Index, muts: &[JsonMutation]) -> (&'static ModelFixture, String) {
    let fx = &MODEL_FILES[which.index(MODEL_FILES.len())];
    let mut doc = fx.json.clone();
    for m in muts {
        apply_json(&mut doc, &fx.paths, m);
    }
    (fx, serde_json::to_string(&doc).unwrap())
}

fn json_mutations() -> impl Strategy<Value = Vec<JsonMutation>> {
    prop::collection::vec(json_mutation(), 1..4)
}

/// What loads prints back to a model that loads equal.
fn check_model_reloads(text: &str) {
    if let Ok(p) = Pipeline::from_json(text, "m.json") {
        let again = serde_json::to_string(&p).unwrap();
        let back = Pipeline::from_json(&again, "m.json").unwrap();
        assert!(back == p, "a loaded model does not reload equal");
    }
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn model_arbitrary_text_never_panics(
        bytes in arbitrary_bytes(JSON_ALPHABET),
        key in prop::sample::select(vec!["scaler", "model", "feature_names", "created_by"]),
    ) {
        let text = String::from_utf8_lossy(&bytes);
        check_model_reloads(&text);
        // Past the format check: arbitrary JSON-ish text where a model member goes.
        let framed = format!(
            r#"{{"format":"kernlearn-model","version":1,"{key}":{text}}}"#
        );
        check_model_reloads(&framed);
    }

    /// Byte-level mutations of the release-0.1.0 model files.
    #[test]
    fn model_byte_mutations_never_panic(which in any::<Index>(), muts in mutations()) {
        let files: Vec<&str> = MODEL_FILES.iter().map(|f| f.text.as_str()).collect();
        let mut bytes = files[which.index(files.len())].as_bytes().to_vec();
        for m in &muts {
            apply(&mut bytes, m);
        }
        check_model_reloads(&String::from_utf8_lossy(&bytes));
    }

    /// Structural mutations that keep the JSON valid: loading returns `Ok` or `Err`,
    /// and a model that loads prints back to a model that loads equal.
    #[test]
    fn model_json_mutations_load_never_panics(which in any::<Index>(), muts in json_mutations()) {
        let (_, text) = mutate_model(&which, &muts);
        check_model_reloads(&text);
    }

    /// Every fixture reloads equal after a save, and so does a model fitted on
    /// generated data.
    #[test]
    fn model_round_trip(
        which in any::<Index>(),
        data in dataset(4..16, 1..4),
        kind in prop::sample::select(vec!["svc".parse::<MethodKind>().unwrap(), "svr".parse::<MethodKind>().unwrap(), "one-class".parse::<MethodKind>().unwrap()]),
        spec in prop::sample::select(vec!["linear", "rbf(gamma=0.5)", "poly(degree=2,gamma=1,coef0=1)"]),
    ) {
        let fx = &MODEL_FILES[which.index(MODEL_FILES.len())];
        let p = Pipeline::from_json(&fx.text, fx.name).unwrap();
        let back = Pipeline::from_json(&serde_json::to_string(&p).unwrap(), fx.name).unwrap();
        prop_assert!(back == p, "{} does not reload equal", fx.name);

        let mut data = data;
        // Bounded features and two classes, so that every kind fits.
        for (i, v) in data.y.iter_mut().enumerate() {
            *v = if i % 2 == 0 { 1.0 } else { -1.0 };
        }
        let rows: Vec<Vec<f64>> = data
            .x
            .rows()
            .map(|r| r.iter().map(|v| v.clamp(-1e3, 1e3)).collect())
            .collect();
        data.x = Features::from_rows(&rows).unwrap();
        let mut options = MethodOptions::default();
        options.set("kernel", spec).unwrap();
        let method = Method::build(kind, &options, &data, None).unwrap();
        let fitted = Pipeline::fit(ScaleMode::ZeroOne, &method, &data, 0, &|_| {});
        if let Ok(fitted) = fitted {
            let p = fitted.pipeline;
            let f = TempFile::new("json");
            p.save(f.path()).unwrap();
            let back = Pipeline::load(f.path()).unwrap();
            prop_assert!(back == p, "a fitted {kind:?} model does not reload equal");
            prop_assert_eq!(back.predict(&data.x).unwrap(), p.predict(&data.x).unwrap());
        }
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// A model whose JSON was edited but still loads predicts or returns an error: it
    /// never panics.
    #[test]
    fn model_json_mutations_predict_never_panics(which in any::<Index>(), muts in json_mutations()) {
        let (fx, text) = mutate_model(&which, &muts);
        if let Ok(p) = Pipeline::from_json(&text, fx.name) {
            let _ = p.predict(&fx.rows);
            let _ = p.decision_function(&fx.rows);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Gram-set manifests and kernel matrices
// ---------------------------------------------------------------------------------------

/// Entries a hostile manifest may name: files in its folder, paths leaving it, devices.
const GRAM_ENTRIES: [&str; 9] = [
    "K.csv",
    "./K.csv",
    "y.csv",
    "../K.csv",
    "/etc/passwd",
    "/dev/zero",
    "",
    "sub/../K.csv",
    "missing.csv",
];

/// A scratch folder per case (inside the process's temporary folder).
fn gram_dir() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "kernlearn-gram-prop-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

proptest! {
    #![proptest_config(config(128))]

    /// Any manifest (valid JSON naming any entries, or arbitrary text) over any kernel
    /// and label text: `read_gram_set` returns `Ok` or `Err`, never panics, never reads
    /// outside the manifest's folder (an entry with `..`, an absolute path or a device
    /// is an error), and what it reads is well-formed.
    #[test]
    fn gram_sets_never_panic(
        kernels in proptest::collection::vec(0..GRAM_ENTRIES.len(), 0..3),
        labels in proptest::option::of(0..GRAM_ENTRIES.len()),
        raw in proptest::option::of("[{}\\[\\]\":,a-z0-9 ]{0,40}"),
        matrix in "[0-9.,eE+ \\-\n]{0,60}",
        y in "[0-9.\\-\n]{0,20}",
    ) {
        let dir = gram_dir();
        std::fs::write(dir.join("K.csv"), &matrix).unwrap();
        std::fs::write(dir.join("y.csv"), &y).unwrap();
        let names: Vec<&str> = kernels.iter().map(|&k| GRAM_ENTRIES[k]).collect();
        let manifest = match &raw {
            Some(text) => text.clone(),
            None => serde_json::json!({
                "kernels": names,
                "labels": labels.map(|l| GRAM_ENTRIES[l]),
            })
            .to_string(),
        };
        let path = dir.join("set.json");
        std::fs::write(&path, &manifest).unwrap();
        let result = kernlearn::data::read_gram_set(&path);
        let escapes = raw.is_none()
            && names
                .iter()
                .chain(labels.map(|l| GRAM_ENTRIES[l]).as_ref())
                .any(|n| n.starts_with('/') || n.contains(".."));
        if escapes {
            prop_assert!(result.is_err(), "{manifest}");
        }
        if let Ok(d) = &result {
            d.check_shape().unwrap();
            prop_assert!(d.y.is_empty() || d.y.len() == d.len());
            prop_assert!(d.x.find_non_finite().is_none());
        }
        let _ = kernlearn::data::gram_set_files(&path);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
