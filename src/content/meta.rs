//! The standard front-matter keys every page and section share (title, date, weight, ...),
//! extracted from located entries into typed values.

use std::path::Path;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeZone};

use super::front_matter::Entry;
use crate::error::Diagnostic;

/// A date from front matter; date-only values mean midnight UTC.
pub(crate) type Date = DateTime<FixedOffset>;

pub(crate) const PAGE_KEYS: &[&str] = &[
    "title",
    "description",
    "date",
    "updated",
    "draft",
    "weight",
    "slug",
    "template",
    "extra",
    "photos",
];
pub(crate) const SECTION_KEYS: &[&str] = &[
    "title",
    "description",
    "date",
    "updated",
    "draft",
    "weight",
    "template",
    "paginate_by",
    "extra",
];

/// Typed standard keys. Unknown keys are reported by the caller, which knows the schema.
#[derive(Debug, Clone, Default)]
pub(crate) struct Standard {
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) date: Option<Date>,
    pub(crate) updated: Option<Date>,
    pub(crate) draft: bool,
    pub(crate) weight: Option<i64>,
    pub(crate) slug: Option<String>,
    pub(crate) template: Option<String>,
    pub(crate) paginate_by: Option<usize>,
    pub(crate) extra: toml::Table,
}

pub(crate) fn extract(path: &Path, entries: &[&Entry], diags: &mut Vec<Diagnostic>) -> Standard {
    let mut s = Standard::default();
    for e in entries {
        let wrong = |expected: &str, hint: &str| {
            Diagnostic::new(
                path,
                format!("expected {expected}, found {}", e.value.type_str()),
            )
            .at(e.line, e.column)
            .field(&e.key)
            .hint(hint.to_string())
        };
        match e.key.as_str() {
            "title" | "description" | "slug" | "template" => {
                let Some(text) = e.value.as_str() else {
                    diags.push(wrong("a string", "put the text in double quotes"));
                    continue;
                };
                if e.key == "slug" {
                    if let Some(problem) = crate::output::name_too_long(&slug::slugify(text), 0) {
                        diags.push(
                            Diagnostic::new(
                                path,
                                format!("the slug names the page's folder: {problem}"),
                            )
                            .at(e.line, e.column)
                            .field("slug")
                            .hint("use a shorter slug"),
                        );
                        continue;
                    }
                    if let Some(problem) = crate::output::unportable_name(&slug::slugify(text)) {
                        diags.push(
                            Diagnostic::new(
                                path,
                                format!("the slug names the page's folder: {problem}"),
                            )
                            .at(e.line, e.column)
                            .field("slug")
                            .hint(format!("use another slug: {}", crate::output::WINDOWS_WHY)),
                        );
                        continue;
                    }
                }
                let text = Some(text.to_string());
                match e.key.as_str() {
                    "title" => s.title = text,
                    "description" => s.description = text,
                    "slug" => s.slug = text,
                    _ => s.template = text,
                }
            }
            "date" | "updated" => match parse_date(&e.value) {
                Ok(d) => {
                    if e.key == "date" {
                        s.date = Some(d)
                    } else {
                        s.updated = Some(d)
                    }
                }
                Err(found) => diags.push(
                    Diagnostic::new(path, format!("`{found}` is not a valid date"))
                        .at(e.line, e.column)
                        .field(&e.key)
                        .hint(
                            "write a date as 2014-01-20 or a date and time as 2014-01-20T09:30:00Z",
                        ),
                ),
            },
            "draft" => match e.value.as_bool() {
                Some(b) => s.draft = b,
                None => diags.push(wrong(
                    "true or false",
                    "write `draft = true` without quotes",
                )),
            },
            "weight" => match e.value.as_integer() {
                Some(w) => s.weight = Some(w),
                None => diags.push(wrong("an integer", "write `weight = 3` without quotes")),
            },
            "paginate_by" => match e.value.as_integer() {
                Some(n) if n >= 1 => s.paginate_by = Some(n as usize),
                _ => diags.push(wrong(
                    "a whole number of at least 1",
                    "write `paginate_by = 20`",
                )),
            },
            "extra" => match &e.value {
                toml::Value::Table(t) => s.extra = t.clone(),
                _ => diags.push(wrong(
                    "a table",
                    "write `[extra]` on its own line, then keys below it",
                )),
            },
            _ => {}
        }
    }
    s
}

fn parse_date(value: &toml::Value) -> Result<Date, String> {
    let text = match value {
        toml::Value::Datetime(dt) => dt.to_string(),
        toml::Value::String(s) => s.clone(),
        other => return Err(other.to_string()),
    };
    parse_date_str(&text).ok_or(text)
}

pub(crate) fn parse_date_str(text: &str) -> Option<Date> {
    let utc = FixedOffset::east_opt(0)?;
    if let Ok(d) = DateTime::parse_from_rfc3339(text) {
        return Some(d);
    }
    if let Ok(d) = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S") {
        return utc.from_local_datetime(&d).single();
    }
    if let Ok(d) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return utc.from_local_datetime(&d.and_hms_opt(0, 0, 0)?).single();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_accept_date_and_datetime() {
        assert_eq!(
            parse_date_str("2014-01-20").unwrap().to_rfc3339(),
            "2014-01-20T00:00:00+00:00"
        );
        assert!(parse_date_str("2014-01-20T09:30:00+02:00").is_some());
        assert!(parse_date_str("2014-02-30").is_none());
    }
}
