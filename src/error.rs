//! Errors and diagnostics.
//!
//! A `Diagnostic` is one problem in the publisher's input, located as precisely as we can
//! (`path:line:column`, the field, what was expected, a hint). Loading and checking collect
//! every diagnostic of a run instead of stopping at the first, so a publisher fixes them all
//! in one pass. `Error` is what the library returns; `main` prints it once.

use std::fmt;
use std::path::{Path, PathBuf};

/// One problem in the input, with enough context to fix it without reading the code.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    /// The file, relative to the site root where possible.
    pub path: PathBuf,
    /// 1-based line; 0 when the problem concerns the whole file.
    pub line: usize,
    /// 1-based column; 0 when unknown.
    pub column: usize,
    /// The front-matter or config field concerned, if any.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when there is advice to give.
    pub hint: Option<String>,
}

impl Diagnostic {
    pub(crate) fn new(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Diagnostic {
            path: path.into(),
            line: 0,
            column: 0,
            field: None,
            message: message.into(),
            hint: None,
        }
    }

    pub(crate) fn at(mut self, line: usize, column: usize) -> Self {
        self.line = line;
        self.column = column;
        self
    }

    pub(crate) fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    pub(crate) fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub(crate) fn maybe_hint(mut self, hint: Option<String>) -> Self {
        if hint.is_some() {
            self.hint = hint;
        }
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        write!(f, ": ")?;
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        write!(f, "{}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

/// Everything the library can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Problems in the publisher's input: config, content, templates, links.
    #[error("{}", render_diagnostics(.0))]
    Diagnostics(Vec<Diagnostic>),
    /// Too many problems to list: the first ones, and how many more there are.
    #[error("{}", render_many(.shown, *.more))]
    Many {
        /// The problems listed.
        shown: Vec<Diagnostic>,
        /// How many more were found.
        more: usize,
    },
    /// A filesystem operation failed; the path says where.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn one(diagnostic: Diagnostic) -> Self {
        Error::Diagnostics(vec![diagnostic])
    }

    /// The diagnostics, if this is an input error.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            Error::Diagnostics(d) | Error::Many { shown: d, .. } => d,
            Error::Io { .. } => &[],
        }
    }
}

fn render_diagnostics(diagnostics: &[Diagnostic]) -> String {
    report(diagnostics, "nothing was written")
}

fn render_many(shown: &[Diagnostic], more: usize) -> String {
    let mut out = String::new();
    for d in shown {
        out.push_str(&format!("error: {d}\n"));
    }
    out.push_str(&format!(
        "... and {} more errors like these\n{} errors found (the first {} are shown); nothing was written",
        thousands(more),
        thousands(shown.len() + more),
        shown.len()
    ));
    out
}

/// `2159899` → `2,159,899`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Every diagnostic on its own `error:` line, then how many there are and `outcome`.
pub fn report(diagnostics: &[Diagnostic], outcome: &str) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&format!("error: {d}\n"));
    }
    let n = diagnostics.len();
    out.push_str(&format!(
        "{n} error{} found; {outcome}",
        if n == 1 { "" } else { "s" }
    ));
    out
}

/// The library's result: `Error` unless said otherwise.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Collects diagnostics across a stage so all of them are reported together.
#[derive(Debug, Default)]
pub(crate) struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    pub(crate) fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    pub(crate) fn extend(&mut self, ds: impl IntoIterator<Item = Diagnostic>) {
        self.0.extend(ds);
    }

    pub(crate) fn into_vec(self) -> Vec<Diagnostic> {
        self.0
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok(value)` when nothing was collected, else every diagnostic, sorted by location.
    pub(crate) fn finish<T>(mut self, value: T) -> Result<T> {
        if self.0.is_empty() {
            Ok(value)
        } else {
            self.0.sort();
            self.0.dedup();
            Err(Error::Diagnostics(self.0))
        }
    }
}

/// "did you mean" for a misspelt name: the closest candidate within a small edit distance.
pub(crate) fn did_you_mean<'a>(
    wrong: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(wrong, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min()
        .map(|(_, c)| format!("did you mean `{c}`?"))
}

/// Turns a toml/serde error into a located diagnostic, with "did you mean" for unknown keys.
pub(crate) fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> Diagnostic {
    let (line, column) = e.span().map_or((0, 0), |s| line_col(text, s.start));
    let message = e.message().trim().to_string();
    let mut d = Diagnostic::new(path, message.clone()).at(line, column);
    if let Some(rest) = message.strip_prefix("unknown field `") {
        if let Some((wrong, expected)) = rest.split_once('`') {
            let candidates: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
            d.field = Some(wrong.to_string());
            d.message = format!("unknown key `{wrong}`");
            d.hint = did_you_mean(wrong, candidates.iter().copied())
                .or_else(|| Some(format!("known keys: {}", candidates.join(", "))));
        }
    }
    d
}

/// A source file's text and the path it is reported under: turns a byte span of the text
/// and a message into a located diagnostic.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Located<'a> {
    pub(crate) path: &'a Path,
    pub(crate) text: &'a str,
}

impl Located<'_> {
    /// A diagnostic at the line and column where `span` starts.
    pub(crate) fn at(
        &self,
        span: std::ops::Range<usize>,
        message: impl Into<String>,
    ) -> Diagnostic {
        let (line, column) = line_col(self.text, span.start);
        Diagnostic::new(self.path, message).at(line, column)
    }
}

/// 1-based line and column of a byte offset in `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(
            did_you_mean("titel", ["title", "date"]).as_deref(),
            Some("did you mean `title`?")
        );
        assert_eq!(did_you_mean("zzzzzz", ["title", "date"]), None);
    }

    #[test]
    fn line_col_is_one_based() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
    }

    #[test]
    fn located_diagnostics_name_the_line_and_column() {
        let file = Located {
            path: Path::new("casebook.toml"),
            text: "title = \"T\"\npaginate_by = 0\n",
        };
        let d = file.at(26..27, "must be at least 1");
        assert_eq!(d.to_string(), "casebook.toml:2:15: must be at least 1");
    }

    #[test]
    fn display_has_location_field_and_hint() {
        let d = Diagnostic::new("content/a.md", "bad")
            .at(3, 7)
            .field("branch")
            .hint("fix it");
        assert_eq!(
            d.to_string(),
            "content/a.md:3:7: branch: bad\n  hint: fix it"
        );
    }
}
