//! The open-data export: `data/cases.json` and `data/cases.csv`, one record per case with
//! every schema field and its URL.
//!
//! The CSV is written to open cleanly in spreadsheets: a UTF-8 byte-order mark (so Excel
//! reads Arabic correctly), CRLF line ends as RFC 4180 asks, and cells that a spreadsheet
//! would run as formulas prefixed with `'`.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use crate::config::{Config, FieldType};
use crate::content::{Corpus, FieldValue};
use crate::error::{Error, Result};
use crate::output::Output;

/// `data/cases.json`. Serialised straight from these types (keys in alphabetical order, as
/// the file has always had them) rather than through a JSON value tree: at 11,000 cases
/// that was most of the cost of the whole-site files.
#[derive(Serialize)]
struct Document<'a> {
    /// A field the case does not carry is `null`.
    cases: Vec<BTreeMap<&'a str, Option<Cell<'a>>>>,
    count: usize,
    fields: Vec<FieldInfo<'a>>,
    title: &'a str,
}

#[derive(Serialize)]
struct FieldInfo<'a> {
    facet: Option<&'a str>,
    label: &'a str,
    name: &'a str,
    required: bool,
    #[serde(rename = "type")]
    kind: FieldType,
    values: &'a [String],
}

/// One value of a record: numbers and booleans as such, lists as arrays, the rest as text.
#[derive(Serialize)]
#[serde(untagged)]
enum Cell<'a> {
    Int(i64),
    Bool(bool),
    List(&'a [String]),
    Text(String),
}

impl<'a> Cell<'a> {
    fn of(value: &'a FieldValue) -> Cell<'a> {
        match value {
            FieldValue::Int(i) => Cell::Int(*i),
            FieldValue::Bool(b) => Cell::Bool(*b),
            FieldValue::List(items) => Cell::List(items),
            other => Cell::Text(other.to_text()),
        }
    }
}

pub(super) fn cases(config: &Config, corpus: &Corpus) -> Result<Vec<Output>> {
    let Some(schema) = &config.cases else {
        return Ok(Vec::new());
    };
    let mut cases: Vec<_> = corpus
        .pages
        .iter()
        .filter(|p| p.meta.lang == config.default_language)
        .filter_map(|p| p.case.as_ref().map(|c| (c, p)))
        .collect();
    cases.sort_by(|a, b| a.0.id.cmp(&b.0.id));

    let mut header: Vec<&str> = schema.fields.iter().map(|f| f.name.as_str()).collect();
    header.extend(["title", "url"]);
    // Each case's JSON record and CSV row, side by side.
    let (records, rows): (Vec<_>, Vec<_>) = cases
        .par_iter()
        .map(|(case, page)| {
            let url = config.permalink(&page.meta.path);
            let mut record = BTreeMap::new();
            let mut row = Vec::with_capacity(header.len());
            for field in &schema.fields {
                let value = case.values.get(&field.name);
                record.insert(field.name.as_str(), value.map(Cell::of));
                row.push(spreadsheet_safe(
                    value.map(FieldValue::to_text).unwrap_or_default(),
                ));
            }
            record.insert("title", Some(Cell::Text(page.meta.title.clone())));
            record.insert("url", Some(Cell::Text(url.clone())));
            row.push(spreadsheet_safe(page.meta.title.clone()));
            row.push(url);
            (record, row)
        })
        .unzip();

    let mut csv = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::from("\u{feff}".as_bytes()));
    csv.write_record(&header).map_err(csv_error)?;
    for row in &rows {
        csv.write_record(row).map_err(csv_error)?;
    }
    let document = Document {
        count: records.len(),
        cases: records,
        fields: schema
            .fields
            .iter()
            .map(|f| FieldInfo {
                facet: f.facet.as_deref(),
                label: &f.label,
                name: &f.name,
                required: f.required,
                kind: f.kind,
                values: &f.values,
            })
            .collect(),
        title: &config.title,
    };
    let mut json_bytes = serde_json::to_vec_pretty(&document).expect("JSON values serialise");
    json_bytes.push(b'\n');
    let csv_bytes = csv
        .into_inner()
        .map_err(|e| csv_error(e.into_error().into()))?;
    Ok(vec![
        Output::bytes("data/cases.json", json_bytes),
        Output::bytes("data/cases.csv", csv_bytes),
    ])
}

/// Spreadsheets execute cells starting with `=`, `+`, `-`, `@`, tab or CR as formulas,
/// some even behind spaces or control characters: such a cell is written with a `'` before
/// it. `casebook import` takes that `'` off again, and refuses the cell without it, so the
/// site's own `cases.csv` imports back to the same values.
fn spreadsheet_safe(text: String) -> String {
    if needs_quote(&text) {
        format!("'{text}")
    } else {
        text
    }
}

/// Whether a CSV cell holding `text` is written with a `'` before it: text a spreadsheet or
/// `casebook import` would take for a formula, and text that begins with `'` before such
/// text (so that taking one `'` off gives it back). Numbers such as `-12` stay as they are.
pub(crate) fn needs_quote(text: &str) -> bool {
    if text.bytes().any(|b| b.is_ascii_digit()) && text.parse::<f64>().is_ok() {
        return false;
    }
    if let Some(rest) = text.strip_prefix('\'') {
        return needs_quote(rest);
    }
    let start = text.trim_start_matches(|c: char| c.is_whitespace() || c.is_control());
    text.starts_with(['\t', '\r']) || start.starts_with(['=', '+', '-', '@'])
}

fn csv_error(e: csv::Error) -> Error {
    Error::io(
        std::path::Path::new("data/cases.csv"),
        std::io::Error::other(e.to_string()),
    )
}

#[cfg(test)]
mod tests {
    use super::spreadsheet_safe;

    #[test]
    fn formulas_are_neutralised_numbers_are_not() {
        assert_eq!(
            spreadsheet_safe("=HYPERLINK(\"x\")".into()),
            "'=HYPERLINK(\"x\")"
        );
        assert_eq!(spreadsheet_safe("-12".into()), "-12");
        assert_eq!(spreadsheet_safe("20-29".into()), "20-29");
        assert_eq!(spreadsheet_safe(" =1+1".into()), "' =1+1");
        assert_eq!(spreadsheet_safe("\u{7}+x".into()), "'\u{7}+x");
        assert_eq!(spreadsheet_safe("'=x".into()), "''=x");
        assert_eq!(spreadsheet_safe("'plain".into()), "'plain");
        assert_eq!(spreadsheet_safe("-inf".into()), "'-inf");
    }
}
