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
use crate::content::{Case, Corpus, FieldValue};
use crate::error::{Error, Result};
use crate::hashing::{Hasher, casebook_identity};
use crate::output::Output;

/// `data/cases.json` but its cases, which are serialised one by one (`json_document`).
/// Serialised straight from these types (keys in alphabetical order, as the file has always
/// had them) rather than through a JSON value tree: at 11,000 cases that was most of the
/// cost of the whole-site files.
#[derive(Serialize)]
struct Document<'a> {
    count: usize,
    fields: Vec<FieldInfo<'a>>,
    title: &'a str,
}

/// One case of `data/cases.json`: a field the case does not carry is `null`.
type Record<'a> = BTreeMap<&'a str, Option<Cell<'a>>>;

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

/// The export's files, which `cases` makes.
pub(super) const FILES: [&str; 2] = ["data/cases.json", "data/cases.csv"];

/// A hash of everything `cases` reads: casebook itself, the schema, the site's title,
/// default language and address, and each case of the default language as parsed (its
/// page's path and title, its id and values). A one-shot build takes the export as the last
/// build published it while this is the same: after most edits (a narrative, a photograph)
/// the 11,000 records would be serialised again into the same bytes. `None` without a schema.
pub(super) fn fingerprint(config: &Config, corpus: &Corpus) -> Option<u128> {
    let schema = config.cases.as_ref()?;
    let mut h = Hasher::default();
    h.text(&casebook_identity());
    // Debug text holds every field of the schema, those the export does not read too.
    h.text(&format!("{schema:?}"));
    for text in [&config.title, &config.default_language, &config.base_url] {
        h.text(text);
    }
    let cases: Vec<u128> = (corpus.pages.par_iter())
        .filter(|p| p.meta.lang == config.default_language)
        .filter_map(|p| p.case.as_ref().map(|c| (c, p)))
        .map(|(case, page)| {
            // Named one by one, so that a field added to a case cannot be left out unseen.
            let Case {
                id,
                id_at: _,
                values,
                synthetic: _,
                withdrawn: _,
            } = case;
            let mut h = Hasher::default();
            for text in [id, &page.meta.path, &page.meta.title] {
                h.text(text);
            }
            h.serialized(values);
            h.digest()
        })
        .collect();
    h.number(cases.len() as u64);
    for case in cases {
        h.bytes(&case.to_le_bytes());
    }
    Some(h.digest())
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
    // Each case's JSON record and CSV row, side by side, as bytes at once: 11,000 maps of
    // values held until the end made the build's peak memory.
    let (records, rows): (Vec<Vec<u8>>, Vec<Vec<u8>>) = cases
        .par_iter()
        .map(|(case, page)| {
            let url = config.permalink(&page.meta.path);
            let mut record = Record::new();
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
            Ok((json_item(&record), csv_row(&row)?))
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();

    let mut csv_bytes = Vec::from("\u{feff}".as_bytes());
    csv_bytes.extend(csv_row(&header)?);
    for row in rows {
        csv_bytes.extend(row);
    }
    let document = Document {
        count: records.len(),
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
    let json_bytes = json_document(records, &document);
    Ok(vec![
        Output::bytes("data/cases.json", json_bytes),
        Output::bytes("data/cases.csv", csv_bytes),
    ])
}

/// One CSV row, as RFC 4180 asks (CRLF).
fn csv_row<S: AsRef<[u8]>>(cells: &[S]) -> Result<Vec<u8>> {
    let mut csv = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    csv.write_record(cells).map_err(csv_error)?;
    csv.into_inner()
        .map_err(|e| csv_error(e.into_error().into()))
}

/// A record as an item of the pretty-printed `cases` array: indented two levels.
fn json_item(record: &impl Serialize) -> Vec<u8> {
    let bytes = serde_json::to_vec_pretty(record).expect("JSON values serialise");
    let mut item = Vec::with_capacity(bytes.len() + bytes.len() / 8);
    item.extend_from_slice(b"    ");
    for &b in &bytes {
        item.push(b);
        // A pretty-printed value has no other newline: strings escape theirs.
        if b == b'\n' {
            item.extend_from_slice(b"    ");
        }
    }
    item
}

/// The bytes `serde_json::to_vec_pretty` gives for an object whose first key is `cases`
/// (holding `items`, from `json_item`) and whose other keys are `rest`'s, and a newline.
fn json_document(items: Vec<Vec<u8>>, rest: &impl Serialize) -> Vec<u8> {
    let rest = serde_json::to_vec_pretty(rest).expect("JSON values serialise");
    let size = items.iter().map(|i| i.len() + 2).sum::<usize>() + rest.len() + 32;
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(b"{\n  \"cases\": [");
    for (i, item) in items.into_iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
        out.extend(item);
    }
    // `[]` when empty, as serde_json writes it.
    if out.ends_with(b"[") {
        out.extend_from_slice(b"],\n");
    } else {
        out.extend_from_slice(b"\n  ],\n");
    }
    // `rest` is `{\n  "count": …\n}`: its keys, already indented one level.
    out.extend_from_slice(&rest[2..]);
    out.push(b'\n');
    out
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
    use super::{json_document, json_item, spreadsheet_safe};

    #[test]
    fn the_document_is_what_serde_json_prints_for_it_whole() {
        let rest = serde_json::json!({"count": 2, "fields": [{"a": [1, 2]}], "title": "T"});
        for records in [
            vec![],
            vec![serde_json::json!({"a": null, "b": ["x", "y"], "c": "multi\nline"})],
            vec![
                serde_json::json!({"a": 1, "b": [], "c": true}),
                serde_json::json!({"a": "\u{645}", "b": ["z"], "c": {"d": [1]}}),
            ],
        ] {
            let mut whole = rest.clone();
            whole["cases"] = serde_json::Value::from(records.clone());
            let mut expected = serde_json::to_vec_pretty(&whole).unwrap();
            expected.push(b'\n');
            let items = records.iter().map(json_item).collect();
            let got = json_document(items, &rest);
            assert_eq!(
                String::from_utf8(got).unwrap(),
                String::from_utf8(expected).unwrap()
            );
        }
    }

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
