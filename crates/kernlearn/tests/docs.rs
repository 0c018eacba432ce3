//! The docs follow the code: README's `Families:` line is the catalogue's families in
//! order, docs/DESIGN.md's "Adding a family" names the pieces a family declares and its
//! "Layout" every family module of `lib.rs`, and neither README nor any Markdown file of
//! docs/ refers to issue numbers (they describe what the code does, not how it came to be)
//! or cites a path of the machine they were written on.

use kernlearn::MethodKind;

const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
const DESIGN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/DESIGN.md");
const DOCS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs");
const LIB_RS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs");

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The section of markdown `text` under the level-2 heading that starts with `title`,
/// up to the next level-2 heading.
fn section<'a>(text: &'a str, title: &str) -> &'a str {
    let heading = format!("## {title}");
    let start = text
        .lines()
        .scan(0, |offset, line| {
            let at = *offset;
            *offset += line.len() + 1;
            Some((at, line))
        })
        .find(|(_, line)| line.starts_with(&heading))
        .map(|(at, _)| at)
        .unwrap_or_else(|| panic!("no section `{heading}`"));
    let body = &text[start + heading.len()..];
    let end = body.find("\n## ").unwrap_or(body.len());
    &body[..end]
}

/// The module names inside `families!(…);` of lib.rs, in order.
fn family_modules() -> Vec<String> {
    let lib = read(LIB_RS);
    let start = lib
        .lines()
        .scan(0, |offset, line| {
            let at = *offset;
            *offset += line.len() + 1;
            Some((at, line))
        })
        .find(|(_, line)| line.trim_start().starts_with("families!("))
        .map(|(at, line)| at + line.find("families!(").unwrap() + "families!(".len())
        .expect("lib.rs has no `families!(…);` line");
    let end = lib[start..]
        .find(");")
        .expect("`families!(` is not closed by `);`");
    let names: Vec<String> = lib[start..start + end]
        .split(',')
        // A family compiled only for tests is preceded by its `#[cfg(test)]`.
        .map(|name| name.rsplit(']').next().unwrap_or(name).trim())
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .collect();
    for name in &names {
        assert!(
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "`{name}` in families!(…) is not a module name"
        );
    }
    assert!(!names.is_empty(), "families!(…) names no family");
    names
}

#[test]
fn readme_families_line_is_the_catalogues_families_in_order() {
    let readme = read(README);
    let line = readme
        .lines()
        .find(|line| line.starts_with("Families: "))
        .expect("README.md has no line starting with `Families: `");
    let listed: Vec<&str> = line["Families: ".len()..]
        .trim_end()
        .trim_end_matches('.')
        .split(", ")
        .collect();
    let mut families: Vec<&str> = Vec::new();
    for name in MethodKind::all().map(|k| k.family().name) {
        if !families.contains(&name) {
            families.push(name);
        }
    }
    assert_eq!(
        listed, families,
        "README.md's `Families:` line must list the catalogue's family names in order"
    );
}

#[test]
fn design_describes_adding_a_family_and_lays_out_every_family_module() {
    let design = read(DESIGN);
    let adding = section(&design, "Adding a family");
    for needle in [
        "families!",
        "FAMILY",
        "ModelKind",
        "impl Model",
        "OptionSpec",
    ] {
        assert!(
            adding.contains(needle),
            "DESIGN.md's \"Adding a family\" does not mention `{needle}`"
        );
    }
    let layout = section(&design, "Layout");
    for module in family_modules() {
        assert!(
            layout.contains(&format!("`{module}`")),
            "DESIGN.md's \"Layout\" does not mention the family module `{module}` (in backticks)"
        );
    }
}

/// Positions of "issue " (any ASCII case) followed by a digit, or by `#` and a digit.
fn issue_numbers(text: &str) -> Vec<usize> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    lower
        .match_indices("issue ")
        .map(|(at, m)| (at, at + m.len()))
        .filter(|&(_, after)| {
            let next = |i: usize| bytes.get(i).copied().unwrap_or(b' ');
            next(after).is_ascii_digit()
                || (next(after) == b'#' && next(after + 1).is_ascii_digit())
        })
        .map(|(at, _)| at)
        .collect()
}

/// README.md and every `.md` file directly in docs/, in name order.
fn documents() -> Vec<String> {
    let mut docs: Vec<String> = std::fs::read_dir(DOCS)
        .unwrap_or_else(|e| panic!("{DOCS}: {e}"))
        .map(|entry| entry.unwrap_or_else(|e| panic!("{DOCS}: {e}")).path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| path.to_string_lossy().into_owned())
        .collect();
    docs.sort();
    assert!(
        docs.iter().any(|path| path.ends_with("DESIGN.md")),
        "{DOCS} has no DESIGN.md: {docs:?}"
    );
    let mut all = vec![README.to_string()];
    all.extend(docs);
    all
}

/// "line N: excerpt" for each byte position `at` of `text` (the excerpt runs from `at`
/// to the end of its line, at most 40 characters).
fn located(text: &str, positions: &[usize]) -> Vec<String> {
    positions
        .iter()
        .map(|&at| {
            let line = text[..at].matches('\n').count() + 1;
            let end = text[at..].find('\n').map_or(text.len(), |e| at + e);
            let excerpt: String = text[at..end].chars().take(40).collect();
            format!("line {line}: {excerpt}")
        })
        .collect()
}

#[test]
fn readme_and_design_refer_to_no_issue_numbers() {
    assert_eq!(issue_numbers("see issue 19, Issue #20"), vec![4, 14]);
    assert!(issue_numbers("an issue with 2 kernels; issue x1").is_empty());
    for path in documents() {
        let text = read(&path);
        let found = located(&text, &issue_numbers(&text));
        assert!(
            found.is_empty(),
            "{path} refers to issue numbers: {found:?} (describe the code, not its history)"
        );
    }
}

/// Positions of the machine paths "/work/" and "/home/" in `text`.
fn machine_paths(text: &str) -> Vec<usize> {
    let mut found: Vec<usize> = ["/work/", "/home/"]
        .iter()
        .flat_map(|prefix| text.match_indices(prefix).map(|(at, _)| at))
        .collect();
    found.sort_unstable();
    found
}

#[test]
fn readme_and_docs_cite_no_machine_paths() {
    assert_eq!(
        machine_paths("/home/me/x and /work/venv/bin/python"),
        vec![0, 15]
    );
    assert!(machine_paths("python3 scripts/a.py --out out/dk (homework/, network)").is_empty());
    for path in documents() {
        let text = read(&path);
        let found = located(&text, &machine_paths(&text));
        assert!(
            found.is_empty(),
            "{path} cites machine paths: {found:?} (use commands and paths relative to the \
             repository)"
        );
    }
}
