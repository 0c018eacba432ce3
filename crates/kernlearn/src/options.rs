//! What a user can set on a method: each option is declared once, as an [`OptionSpec`]
//! in the module of the concept it tunes (the kernel machine's in `learner::options`,
//! the networks' in `nn`, each family's in its own folder); [`MethodOptions`] holds the
//! values a user gave, unset unless given, so a method fills in its paper's defaults
//! and can tell which options were given.
//!
//! A method reads an option through its spec (`MethodOptions::number`, …), so a
//! misspelt option is a compile error, and the catalogue lists the specs each method
//! reads, so any other given option is refused (`MethodKind::check_options`).

use crate::{Error, Result};
use std::collections::BTreeMap;
use std::str::FromStr;

/// What kind of value an option takes on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionValue {
    /// A real number.
    Number,
    /// A non-negative integer.
    Count,
    /// Free text (a kernel spec, a file).
    Text,
    /// A flag without value.
    Flag,
    /// One of the listed names.
    Choice(&'static [&'static str]),
    /// Repeatable text.
    Repeated,
}

/// One method option: its command-line name, short form, value kind and help text.
#[derive(Debug)]
pub struct OptionSpec {
    /// Long name (`--NAME`).
    pub name: &'static str,
    /// Short form, if any.
    pub short: Option<char>,
    /// Value kind.
    pub value: OptionValue,
    /// One paragraph of help, with the default.
    pub help: &'static str,
    /// The Python estimators' parameter, when not the name with `-` as `_`.
    python: Option<&'static str>,
    /// Whether the Python parameter is the opposite flag (`shrinking` for
    /// `no-shrinking`, true by default).
    negated: bool,
    /// A check of the value beyond its kind.
    check_value: Option<fn(&str) -> Result<()>>,
    /// Whether a value that is not a spec names an input file (never to be overwritten).
    file: bool,
}

/// Options are one declaration each: equal when they have one name.
impl PartialEq for OptionSpec {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl OptionSpec {
    /// Option `name` of kind `value`, without a short form.
    pub(crate) const fn new(name: &'static str, value: OptionValue, help: &'static str) -> Self {
        Self {
            name,
            short: None,
            value,
            help,
            python: None,
            negated: false,
            check_value: None,
            file: false,
        }
    }

    /// With values that may name an input file.
    pub(crate) const fn file(self) -> Self {
        Self { file: true, ..self }
    }

    /// With the Python parameter `name`.
    pub(crate) const fn python(self, name: &'static str) -> Self {
        Self {
            python: Some(name),
            ..self
        }
    }

    /// With the Python parameter `name`, the opposite flag (true by default).
    pub(crate) const fn negated_python(self, name: &'static str) -> Self {
        Self {
            python: Some(name),
            negated: true,
            ..self
        }
    }

    /// With the check `f` of a value.
    pub(crate) const fn checked(self, f: fn(&str) -> Result<()>) -> Self {
        Self {
            check_value: Some(f),
            ..self
        }
    }

    /// The Python estimators' parameter and whether it is the opposite flag.
    pub(crate) fn python_param(&self) -> (String, bool) {
        let name = self
            .python
            .map_or_else(|| self.name.replace('-', "_"), str::to_string);
        (name, self.negated)
    }

    /// With the short form `-c`.
    pub(crate) const fn short(self, c: char) -> Self {
        Self {
            short: Some(c),
            ..self
        }
    }

    /// Checks that `value` is a value of this option (a number, a whole number, one of
    /// the choices), with an error naming the option.
    pub(crate) fn check(&self, value: &str) -> Result<()> {
        if let Some(check) = self.check_value {
            check(value)?;
        }
        match self.value {
            OptionValue::Number => parse_number(self.name, value).map(drop),
            OptionValue::Count => parse_count(self.name, value).map(drop),
            OptionValue::Choice(names) => choice(self.name, value, names, names).map(drop),
            OptionValue::Text | OptionValue::Flag | OptionValue::Repeated => Ok(()),
        }
    }
}

/// `value` as a real number, or an error naming `option`.
fn parse_number(option: &str, value: &str) -> Result<f64> {
    value
        .trim()
        .parse()
        .map_err(|_| Error::param(option, format!("`{value}` is not a number")))
}

/// `value` as a whole number ≥ 0, or an error naming `option`.
fn parse_count(option: &str, value: &str) -> Result<usize> {
    value
        .trim()
        .parse()
        .map_err(|_| Error::param(option, format!("`{value}` is not a whole number ≥ 0")))
}

/// Parses one of `names` into the value at the same place of `values`.
pub(crate) fn choice<T: Copy>(option: &str, s: &str, names: &[&str], values: &[T]) -> Result<T> {
    match names.iter().position(|n| *n == s) {
        Some(i) => Ok(values[i]),
        None => Err(Error::param(
            option,
            format!("`{s}` is not one of {}", names.join(", ")),
        )),
    }
}

/// The options a user gave, by command-line name (each checked against its spec when
/// set), and the seed of the method's own randomness (always read).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MethodOptions {
    values: BTreeMap<&'static str, (&'static OptionSpec, Vec<String>)>,
    /// Seed of the method's own randomness (CV folds, k-means, networks).
    pub seed: u64,
}

impl MethodOptions {
    /// Sets the option of `spec` from its text `value` (`"true"` for a flag); a repeated
    /// option accumulates, any other replaces the value given before.
    pub(crate) fn set_spec(&mut self, spec: &'static OptionSpec, value: &str) -> Result<()> {
        spec.check(value)?;
        let (_, values) = self.values.entry(spec.name).or_insert((spec, Vec::new()));
        if spec.value != OptionValue::Repeated {
            values.clear();
        }
        values.push(value.to_string());
        Ok(())
    }

    /// With option `spec` set to `value` (for tests and builders).
    #[cfg(test)]
    pub(crate) fn with(mut self, spec: &'static OptionSpec, value: &str) -> Result<Self> {
        self.set_spec(spec, value)?;
        Ok(self)
    }

    /// The options that were set (command-line names), `seed` excepted.
    pub(crate) fn given(&self) -> Vec<&'static str> {
        self.values.keys().copied().collect()
    }

    /// The given values of options that may name an input file, as paths: what a front
    /// end must never overwrite.
    pub fn input_files(&self) -> Vec<&std::path::Path> {
        self.values
            .values()
            .filter(|(spec, _)| spec.file)
            .flat_map(|(_, v)| v.iter().map(std::path::Path::new))
            .collect()
    }

    /// Whether option `spec` was given.
    pub(crate) fn is_given(&self, spec: &OptionSpec) -> bool {
        self.values.contains_key(spec.name)
    }

    /// The text of option `spec`, when given.
    pub(crate) fn text(&self, spec: &OptionSpec) -> Option<&str> {
        self.values
            .get(spec.name)
            .and_then(|(_, v)| v.last())
            .map(String::as_str)
    }

    /// Every value of a repeated option (empty when not given).
    pub(crate) fn all(&self, spec: &OptionSpec) -> &[String] {
        self.values
            .get(spec.name)
            .map_or(&[], |(_, v)| v.as_slice())
    }

    /// Whether flag `spec` was given.
    pub(crate) fn flag(&self, spec: &OptionSpec) -> bool {
        self.is_given(spec)
    }

    /// The number given as option `spec`.
    pub(crate) fn number(&self, spec: &OptionSpec) -> Result<Option<f64>> {
        self.text(spec)
            .map(|v| parse_number(spec.name, v))
            .transpose()
    }

    /// The whole number given as option `spec`.
    pub(crate) fn count(&self, spec: &OptionSpec) -> Result<Option<usize>> {
        self.text(spec)
            .map(|v| parse_count(spec.name, v))
            .transpose()
    }

    /// Option `spec` parsed as a `T` (a choice's value).
    pub(crate) fn parsed<T: FromStr<Err = Error>>(&self, spec: &OptionSpec) -> Result<Option<T>> {
        self.text(spec).map(str::parse).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static NUMBER: OptionSpec = OptionSpec::new("tau", OptionValue::Number, "");
    static COUNT: OptionSpec = OptionSpec::new("epochs", OptionValue::Count, "");
    static PICK: OptionSpec = OptionSpec::new("pick", OptionValue::Choice(&["a", "b"]), "");
    static MANY: OptionSpec = OptionSpec::new("class-weight", OptionValue::Repeated, "");

    #[test]
    fn values_are_checked_when_set_and_read_typed() {
        let mut o = MethodOptions::default();
        assert!(o.given().is_empty());
        let e = o.set_spec(&NUMBER, "x").unwrap_err().to_string();
        assert!(e.contains("`tau`") && e.contains("not a number"), "{e}");
        assert!(o.set_spec(&COUNT, "-1").is_err());
        let e = o.set_spec(&PICK, "c").unwrap_err().to_string();
        assert!(e.contains("`c` is not one of a, b"), "{e}");
        assert!(o.given().is_empty());
        o.set_spec(&NUMBER, "0.5").unwrap();
        o.set_spec(&NUMBER, "0.25").unwrap();
        o.set_spec(&MANY, "1=2").unwrap();
        o.set_spec(&MANY, "2=3").unwrap();
        assert_eq!(o.number(&NUMBER).unwrap(), Some(0.25));
        assert_eq!(o.count(&COUNT).unwrap(), None);
        assert_eq!(o.all(&MANY), ["1=2", "2=3"]);
        assert_eq!(o.given(), ["class-weight", "tau"]);
    }
}
