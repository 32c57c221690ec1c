//! The open-data export: `data/cases.json` and `data/cases.csv`, one record per case with
//! every schema field and its URL.
//!
//! The CSV is written to open cleanly in spreadsheets: a UTF-8 byte-order mark (so Excel
//! reads Arabic correctly), CRLF line ends as RFC 4180 asks, and cells that a spreadsheet
//! would run as formulas prefixed with `'`.

use serde_json::{Map, Value, json};

use crate::config::Config;
use crate::content::{Corpus, FieldValue};
use crate::error::{Error, Result};
use crate::output::Output;

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

    let mut records = Vec::with_capacity(cases.len());
    let mut csv = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::from("\u{feff}".as_bytes()));
    let mut header: Vec<&str> = schema.fields.iter().map(|f| f.name.as_str()).collect();
    header.extend(["title", "url"]);
    csv.write_record(&header).map_err(csv_error)?;

    for (case, page) in &cases {
        let url = config.permalink(&page.meta.path);
        let mut record = Map::new();
        let mut row = Vec::with_capacity(header.len());
        for field in &schema.fields {
            let value = case.values.get(&field.name);
            record.insert(field.name.clone(), value.map_or(Value::Null, json_value));
            row.push(spreadsheet_safe(
                value.map(FieldValue::to_text).unwrap_or_default(),
            ));
        }
        record.insert("title".into(), json!(page.meta.title));
        record.insert("url".into(), json!(url));
        row.push(spreadsheet_safe(page.meta.title.clone()));
        row.push(url);
        records.push(Value::Object(record));
        csv.write_record(&row).map_err(csv_error)?;
    }
    let fields: Vec<Value> = schema
        .fields
        .iter()
        .map(|f| {
            json!({
                "name": f.name,
                "type": f.kind,
                "label": f.label,
                "required": f.required,
                "facet": f.facet,
                "values": f.values,
            })
        })
        .collect();
    let document = json!({
        "title": config.title,
        "count": records.len(),
        "fields": fields,
        "cases": records,
    });
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

fn json_value(v: &FieldValue) -> Value {
    match v {
        FieldValue::Int(i) => json!(i),
        FieldValue::Bool(b) => json!(b),
        FieldValue::List(items) => json!(items),
        other => json!(other.to_text()),
    }
}

/// Spreadsheets execute cells starting with `=`, `+`, `-`, `@`, tab or CR as formulas.
fn spreadsheet_safe(text: String) -> String {
    let looks_numeric = text.parse::<f64>().is_ok();
    if !looks_numeric && text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text
    }
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
    }
}
