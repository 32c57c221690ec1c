//! Case records: front-matter values checked against the schema declared in `casebook.toml`.
//!
//! Every problem becomes a located diagnostic (file, line, column, field, what was expected,
//! a hint) and all of a file's problems are reported, not only the first.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::NaiveDate;
use serde::Serialize;

use super::front_matter::Entry;
use crate::config::{CaseSchema, FieldDef, FieldType, is_url_safe};
use crate::error::{Diagnostic, did_you_mean};

/// A validated field value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(untagged)]
pub(crate) enum FieldValue {
    Str(String),
    Int(i64),
    Date(NaiveDate),
    Bool(bool),
    Enum(String),
    List(Vec<String>),
}

impl FieldValue {
    /// The value as plain text for exports and display, lists joined with `; `.
    pub(crate) fn to_text(&self) -> String {
        match self {
            FieldValue::Str(s) | FieldValue::Enum(s) => s.clone(),
            FieldValue::Int(i) => i.to_string(),
            FieldValue::Date(d) => d.format("%Y-%m-%d").to_string(),
            FieldValue::Bool(b) => b.to_string(),
            FieldValue::List(items) => items.join("; "),
        }
    }

    /// The facet values this value falls under: one per list item, the year of a date.
    pub(crate) fn facet_keys(&self) -> Vec<String> {
        match self {
            FieldValue::List(items) => items.clone(),
            FieldValue::Date(d) => vec![d.format("%Y").to_string()],
            FieldValue::Str(s) => vec![facet_slug(s)],
            other => vec![other.to_text()],
        }
    }
}

/// Free-text facet values become URL segments.
pub(crate) fn facet_slug(s: &str) -> String {
    if is_url_safe(s) {
        s.to_string()
    } else {
        slug::slugify(s)
    }
}

/// A case record: its id and every field it carries, by field name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Case {
    pub(crate) id: String,
    /// Line and column of the id field in the case file, for errors about the id.
    pub(crate) id_at: (usize, usize),
    pub(crate) values: BTreeMap<String, FieldValue>,
    /// Marked as a synthetic sample by the schema's `synthetic_field`.
    pub(crate) synthetic: bool,
    /// Withdrawn from publication (`withdrawn = { reason, date }`): only a tombstone remains.
    pub(crate) withdrawn: Option<Withdrawal>,
}

/// Why and when a case was withdrawn. The tombstone shows exactly this, and the id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Withdrawal {
    pub(crate) reason: String,
    pub(crate) date: NaiveDate,
}

/// The front-matter key that withdraws a case.
pub(crate) const WITHDRAWN_KEY: &str = "withdrawn";

/// Reads `withdrawn = { reason = "...", date = 2026-12-01 }`.
pub(crate) fn withdrawal(
    path: &Path,
    entry: &Entry,
    diags: &mut Vec<Diagnostic>,
) -> Option<Withdrawal> {
    let problem = |message: String| {
        Diagnostic::new(path, message)
            .at(entry.line, entry.column)
            .field(WITHDRAWN_KEY)
            .hint("write `withdrawn = { reason = \"family request\", date = 2026-12-01 }`")
    };
    let Some(table) = entry.value.as_table() else {
        diags.push(problem(format!(
            "expected a table, found {}",
            describe(&entry.value)
        )));
        return None;
    };
    let before = diags.len();
    if let Some(key) = table.keys().find(|k| *k != "reason" && *k != "date") {
        diags.push(problem(format!(
            "unknown key `{key}` in withdrawn (expected reason and date)"
        )));
    }
    let reason = match table.get("reason") {
        Some(toml::Value::String(r)) if !r.trim().is_empty() => Some(r.trim().to_string()),
        _ => {
            diags.push(problem(
                "withdrawn needs a reason (a non-empty string)".into(),
            ));
            None
        }
    };
    let date = match table.get("date") {
        Some(toml::Value::Datetime(dt)) if dt.time.is_none() => dt
            .date
            .and_then(|d| NaiveDate::from_ymd_opt(d.year.into(), d.month.into(), d.day.into())),
        _ => None,
    };
    if date.is_none() {
        diags.push(problem(
            "withdrawn needs a date, written as 2026-12-01 without quotes".into(),
        ));
    }
    if diags.len() > before {
        return None;
    }
    Some(Withdrawal {
        reason: reason?,
        date: date?,
    })
}

impl Case {
    /// Whether the case is a synthetic sample: pages and charts showing it say so.
    pub(crate) fn is_synthetic(&self) -> bool {
        self.synthetic
    }
}

/// Validates the schema entries of one case file. Non-schema entries are left to the caller.
/// A withdrawn case (`withdrawn` given) needs only its id: its other fields are not
/// checked, since they are never published.
pub(crate) fn validate(
    path: &Path,
    schema: &CaseSchema,
    entries: &[&Entry],
    file_line: usize,
    withdrawn: Option<Withdrawal>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Case> {
    let id_only: Vec<&Entry>;
    let entries = if withdrawn.is_some() {
        id_only = entries
            .iter()
            .copied()
            .filter(|e| e.key == schema.id_field)
            .collect();
        &id_only[..]
    } else {
        entries
    };
    let mut values = BTreeMap::new();
    let before = diags.len();
    for entry in entries {
        let Some(field) = schema.field(&entry.key) else {
            continue;
        };
        match check_value(field, &entry.value) {
            Ok(v) => {
                // A facet value names a folder of the facet's pages.
                let unfit = field.facet.as_ref().and_then(|_| {
                    v.facet_keys().iter().find_map(|k| {
                        let long = crate::output::name_too_long(k, 0);
                        long.map(|p| (p, "shorten the value".to_string()))
                            .or_else(|| {
                                crate::output::unportable_name(k).map(|p| {
                                    (
                                        p,
                                        format!("change the value: {}", crate::output::WINDOWS_WHY),
                                    )
                                })
                            })
                    })
                });
                if let Some((problem, hint)) = unfit {
                    diags.push(
                        Diagnostic::new(
                            path,
                            format!("this value names a folder of facet pages: {problem}"),
                        )
                        .at(entry.line, entry.column)
                        .field(&field.name)
                        .hint(hint),
                    );
                }
                values.insert(field.name.clone(), v);
            }
            Err((message, hint)) => diags.push(
                Diagnostic::new(path, message)
                    .at(entry.line, entry.column)
                    .field(&field.name)
                    .maybe_hint(hint),
            ),
        }
    }
    let required = |f: &&FieldDef| f.required && (withdrawn.is_none() || f.name == schema.id_field);
    for field in schema.fields.iter().filter(required) {
        if !entries.iter().any(|e| e.key == field.name) {
            diags.push(
                Diagnostic::new(
                    path,
                    format!(
                        "required field is missing (expected {})",
                        field.kind.describe()
                    ),
                )
                .at(file_line, 1)
                .field(&field.name)
                .hint(format!(
                    "add `{} = {}` to the front matter",
                    field.name,
                    example(field)
                )),
            );
        }
    }
    if let Some(FieldValue::Str(id)) = values.get(&schema.id_field) {
        if !is_url_safe(id) {
            let entry = entries.iter().find(|e| e.key == schema.id_field);
            diags.push(
                Diagnostic::new(path, format!("case id `{id}` cannot be used in a URL"))
                    .at(entry.map_or(0, |e| e.line), entry.map_or(0, |e| e.column))
                    .field(&schema.id_field)
                    .hint("use lowercase letters, digits, `-` and `_`, e.g. \"syn-0001\""),
            );
        } else if let Some(problem) = crate::output::name_too_long(id, ".json".len()) {
            // The id names the case's folder and its proof file, `<id>.json`.
            let entry = entries.iter().find(|e| e.key == schema.id_field);
            diags.push(
                Diagnostic::new(path, format!("the case id cannot name a file: {problem}"))
                    .at(entry.map_or(0, |e| e.line), entry.map_or(0, |e| e.column))
                    .field(&schema.id_field)
                    .hint("use a shorter id"),
            );
        } else if let Some(problem) = crate::output::unportable_name(id) {
            // The case's folder and proof file would be named after a Windows device.
            let entry = entries.iter().find(|e| e.key == schema.id_field);
            diags.push(
                Diagnostic::new(path, format!("the case id cannot name a file: {problem}"))
                    .at(entry.map_or(0, |e| e.line), entry.map_or(0, |e| e.column))
                    .field(&schema.id_field)
                    .hint(format!("use another id: {}", crate::output::WINDOWS_WHY)),
            );
        }
    }
    if diags.len() > before {
        return None;
    }
    let id = match values.get(&schema.id_field) {
        Some(FieldValue::Str(id)) => id.clone(),
        _ => return None,
    };
    let id_at = entries
        .iter()
        .find(|e| e.key == schema.id_field)
        .map_or((0, 0), |e| (e.line, e.column));
    let synthetic = schema
        .synthetic_field
        .as_ref()
        .is_some_and(|f| matches!(values.get(f), Some(FieldValue::Bool(true))));
    Some(Case {
        id,
        id_at,
        values,
        synthetic,
        withdrawn,
    })
}

/// Suggests a field name for an unknown key (called by the page loader).
pub(crate) fn unknown_key_hint<'a>(key: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    did_you_mean(key, known).unwrap_or_else(|| {
        "remove it, or declare it as a case field in casebook.toml ([[cases.fields]])".into()
    })
}

fn example(field: &FieldDef) -> String {
    match field.kind {
        FieldType::String => "\"...\"".into(),
        FieldType::Integer => "123".into(),
        FieldType::Date => "2012-05-14".into(),
        FieldType::Boolean => "true".into(),
        FieldType::Enum => format!("\"{}\"", field.values.first().map_or("", String::as_str)),
        FieldType::List => format!("[\"{}\"]", field.values.first().map_or("", String::as_str)),
    }
}

pub(crate) type Problem = (String, Option<String>);

pub(crate) fn check_value(field: &FieldDef, value: &toml::Value) -> Result<FieldValue, Problem> {
    let wrong_type = || {
        (
            format!(
                "expected {}, found {}",
                field.kind.describe(),
                describe(value)
            ),
            Some(format!("write it as `{} = {}`", field.name, example(field))),
        )
    };
    match field.kind {
        FieldType::String => match value {
            toml::Value::String(s) if !s.trim().is_empty() => Ok(FieldValue::Str(s.clone())),
            toml::Value::String(_) => Err(("must not be empty".into(), None)),
            _ => Err(wrong_type()),
        },
        FieldType::Integer => value
            .as_integer()
            .map(FieldValue::Int)
            .ok_or_else(wrong_type),
        FieldType::Boolean => value.as_bool().map(FieldValue::Bool).ok_or_else(wrong_type),
        FieldType::Date => match value {
            toml::Value::Datetime(dt) => match (dt.date, dt.time) {
                (Some(d), None) => {
                    NaiveDate::from_ymd_opt(d.year.into(), d.month.into(), d.day.into())
                        .map(FieldValue::Date)
                        .ok_or_else(|| bad_date(&dt.to_string()))
                }
                _ => Err((
                    format!("expected a date without a time, found `{dt}`"),
                    Some("write the date alone, e.g. 2012-05-14".into()),
                )),
            },
            toml::Value::String(s) => NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .map(FieldValue::Date)
                .map_err(|_| bad_date(s)),
            _ => Err(wrong_type()),
        },
        FieldType::Enum => match value {
            toml::Value::String(s) => check_enum(field, s).map(FieldValue::Enum),
            _ => Err(wrong_type()),
        },
        FieldType::List => match value {
            toml::Value::Array(items) => {
                let mut out = Vec::new();
                for item in items {
                    match item {
                        toml::Value::String(s) => out.push(check_enum(field, s)?),
                        other => {
                            return Err((
                                format!("list items must be strings, found {}", describe(other)),
                                Some(format!("write it as `{} = {}`", field.name, example(field))),
                            ));
                        }
                    }
                }
                if let Some(dup) = out.iter().enumerate().find(|(i, v)| out[..*i].contains(v)) {
                    return Err((format!("`{}` is listed twice", dup.1), None));
                }
                Ok(FieldValue::List(out))
            }
            toml::Value::String(s) => Err((
                format!("expected a list, found the single string \"{s}\""),
                Some(format!("put it in brackets: `{} = [\"{s}\"]`", field.name)),
            )),
            _ => Err(wrong_type()),
        },
    }
}

fn check_enum(field: &FieldDef, s: &str) -> Result<String, Problem> {
    if field.values.iter().any(|v| v == s) {
        Ok(s.to_string())
    } else {
        let allowed = field.values.join(", ");
        Err((
            format!("`{s}` is not an allowed value (expected one of: {allowed})"),
            Some(
                did_you_mean(s, field.values.iter().map(String::as_str)).unwrap_or_else(|| {
                    format!(
                        "use one of the values declared for `{}` in casebook.toml",
                        field.name
                    )
                }),
            ),
        ))
    }
}

fn bad_date(s: &str) -> Problem {
    (
        format!("`{s}` is not a valid date"),
        Some("write dates as YYYY-MM-DD, e.g. 2012-05-14".into()),
    )
}

fn describe(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => format!("the string \"{s}\""),
        toml::Value::Integer(i) => format!("the integer {i}"),
        toml::Value::Float(f) => format!("the number {f}"),
        toml::Value::Boolean(b) => format!("the boolean {b}"),
        toml::Value::Datetime(d) => format!("the date {d}"),
        toml::Value::Array(_) => "a list".into(),
        toml::Value::Table(_) => "a table".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn schema() -> CaseSchema {
        Config::parse(
            r#"title = "T"
base_url = "https://x.org/"
[cases]
section = "cases"
id_field = "id"
[[cases.fields]]
name = "id"
type = "string"
required = true
[[cases.fields]]
name = "branch"
type = "enum"
values = ["215", "227"]
required = true
[[cases.fields]]
name = "when"
type = "date"
[[cases.fields]]
name = "marks"
type = "list"
values = ["beating", "starvation"]
"#,
            Path::new("."),
            Path::new("casebook.toml"),
        )
        .unwrap()
        .cases
        .unwrap()
    }

    fn entry(key: &str, value: toml::Value, line: usize) -> Entry {
        Entry {
            key: key.into(),
            value,
            line,
            column: 1,
        }
    }

    #[test]
    fn valid_case_passes() {
        let e = [
            entry("id", "c-1".into(), 2),
            entry("branch", "215".into(), 3),
            entry("marks", toml::Value::Array(vec!["beating".into()]), 4),
            entry("when", "2012-05-14".into(), 5),
        ];
        let mut d = Vec::new();
        let case = validate(
            Path::new("a.md"),
            &schema(),
            &e.iter().collect::<Vec<_>>(),
            1,
            None,
            &mut d,
        )
        .unwrap();
        assert!(d.is_empty());
        assert_eq!(case.id, "c-1");
        assert_eq!(case.values["when"].facet_keys(), ["2012"]);
    }

    #[test]
    fn every_problem_is_reported() {
        let e = [
            entry("id", "C 1".into(), 2),
            entry("branch", "999".into(), 3),
            entry("when", "2012-02-30".into(), 4),
            entry("marks", "beating".into(), 5),
        ];
        let mut d = Vec::new();
        assert!(
            validate(
                Path::new("a.md"),
                &schema(),
                &e.iter().collect::<Vec<_>>(),
                1,
                None,
                &mut d
            )
            .is_none()
        );
        let fields: Vec<_> = d
            .iter()
            .map(|d| (d.field.clone().unwrap(), d.line))
            .collect();
        assert_eq!(
            fields,
            [
                ("branch".into(), 3),
                ("when".into(), 4),
                ("marks".into(), 5),
                ("id".into(), 2)
            ]
        );
        assert!(d[0].message.contains("expected one of: 215, 227"));
    }

    #[test]
    fn missing_required_field_names_it() {
        let e = [entry("id", "c-1".into(), 2)];
        let mut d = Vec::new();
        validate(
            Path::new("a.md"),
            &schema(),
            &e.iter().collect::<Vec<_>>(),
            1,
            None,
            &mut d,
        );
        assert_eq!(d[0].field.as_deref(), Some("branch"));
        assert!(d[0].message.contains("required"));
    }

    #[test]
    fn a_withdrawn_case_needs_only_its_id_and_a_dated_reason() {
        let table: toml::Value =
            toml::from_str::<toml::Table>("w = { reason = \"family request\", date = 2026-12-01 }")
                .unwrap()["w"]
                .clone();
        let mut d = Vec::new();
        let w = withdrawal(Path::new("a.md"), &entry("withdrawn", table, 6), &mut d).unwrap();
        assert_eq!(w.reason, "family request");
        let e = [entry("id", "c-1".into(), 2)];
        let case = validate(
            Path::new("a.md"),
            &schema(),
            &e.iter().collect::<Vec<_>>(),
            1,
            Some(w),
            &mut d,
        )
        .unwrap();
        assert!(d.is_empty(), "{d:?}");
        assert!(case.withdrawn.is_some());
        let bad: toml::Value =
            toml::from_str::<toml::Table>("w = { reason = \"\", date = \"soon\" }").unwrap()["w"]
                .clone();
        assert!(withdrawal(Path::new("a.md"), &entry("withdrawn", bad, 6), &mut d).is_none());
        let messages: Vec<&str> = d.iter().map(|d| d.message.as_str()).collect();
        assert!(
            messages.iter().any(|m| m.contains("needs a reason")),
            "{messages:?}"
        );
        assert!(
            messages.iter().any(|m| m.contains("needs a date")),
            "{messages:?}"
        );
        assert!(
            d.iter()
                .all(|d| d.line == 6 && d.field.as_deref() == Some("withdrawn"))
        );
    }
}
