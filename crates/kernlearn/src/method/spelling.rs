//! How messages name options. The library writes an option as `«name»` or
//! `«name=value»` (its name in the option table, [`super::options`]); each front end
//! spells it its own way through [`spell`]: `--name value` on the command line,
//! `name="value"` (the estimators' parameter name) in Python. Rust users read the
//! markers as they are: the option's name in `MethodOptions::set`, and its value.

use super::catalogue::options;
use crate::options::OptionValue;

/// A front end's way of writing an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// `--name value` (`--name` for a flag).
    CommandLine,
    /// `name="value"` with the Python parameter name (`name=True` for a flag).
    Python,
}

/// `text` with every `«name»` / `«name=value»` marker written as `spelling` writes
/// options; text without markers is returned unchanged.
pub fn spell(text: &str, spelling: Spelling) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('«') {
        let Some(len) = rest[open..].find('»') else {
            break;
        };
        out.push_str(&rest[..open]);
        let inner = &rest[open + '«'.len_utf8()..open + len];
        out.push_str(&spell_one(inner, spelling));
        rest = &rest[open + len + '»'.len_utf8()..];
    }
    out.push_str(rest);
    out
}

/// One marker's content, `name` or `name=value`.
fn spell_one(inner: &str, spelling: Spelling) -> String {
    let (name, value) = match inner.split_once('=') {
        Some((n, v)) => (n.trim(), Some(v.trim())),
        None => (inner.trim(), None),
    };
    match spelling {
        Spelling::CommandLine => match value {
            Some(v) => format!("--{name} {v}"),
            None => format!("--{name}"),
        },
        Spelling::Python => {
            let spec = options().iter().find(|o| o.name == name);
            let (param, negated) =
                spec.map_or_else(|| (name.replace('-', "_"), false), |o| o.python_param());
            // Numbers only where the option takes one: `scale="01"` is a name.
            let numeric =
                spec.is_some_and(|o| matches!(o.value, OptionValue::Number | OptionValue::Count));
            match value {
                Some(v) if numeric => format!("{param}={v}"),
                Some(v) => format!("{param}=\"{v}\""),
                None if negated => format!("{param}=False"),
                None => param,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_take_each_front_ends_spelling() {
        let text = "give «select=grid» or drop «epochs»; «scale=01», «c=0.5», «no-fallback»";
        assert_eq!(
            spell(text, Spelling::CommandLine),
            "give --select grid or drop --epochs; --scale 01, --c 0.5, --no-fallback"
        );
        // Names are quoted even when they read as numbers (`scale="01"`); numbers only
        // where the option takes one.
        assert_eq!(
            spell(text, Spelling::Python),
            "give select=\"grid\" or drop epochs; scale=\"01\", C=0.5, fallback=False"
        );
        // The table's Python names: EasyMKL's `lambda` is `easymkl_lambda`.
        assert_eq!(spell("«lambda=1»", Spelling::Python), "easymkl_lambda=1");
        assert_eq!(
            spell("no markers «open", Spelling::Python),
            "no markers «open"
        );
    }
}
