//! Splitting a content file into front matter and body, and parsing the front matter into
//! located key/value entries.
//!
//! TOML (`+++`) and YAML (`---`) both become `toml::Value`s so one validator serves both.
//! Every entry keeps the line and column of its key in the *file* (not the block), because
//! every later error must point the publisher at the exact spot.

use std::collections::BTreeMap;
use std::path::Path;

use toml::Spanned;

use crate::error::{Diagnostic, line_col};

/// One top-level key of the front matter and where it was written.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) key: String,
    pub(crate) value: toml::Value,
    pub(crate) line: usize,
    pub(crate) column: usize,
}

#[derive(Debug, Clone)]
pub(crate) struct Document<'a> {
    pub(crate) entries: Vec<Entry>,
    /// The front matter's text, between the delimiters.
    pub(crate) block: &'a str,
    pub(crate) body: &'a str,
    /// 1-based line of the file on which the body starts.
    pub(crate) body_line: usize,
}

/// Splits and parses; errors are located in the file at `path`.
pub(crate) fn parse<'a>(path: &Path, text: &'a str) -> Result<Document<'a>, Diagnostic> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(at) = text.find('\0') {
        // Never text a person wrote: a damaged file or a binary one saved as `.md`.
        let (line, column) = line_col(text, at);
        return Err(Diagnostic::new(path, "the file holds a NUL character (byte 0)")
            .at(line, column)
            .hint("content files are plain UTF-8 text: remove the character, or save the file again from a text editor"));
    }
    let first_line_end = text.find('\n').map_or(text.len(), |i| i + 1);
    let delimiter = text[..first_line_end].trim_end();
    if delimiter != "+++" && delimiter != "---" {
        return Err(Diagnostic::new(path, "the file does not start with front matter")
            .at(1, 1)
            .hint("start the file with a `+++` line, then `title = \"...\"`, then another `+++` line"));
    }
    let block_start = first_line_end;
    let mut offset = block_start;
    let mut close = None;
    for line in text[block_start..].split_inclusive('\n') {
        if line.trim_end() == delimiter {
            close = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let Some((block_end, body_start)) = close else {
        return Err(Diagnostic::new(
            path,
            format!("the front matter is never closed by a `{delimiter}` line"),
        )
        .at(1, 1)
        .hint(format!(
            "add a line containing only `{delimiter}` after the last front-matter key"
        )));
    };
    let block = &text[block_start..block_end];
    // Lines before the block: the opening delimiter.
    let line_offset = 1;
    let entries = if delimiter == "+++" {
        parse_toml(path, block, line_offset)?
    } else {
        parse_yaml(path, block, line_offset)?
    };
    let body_line = line_col(text, body_start).0;
    Ok(Document {
        entries,
        block,
        body: &text[body_start..],
        body_line,
    })
}

fn parse_toml(path: &Path, block: &str, line_offset: usize) -> Result<Vec<Entry>, Diagnostic> {
    let table: BTreeMap<Spanned<String>, Spanned<toml::Value>> =
        toml::from_str(block).map_err(|e| {
            let mut d = crate::error::toml_error(path, block, &e);
            if d.line > 0 {
                d.line += line_offset;
            }
            d.hint.get_or_insert_with(|| {
                "front matter between `+++` lines is TOML: strings need quotes, dates are written 2014-01-20".into()
            });
            d
        })?;
    let mut entries: Vec<Entry> = table
        .into_iter()
        .map(|(k, v)| {
            let (line, column) = line_col(block, k.span().start);
            Entry {
                key: k.into_inner(),
                value: v.into_inner(),
                line: line + line_offset,
                column,
            }
        })
        .collect();
    entries.sort_by_key(|e| (e.line, e.column));
    Ok(entries)
}

fn parse_yaml(path: &Path, block: &str, line_offset: usize) -> Result<Vec<Entry>, Diagnostic> {
    let value: serde_yaml_ng::Value = serde_yaml_ng::from_str(block).map_err(|e| {
        // Some errors (a second document, say) come without a place: the block's first line.
        let (line, column) = e.location().map_or((1 + line_offset, 1), |l| {
            (l.line() + line_offset, l.column())
        });
        Diagnostic::new(path, format!("invalid YAML front matter: {e}"))
            .at(line, column)
            .hint("front matter between `---` lines is YAML: `key: value`, one per line")
    })?;
    let mapping = match value {
        serde_yaml_ng::Value::Mapping(m) => m,
        serde_yaml_ng::Value::Null => Default::default(),
        _ => {
            return Err(Diagnostic::new(
                path,
                "the YAML front matter is not a set of `key: value` lines",
            )
            .at(1 + line_offset, 1));
        }
    };
    let mut entries = Vec::new();
    for (k, v) in mapping {
        let key = match k {
            serde_yaml_ng::Value::String(s) => s,
            other => yaml_scalar_text(&other),
        };
        // serde_yaml does not expose positions; top-level keys start a line, so find it.
        let (line, column) = block
            .lines()
            .position(|l| {
                l.strip_prefix(key.as_str())
                    .is_some_and(|rest| rest.trim_start().starts_with(':'))
            })
            .map_or((0, 0), |i| (i + 1 + line_offset, 1));
        let Some(value) = yaml_to_toml(v) else {
            continue; // `key:` with no value counts as absent
        };
        entries.push(Entry {
            key,
            value,
            line,
            column,
        });
    }
    entries.sort_by_key(|e| (e.line, e.column));
    Ok(entries)
}

fn yaml_scalar_text(v: &serde_yaml_ng::Value) -> String {
    serde_yaml_ng::to_string(v)
        .unwrap_or_default()
        .trim()
        .to_string()
}

fn yaml_to_toml(v: serde_yaml_ng::Value) -> Option<toml::Value> {
    use serde_yaml_ng::Value as Y;
    Some(match v {
        Y::Null => return None,
        Y::Bool(b) => toml::Value::Boolean(b),
        Y::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        Y::String(s) => toml::Value::String(s),
        Y::Sequence(items) => {
            toml::Value::Array(items.into_iter().filter_map(yaml_to_toml).collect())
        }
        Y::Mapping(m) => toml::Value::Table(
            m.into_iter()
                .filter_map(|(k, v)| {
                    let key = match k {
                        Y::String(s) => s,
                        other => yaml_scalar_text(&other),
                    };
                    yaml_to_toml(v).map(|v| (key, v))
                })
                .collect(),
        ),
        Y::Tagged(t) => return yaml_to_toml(t.value),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Text that looks like front matter more often than chance would make it.
        fn content_file() -> impl Strategy<Value = String> {
            let line = prop_oneof![
                Just("+++".to_string()),
                Just("---".to_string()),
                Just("title = \"A\"".to_string()),
                Just("title: A".to_string()),
                Just("[[photos]]".to_string()),
                "[a-z_]{1,8} = \"[^\"\\n]{0,12}\"",
                "[a-z_]{1,8}: [^\\n]{0,12}",
                "\\PC{0,24}",
                ".{0,24}",
            ];
            proptest::collection::vec(line, 0..12).prop_map(|lines| lines.join("\n"))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            /// Any text parses or gives an error located on one of its lines; never a panic.
            #[test]
            fn any_text_parses_or_is_a_located_error(text in content_file()) {
                let lines = text.split('\n').count();
                match parse(Path::new("content/x.md"), &text) {
                    Ok(doc) => {
                        for e in &doc.entries {
                            prop_assert!(e.line >= 2 && e.line <= lines, "{e:?} in {lines} lines");
                        }
                        prop_assert!(doc.body_line >= 2 && doc.body_line <= lines + 1);
                    }
                    Err(d) => {
                        prop_assert_eq!(d.path.as_path(), Path::new("content/x.md"));
                        prop_assert!(d.line >= 1 && d.line <= lines + 1, "line {} of {lines}: {}", d.line, d);
                    }
                }
            }
        }
    }

    #[test]
    fn toml_entries_carry_file_lines() {
        let doc = parse(
            Path::new("a.md"),
            "+++\ntitle = \"A\"\n\nweight = 2\n+++\nBody\n",
        )
        .unwrap();
        let lines: Vec<_> = doc
            .entries
            .iter()
            .map(|e| (e.key.as_str(), e.line))
            .collect();
        assert_eq!(lines, [("title", 2), ("weight", 4)]);
        assert_eq!(doc.body, "Body\n");
        assert_eq!(doc.body_line, 6);
    }

    #[test]
    fn yaml_is_accepted() {
        let doc = parse(Path::new("a.md"), "---\ntitle: A\ntags: [x, y]\n---\nBody").unwrap();
        assert_eq!(doc.entries[0].value.as_str(), Some("A"));
        assert_eq!(doc.entries[1].line, 3);
    }

    #[test]
    fn toml_syntax_error_points_into_the_file() {
        let err = parse(Path::new("a.md"), "+++\ntitle = \"A\"\nweight = = 2\n+++\n").unwrap_err();
        assert_eq!(err.line, 3);
    }

    #[test]
    fn unclosed_front_matter_is_an_error() {
        let err = parse(Path::new("a.md"), "+++\ntitle = \"A\"\n").unwrap_err();
        assert!(err.message.contains("never closed"));
    }

    #[test]
    fn crlf_files_work() {
        let doc = parse(Path::new("a.md"), "+++\r\ntitle = \"A\"\r\n+++\r\nBody").unwrap();
        assert_eq!(doc.body, "Body");
    }
}
