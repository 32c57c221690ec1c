//! Changing a case file's top-level front-matter keys and adding photographs, as `import`
//! does: only the keys changed are touched, and everything else (comments, key order,
//! quoting, the body) stays as written.
//!
//! TOML front matter (`+++`) is edited with `toml_edit`, which keeps a document's format.
//! YAML (`---`) has no such editor in Rust, so a changed top-level key's lines are replaced
//! with a JSON-style value, which YAML reads as it is.

use super::{Form, split};
use crate::config::Sensitivity;
use crate::content::FieldValue;

/// One change to a front-matter key: a new value, or `None` to remove the key.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Change {
    Set(String, FieldValue),
    Remove(String),
}

/// A photograph to add to a case file's `photos`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NewPhoto {
    pub(crate) file: String,
    pub(crate) alt: Option<String>,
    pub(crate) caption: Option<String>,
    pub(crate) sensitivity: Option<Sensitivity>,
}

/// A case file's text with `changes` made and `photos` appended to `[[photos]]`.
pub(crate) fn apply(text: &str, changes: &[Change], photos: &[NewPhoto]) -> Result<String, String> {
    let parts = split(text)?;
    let edited = match parts.form {
        Form::Toml => edit_toml(&parts.block, changes, photos)?,
        Form::Yaml => edit_yaml(&parts.block, changes, photos)?,
    };
    Ok(parts.join(&edited))
}

/// A TOML string. Text with a line that reads `+++` is written on one line with `\n`
/// escapes: in a multi-line string that line would end the front matter.
pub(super) fn toml_string(text: &str) -> toml_edit::Value {
    if !text.lines().any(|l| l.trim() == "+++") {
        return text.into();
    }
    let mut quoted = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\r' => quoted.push_str("\\r"),
            '\t' => quoted.push_str("\\t"),
            c if c.is_control() => quoted.push_str(&format!("\\u{:04X}", c as u32)),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted.parse().unwrap_or_else(|_| text.into())
}

fn toml_value(value: &FieldValue) -> toml_edit::Value {
    match value {
        FieldValue::Str(s) | FieldValue::Enum(s) => toml_string(s),
        FieldValue::Int(i) => (*i).into(),
        FieldValue::Bool(b) => (*b).into(),
        FieldValue::Date(d) => {
            use chrono::Datelike;
            toml_edit::Datetime {
                date: Some(toml_edit::Date {
                    year: d.year() as u16,
                    month: d.month() as u8,
                    day: d.day() as u8,
                }),
                time: None,
                offset: None,
            }
            .into()
        }
        FieldValue::List(items) => {
            toml_edit::Value::Array(items.iter().map(|i| toml_string(i)).collect())
        }
    }
}

fn edit_toml(block: &str, changes: &[Change], photos: &[NewPhoto]) -> Result<String, String> {
    let mut doc: toml_edit::DocumentMut = block.parse().map_err(|e| format!("{e}"))?;
    change_toml(&mut doc, changes, photos)?;
    Ok(doc.to_string())
}

/// Makes `changes` in `doc` and appends `photos` to its `[[photos]]`.
fn change_toml(
    doc: &mut toml_edit::DocumentMut,
    changes: &[Change],
    photos: &[NewPhoto],
) -> Result<(), String> {
    for change in changes {
        match change {
            Change::Set(key, value) => match doc.get_mut(key).and_then(|i| i.as_value_mut()) {
                // Replacing the value alone keeps the key's place and the spaces around it.
                Some(old) => {
                    let decor = old.decor().clone();
                    *old = toml_value(value);
                    *old.decor_mut() = decor;
                }
                None => {
                    doc.insert(key, toml_edit::value(toml_value(value)));
                }
            },
            Change::Remove(key) => {
                doc.remove(key);
            }
        }
    }
    if !photos.is_empty() {
        let entries = doc
            .entry("photos")
            .or_insert(toml_edit::Item::ArrayOfTables(Default::default()));
        let Some(entries) = entries.as_array_of_tables_mut() else {
            return Err("`photos` is not written as [[photos]] tables".into());
        };
        for photo in photos {
            let mut table = toml_edit::Table::new();
            table.insert("file", toml_edit::value(toml_string(&photo.file)));
            if let Some(alt) = &photo.alt {
                table.insert("alt", toml_edit::value(toml_string(alt)));
            }
            if let Some(caption) = &photo.caption {
                table.insert("caption", toml_edit::value(toml_string(caption)));
            }
            if let Some(s) = photo.sensitivity {
                table.insert("sensitivity", toml_edit::value(s.name()));
            }
            entries.push(table);
        }
    }
    Ok(())
}

/// A value as YAML reads it: JSON's notation is YAML's flow notation. Dates stay bare so
/// YAML reads them as it reads hand-written ones.
fn yaml_value(value: &FieldValue) -> String {
    match value {
        FieldValue::Str(s) | FieldValue::Enum(s) => json_string(s),
        FieldValue::Int(i) => i.to_string(),
        FieldValue::Bool(b) => b.to_string(),
        FieldValue::Date(d) => d.format("%Y-%m-%d").to_string(),
        FieldValue::List(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|s| json_string(s))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

pub(super) fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

/// The lines of top-level key `key`: its own line and the indented or `- ` lines below it.
pub(super) fn yaml_key_lines(lines: &[String], key: &str) -> Option<std::ops::Range<usize>> {
    let start = lines.iter().position(|l| {
        l.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with(':'))
    })?;
    let mut end = start + 1;
    while end < lines.len() {
        let l = &lines[end];
        if l.starts_with([' ', '\t']) || l.starts_with("- ") || l == "-" || l.trim().is_empty() {
            end += 1;
        } else {
            break;
        }
    }
    // Blank lines after the value belong to what follows.
    while end > start + 1 && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    Some(start..end)
}

fn edit_yaml(block: &str, changes: &[Change], photos: &[NewPhoto]) -> Result<String, String> {
    let mut lines: Vec<String> = block.lines().map(str::to_string).collect();
    for change in changes {
        match change {
            Change::Set(key, value) => {
                let line = format!("{key}: {}", yaml_value(value));
                match yaml_key_lines(&lines, key) {
                    Some(range) => {
                        lines.splice(range, [line]);
                    }
                    None => lines.push(line),
                }
            }
            Change::Remove(key) => {
                if let Some(range) = yaml_key_lines(&lines, key) {
                    lines.drain(range);
                }
            }
        }
    }
    if !photos.is_empty() {
        if yaml_key_lines(&lines, "photos").is_some() {
            return Err(
                "photos can be added by import only to TOML front matter (+++) or to YAML front matter without photos"
                    .into(),
            );
        }
        lines.push("photos:".into());
        for photo in photos {
            let mut item = vec![format!("file: {}", json_string(&photo.file))];
            if let Some(alt) = &photo.alt {
                item.push(format!("alt: {}", json_string(alt)));
            }
            if let Some(caption) = &photo.caption {
                item.push(format!("caption: {}", json_string(caption)));
            }
            if let Some(s) = photo.sensitivity {
                item.push(format!("sensitivity: {}", s.name()));
            }
            lines.push(format!("  - {}", item.join("\n    ")));
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    Ok(out)
}

/// A new case file: the title, the fields in schema order, the photographs; no narrative.
pub(crate) fn new_file(title: &str, fields: &[(&str, &FieldValue)], photos: &[NewPhoto]) -> String {
    let mut doc = toml_edit::DocumentMut::new();
    doc.insert("title", toml_edit::value(toml_string(title)));
    for (key, value) in fields {
        doc.insert(key, toml_edit::value(toml_value(value)));
    }
    change_toml(&mut doc, &[], photos).expect("a new document has no other `photos`");
    format!("+++\n{doc}+++\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn photo(file: &str) -> NewPhoto {
        NewPhoto {
            file: file.into(),
            alt: Some("Alt".into()),
            caption: None,
            sensitivity: Some(Sensitivity::Graphic),
        }
    }

    #[test]
    fn toml_edits_keep_comments_order_and_body() {
        let text = "+++\ntitle = \"T\"\n# the branch\nbranch = \"215\"  # from the card\nage = 3\n[[photos]]\nfile = \"a.jpg\"\nalt = \"A\"\n+++\n\nBody stays.\n";
        let out = apply(
            text,
            &[
                Change::Set("branch".into(), FieldValue::Enum("227".into())),
                Change::Remove("age".into()),
                Change::Set(
                    "when".into(),
                    FieldValue::Date(NaiveDate::from_ymd_opt(2012, 5, 14).unwrap()),
                ),
            ],
            &[photo("b.jpg")],
        )
        .unwrap();
        assert_eq!(
            out,
            "+++\ntitle = \"T\"\n# the branch\nbranch = \"227\"  # from the card\nwhen = 2012-05-14\n[[photos]]\nfile = \"a.jpg\"\nalt = \"A\"\n\n[[photos]]\nfile = \"b.jpg\"\nalt = \"Alt\"\nsensitivity = \"graphic\"\n+++\n\nBody stays.\n"
        );
    }

    #[test]
    fn crlf_and_bom_survive() {
        let text = "\u{feff}+++\r\ntitle = \"T\"\r\nn = 1\r\n+++\r\nBody\r\n";
        let out = apply(text, &[Change::Set("n".into(), FieldValue::Int(2))], &[]).unwrap();
        assert_eq!(
            out,
            "\u{feff}+++\r\ntitle = \"T\"\r\nn = 2\r\n+++\r\nBody\r\n"
        );
    }

    #[test]
    fn yaml_edits_replace_only_the_changed_keys_lines() {
        let text = "---\ntitle: T   # kept\nmarks:\n  - beating\n  - starvation\nbranch: '215'\n---\nBody\n";
        let out = apply(
            text,
            &[
                Change::Set("marks".into(), FieldValue::List(vec!["beating".into()])),
                Change::Remove("branch".into()),
                Change::Set("note".into(), FieldValue::Str("a \"quoted\" word".into())),
            ],
            &[],
        )
        .unwrap();
        assert_eq!(
            out,
            "---\ntitle: T   # kept\nmarks: [\"beating\"]\nnote: \"a \\\"quoted\\\" word\"\n---\nBody\n"
        );
        let parsed =
            crate::content::front_matter::parse(std::path::Path::new("a.md"), &out).unwrap();
        assert_eq!(parsed.entries[2].value.as_str(), Some("a \"quoted\" word"));
    }

    #[test]
    fn a_new_file_lists_fields_in_the_order_given() {
        let text = new_file(
            "Case c-1",
            &[
                ("id", &FieldValue::Str("c-1".into())),
                ("n", &FieldValue::Int(4)),
            ],
            &[photo("a.jpg")],
        );
        assert_eq!(
            text,
            "+++\ntitle = \"Case c-1\"\nid = \"c-1\"\nn = 4\n\n[[photos]]\nfile = \"a.jpg\"\nalt = \"Alt\"\nsensitivity = \"graphic\"\n+++\n"
        );
    }
}
