//! The library's architecture, checked on its sources: the top-level modules form the
//! layers of docs/DESIGN.md ("Layout") without import cycles, every library file holds
//! one concept (at most 1,000 lines), every function of the workspace one step (at most
//! 120 lines).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))
}

/// The layers, bottom first: a module may import modules of lower layers, and of its own
/// layer only among the families (which must still form no cycle).
const LAYERS: &[&[&str]] = &[
    &[
        "error", "cancel", "watch", "check", "simd", "memory", "validate", "options", "trace",
        "metrics",
    ],
    &["data"],
    &["kernel", "output", "plot"],
    &["linalg", "cluster", "neighbors", "nn"],
    &["multiclass"],
    &["predictor"],
    &["svm"],
    &["select"],
    &["bank"],
    &["learner"],
    FAMILIES,
    &["method"],
    &["pipeline"],
    &["experiment", "figure"],
];

/// Stands for the families' layer in [`LAYERS`]: the modules `families!` declares in
/// lib.rs, so that adding a family needs no line here.
const FAMILIES: &[&str] = &["<families>"];

/// The names `families!(...)` registers in lib.rs, attributes left out.
fn families() -> Vec<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let call = lib.find("\nfamilies!(").expect("lib.rs calls families!");
    let body = &lib[call + "\nfamilies!(".len()..];
    let body = &body[..body.find(");").unwrap()];
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("#["))
        .map(|l| l.trim_end_matches(',').to_string())
        .collect()
}

/// Whether `module` is in layer `layer` of [`LAYERS`].
fn in_layer(layer: &[&str], module: &str) -> bool {
    if std::ptr::eq(layer, FAMILIES) {
        families().iter().any(|f| f == module)
    } else {
        layer.contains(&module)
    }
}

/// Every `.rs` file below `dir` (build output in `target` folders left out).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` without line comments and without `#[cfg(test)] mod NAME { … }` blocks.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    for line in text.lines() {
        let line = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        code.push_str(line);
        code.push('\n');
    }
    let mut out = String::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let block = after.find('{').filter(|&b| {
            let head = &after[..b];
            head.contains("mod ") && !head.contains(';')
        });
        match block {
            Some(open) => {
                let mut depth = 0usize;
                let mut end = after.len();
                for (i, c) in after[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &after[end..];
            }
            None => {
                out.push_str("#[cfg(test)]");
                rest = &after["#[cfg(test)]".len()..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The top-level module of a file (`mkl/base/table.rs` → `mkl`), `None` for lib.rs.
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src()).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib").then_some(name)
}

/// Whether a file is test code (a `tests.rs` module or below a `tests/` folder).
fn is_test_file(file: &Path) -> bool {
    file.file_stem()
        .is_some_and(|s| s == "tests" || s == "testing")
        || file.components().any(|c| c.as_os_str() == "tests")
}

/// The top-level modules each module's non-test code names through `crate::`.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let families = families();
    let modules: BTreeSet<&str> = (LAYERS.iter())
        .flat_map(|l| l.iter().copied())
        .chain(families.iter().map(String::as_str))
        .collect();
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let Some(from) = module_of(&file) else {
            continue;
        };
        if is_test_file(&file) {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        let mut named = BTreeSet::new();
        for (at, _) in code.match_indices("crate::") {
            let tail = &code[at + "crate::".len()..];
            if let Some(group) = tail.strip_prefix('{') {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                for item in group.split(',') {
                    let word: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    named.insert(word);
                }
            } else {
                let word: String = tail
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                named.insert(word);
            }
        }
        for to in named {
            if modules.contains(to.as_str()) && to != from {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    edges
}

fn layer_of(module: &str) -> usize {
    LAYERS
        .iter()
        .position(|l| in_layer(l, module))
        .unwrap_or_else(|| panic!("module `{module}` is in no layer of LAYERS"))
}

#[test]
fn every_top_level_module_has_a_layer() {
    for entry in std::fs::read_dir(src()).unwrap() {
        let path = entry.unwrap().path();
        if let Some(m) = module_of(&path) {
            layer_of(&m);
        }
    }
}

#[test]
fn modules_import_only_lower_layers_and_form_no_cycle() {
    let edges = imports();
    let families = layer_of("mkl");
    let mut wrong = Vec::new();
    for (from, tos) in &edges {
        for to in tos {
            let (a, b) = (layer_of(from), layer_of(to));
            if b > a || (b == a && a != families) {
                wrong.push(format!("{from} → {to}"));
            }
        }
    }
    assert!(wrong.is_empty(), "imports against the layers: {wrong:?}");
    // Depth-first search for a cycle (among the families, the only same-layer edges).
    fn visit<'a>(
        m: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, bool>,
        path: &mut Vec<&'a str>,
    ) {
        match state.get(m) {
            Some(true) => return,
            Some(false) => panic!("import cycle: {path:?} → {m}"),
            None => {}
        }
        state.insert(m, false);
        path.push(m);
        for to in edges.get(m).into_iter().flatten() {
            visit(to, edges, state, path);
        }
        path.pop();
        state.insert(m, true);
    }
    let mut state = BTreeMap::new();
    for m in edges.keys() {
        visit(m, &edges, &mut state, &mut Vec::new());
    }
}

#[test]
fn no_library_file_is_over_1000_lines() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > 1000).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over 1,000 lines: {long:?}");
}

/// Every `pub fn` of the library, one `file: name` line each in file order: the public
/// API listing of tests/public_api.txt.
fn public_functions() -> String {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    let mut out = String::new();
    for file in files {
        let rel = file.strip_prefix(src()).unwrap().display().to_string();
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            if let Some(rest) = line.trim_start().strip_prefix("pub fn ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                out += &format!("{rel}: {name}\n");
            }
        }
    }
    out
}

/// The public functions are the committed listing: a change to the public API is a
/// visible diff of tests/public_api.txt (rewrite it with `KERNLEARN_BLESS=1 cargo test
/// -p kernlearn --test architecture`).
#[test]
fn the_public_functions_are_the_committed_listing() {
    let listing = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/public_api.txt"));
    let now = public_functions();
    if std::env::var_os("KERNLEARN_BLESS").is_some() {
        std::fs::write(&listing, &now).unwrap();
    }
    let count = now.lines().count();
    assert!(
        count <= 350,
        "{count} public functions: keep the library's API at most 350 `pub fn` (make \
         internals pub(crate))"
    );
    let committed = std::fs::read_to_string(&listing).unwrap_or_default();
    let added: Vec<&str> = now.lines().filter(|l| !committed.contains(l)).collect();
    let removed: Vec<&str> = committed.lines().filter(|l| !now.contains(l)).collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "the public API changed; added {added:?}, removed {removed:?} (bless with \
         KERNLEARN_BLESS=1 if intended)"
    );
}

/// The CLI and the Python binding reach methods through the catalogue and models through
/// the `Predictor` interface: outside their tests, no downcast to a family's type, no
/// match on a model's type and no method name written as a literal.
#[test]
fn the_front_ends_name_no_family() {
    let crates = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let names: Vec<String> = kernlearn::MethodKind::all()
        .map(|k| format!("\"{}\"", k.name()))
        .collect();
    let mut found = Vec::new();
    for front in ["kernlearn-cli/src", "kernlearn-py/src"] {
        let mut files = Vec::new();
        rust_files(&crates.join(front), &mut files);
        for file in files {
            let code = code_of(&std::fs::read_to_string(&file).unwrap());
            let needles = ["downcast", "AnyModel::", "learner_as"];
            for needle in needles.iter().map(|n| n.to_string()).chain(names.clone()) {
                if code.contains(&needle) {
                    found.push(format!("{}: {needle}", file.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "family names in the front ends: {found:?}"
    );
}

/// The types the crate root re-exports (`pub use module::{A, B}` in lib.rs), with the
/// module each comes from.
fn root_reexports() -> Vec<(String, String)> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let mut out = Vec::new();
    for line in lib.lines() {
        let Some(path) = line
            .strip_prefix("pub use ")
            .and_then(|l| l.strip_suffix(';'))
        else {
            continue;
        };
        let (module, items) = path.split_once("::").unwrap();
        let items = items.trim_start_matches('{').trim_end_matches('}');
        for item in items.split(',') {
            out.push((module.to_string(), item.trim().to_string()));
        }
    }
    out
}

/// One public path per contract type: outside the library, a type the crate root
/// re-exports (`Pipeline`, `Predictor`, `AnyModel`, …) is named by that root path, never
/// by its module's path (`kernlearn::predictor::…`); the code, the tests, the
/// examples and the benchmarks of every crate.
#[test]
fn root_types_are_named_by_their_root_path() {
    let crates = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let reexports = root_reexports();
    assert!(reexports.len() >= 8, "{reexports:?}");
    let mut found = Vec::new();
    for dir in [
        "kernlearn-cli",
        "kernlearn-py/src",
        "kernlearn/tests",
        "kernlearn/examples",
        "kernlearn/benches",
    ] {
        let mut files = Vec::new();
        if crates.join(dir).is_dir() {
            rust_files(&crates.join(dir), &mut files);
        }
        for file in files {
            let code = std::fs::read_to_string(&file).unwrap();
            for (module, item) in &reexports {
                if names_module(&code, &format!("kernlearn::{module}::"), item) {
                    found.push(format!("{}: kernlearn::{module}::{item}", file.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "use the crate root's path for these: {found:?}"
    );
}

/// `code` names `module` as a path segment (`crate::mkl::…`, `kernlearn::mkl::…`,
/// `crate::{mkl, …}`) after `prefix`.
fn names_module(code: &str, prefix: &str, module: &str) -> bool {
    code.match_indices(prefix).any(|(at, _)| {
        let tail = &code[at + prefix.len()..];
        let word = |t: &str| -> String {
            t.trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        };
        match tail.strip_prefix('{') {
            Some(group) => group[..group.find('}').unwrap_or(group.len())]
                .split(',')
                .any(|item| word(item) == module),
            None => word(tail) == module,
        }
    })
}

/// Families stand on the shared floor (`bank`, `learner`, `svm`, …), never on one
/// another, tests included: a second family's types are reached through the catalogue.
#[test]
fn no_family_imports_another() {
    let families = families();
    let mut found = Vec::new();
    for family in &families {
        let mut files = Vec::new();
        rust_files(&src().join(family), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let code: String = text
                .lines()
                .map(|l| l.find("//").map_or(l, |i| &l[..i]))
                .collect::<Vec<_>>()
                .join("\n");
            for other in families.iter().filter(|o| *o != family) {
                if names_module(&code, "crate::", other) {
                    found.push(format!("{} → {other}", file.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "imports from one family into another: {found:?}"
    );
}

/// The modules above the families (the pipeline, experiments, figures) and the front
/// ends (CLI, Python binding) reach the families through the catalogue and the fitted
/// model's interface only: none names a family's module.
#[test]
fn nothing_above_the_families_names_one() {
    let families = families();
    let crates = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut files = vec![src().join("lib.rs")];
    for module in ["method", "pipeline", "experiment", "figure"] {
        let file = src().join(format!("{module}.rs"));
        if file.exists() {
            files.push(file);
        }
        if src().join(module).is_dir() {
            rust_files(&src().join(module), &mut files);
        }
    }
    let mut front = Vec::new();
    for dir in ["kernlearn-cli/src", "kernlearn-py/src"] {
        rust_files(&crates.join(dir), &mut front);
    }
    let mut found = Vec::new();
    for (file, prefix) in (files.iter().skip(1).map(|f| (f, "crate::")))
        .chain(front.iter().map(|f| (f, "kernlearn::")))
    {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for family in &families {
            if names_module(&code, prefix, family) {
                found.push(format!("{}: {family}", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "family modules named above the families: {found:?}"
    );
}

/// Longest function allowed anywhere in the workspace's Rust code, in lines from the `fn`
/// line to its closing brace: a longer one does several things and is split into its
/// phases.
const MAX_FUNCTION_LINES: usize = 120;

/// The name of the function a line declares (`[pub[(…)]] [const] [unsafe] [async] fn
/// NAME`, with a body: not ending in `;`) and the line's indentation.
fn function_declared(line: &str) -> Option<(&str, &str)> {
    if line.trim_end().ends_with(';') {
        return None;
    }
    let code = line.trim_start();
    let indent = &line[..line.len() - code.len()];
    let mut rest = code;
    loop {
        if let Some(r) = rest.strip_prefix("fn ") {
            let end = r
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(r.len());
            return (end > 0).then_some((indent, &r[..end]));
        }
        let word_end = rest.find(' ')?;
        let word = &rest[..word_end];
        let qualifier = matches!(word, "pub" | "const" | "unsafe" | "async")
            || (word.starts_with("pub(") && word.ends_with(')'));
        if !qualifier {
            return None;
        }
        rest = rest[word_end..].trim_start();
    }
}

/// Every function of `text` as `(name, lines)`: from its `fn` line to the first later
/// line that is its indentation followed by `}`.
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let Some((indent, name)) = function_declared(line) else {
            continue;
        };
        let close = format!("{indent}}}");
        if let Some(end) = (at + 1..lines.len()).find(|&j| lines[j].starts_with(&close)) {
            out.push((name.to_string(), end - at + 1));
        }
    }
    out
}

#[test]
fn no_function_is_over_120_lines() {
    let crates = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut files = Vec::new();
    for krate in std::fs::read_dir(&crates).unwrap() {
        let krate = krate.unwrap().path();
        for part in ["src", "tests", "examples", "benches"] {
            if krate.join(part).is_dir() {
                rust_files(&krate.join(part), &mut files);
            }
        }
    }
    files.sort();
    assert!(
        files.iter().any(|f| f.ends_with("kernlearn/src/lib.rs")),
        "the scan found the workspace's sources"
    );
    let mut long = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&crates).unwrap();
        let rel = rel.to_string_lossy().replace('\\', "/");
        for (name, n) in function_lengths(&std::fs::read_to_string(file).unwrap()) {
            if n > MAX_FUNCTION_LINES {
                long.push(format!("{rel}: fn {name} ({n} lines)"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them into their phases):\n{}",
        long.join("\n")
    );
}

/// The crate documentation's "Layout" list (lib.rs) names every public module, so that
/// it cannot go stale when a module is added.
#[test]
fn the_layout_doc_names_every_public_module() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let layout = lib
        .split("//! Layout")
        .nth(1)
        .expect("lib.rs has a Layout section");
    let layout: String = (layout.lines().take(1))
        .chain(layout.lines().skip(1).take_while(|l| l.starts_with("//!")))
        .collect::<Vec<_>>()
        .join("\n");
    let missing: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';'))
        .filter(|m| !layout.contains(&format!("`{m}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "public modules missing from lib.rs's Layout doc: {missing:?}"
    );
}

/// Library messages name options as `«name»` / `«name=value»` (`method::spell` gives
/// each front end its spelling), never as a command-line flag that Python users would
/// read too. Option help, method summaries and the docs' table are command-line text
/// and are left out.
#[test]
fn library_messages_name_no_command_line_flag() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !is_test_file(f)) {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let mut rest = code.as_str();
        while let Some(open) = rest.find('"') {
            let after = &rest[open + 1..];
            let close = (after.char_indices())
                .scan(false, |escaped, (i, c)| {
                    let end = c == '"' && !*escaped;
                    *escaped = c == '\\' && !*escaped;
                    Some((i, end))
                })
                .find(|&(_, end)| end)
                .map_or(after.len(), |(i, _)| i);
            let literal = &after[..close];
            let before = &code[..code.len() - rest.len() + open];
            let mut from = before.len().saturating_sub(200);
            while !before.is_char_boundary(from) {
                from -= 1;
            }
            let context = &before[from..];
            let help = [
                "OptionSpec::new",
                "summary:",
                "selection:",
                "const ",
                "markdown",
            ]
            .iter()
            .any(|c| context.contains(c));
            let flag = literal
                .match_indices("--")
                .any(|(i, _)| literal[i + 2..].starts_with(|c: char| c.is_ascii_lowercase()));
            if flag && !help {
                found.push(format!("{}: {literal:.80}", file.display()));
            }
            rest = after.get(close + 1..).unwrap_or("");
        }
    }
    assert!(
        found.is_empty(),
        "messages naming command-line flags: {found:#?}"
    );
}

/// Every folder that declares a `FAMILY` is listed in `families!` (the registry reads
/// only that list; a missing `pub mod` for a listed name does not compile).
#[test]
fn every_family_folder_is_registered() {
    let listed = families();
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut missing: Vec<String> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .contains("static FAMILY: Family")
        })
        .filter_map(|f| module_of(f))
        .filter(|m| !listed.contains(m))
        .collect();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "family folders not in families!: {missing:?}"
    );
}

/// rustfmt reaches every family folder: on a copy of the library's sources where each
/// family's `mod.rs` gains a misformatted line, `rustfmt --check` on lib.rs reports
/// every one of them (a module declared inside a macro call would be skipped silently).
#[test]
fn rustfmt_reaches_every_family_folder() {
    let copy = std::env::temp_dir().join(format!("kernlearn-fmt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&copy);
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    for file in &files {
        let to = copy.join(file.strip_prefix(src()).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(file, &to).unwrap();
    }
    let families = families();
    for family in &families {
        let module = copy.join(family).join("mod.rs");
        let mut text = std::fs::read_to_string(&module).unwrap();
        text.push_str("\nfn   misformatted ( )   {   }\n");
        std::fs::write(&module, text).unwrap();
    }
    let out = std::process::Command::new("rustfmt")
        .args(["--check", "--edition", "2021"])
        .arg(copy.join("lib.rs"))
        .output()
        .expect("rustfmt runs (it ships with the toolchain: `rustup component add rustfmt`)");
    let report = String::from_utf8_lossy(&out.stdout).replace('\\', "/");
    let _ = std::fs::remove_dir_all(&copy);
    assert!(
        !out.status.success(),
        "rustfmt --check passed a misformatted copy"
    );
    let unseen: Vec<&String> = (families.iter())
        .filter(|f| !report.contains(&format!("/{f}/mod.rs")))
        .collect();
    assert!(
        unseen.is_empty(),
        "rustfmt never formats the folders of {unseen:?}"
    );
}
