//! `casebook import --template FILE`: an empty sheet made from the case schema, ready to fill
//! in and import. `.csv` gives the header row; `.xlsx` adds drop-down lists of the allowed
//! values, a date format, and a second sheet describing every column.

use std::path::Path;

use rust_xlsxwriter::{DataValidation, DataValidationRule, Format, Workbook, XlsxError};

use super::columns::{OTHER_COLUMNS, Target};
use crate::config::{CaseSchema, Config, FieldDef, FieldType};
use crate::error::{Diagnostic, Error, Result};

/// Rows of the `.xlsx` template that carry drop-down lists and formats.
const TEMPLATE_ROWS: u32 = 20_000;

/// The columns after the schema's fields, with what each holds: the ones import reads.
fn written_columns() -> impl Iterator<Item = (&'static str, &'static str)> {
    OTHER_COLUMNS
        .iter()
        .filter(|(_, target, _)| *target != Target::Ignored)
        .map(|(name, _, about)| (*name, *about))
}

/// Writes the template to `out` and says what it wrote.
pub fn template(root: &Path, out: &Path) -> Result<String> {
    let config = Config::load(root)?;
    let schema = super::case_schema(&config)?;
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let bytes = match ext.as_deref() {
        Some("csv") => csv(schema),
        Some("xlsx") => {
            xlsx(schema).map_err(|e| Error::io(out, std::io::Error::other(e.to_string())))?
        }
        _ => {
            return Err(Error::one(
                Diagnostic::new(out, "a template is written as .csv or .xlsx")
                    .hint("name the file cases.xlsx or cases.csv"),
            ));
        }
    };
    crate::output::save_atomically(out, &bytes).map_err(|e| Error::io(out, e))?;
    Ok(format!(
        "wrote {}: one column per case field ({}); fill in one row per case, then run casebook import {}",
        out.display(),
        schema.fields.len(),
        out.display()
    ))
}

/// The header of the template: the field names, as the site's `data/cases.csv` has them.
fn header(schema: &CaseSchema) -> Vec<&str> {
    schema
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .chain(written_columns().map(|(n, _)| n))
        .collect()
}

fn csv(schema: &CaseSchema) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::from("\u{feff}".as_bytes()));
    w.write_record(header(schema)).expect("writing to memory");
    w.into_inner().expect("writing to memory")
}

fn describe(field: &FieldDef) -> String {
    let mut text = match field.kind {
        FieldType::Enum => format!("One of: {}.", field.values.join(", ")),
        FieldType::List => format!("Any of, separated by ;: {}.", field.values.join(", ")),
        FieldType::Date => "A date, 2012-05-14.".into(),
        FieldType::Integer => "A whole number.".into(),
        FieldType::Boolean => "true or false.".into(),
        FieldType::String => "Text.".into(),
    };
    if field.required {
        text.push_str(" Required.");
    }
    text
}

fn xlsx(schema: &CaseSchema) -> std::result::Result<Vec<u8>, XlsxError> {
    let mut book = Workbook::new();
    let bold = Format::new().set_bold();
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let text = Format::new().set_num_format("@");
    let cases = book.add_worksheet();
    cases.set_name("Cases")?;
    let columns = header(schema);
    for (j, name) in columns.iter().enumerate() {
        let col = j as u16;
        cases.write_string_with_format(0, col, *name, &bold)?;
        cases.set_column_width(col, (name.chars().count() as f64 + 4.0).max(14.0))?;
        let Some(field) = schema.fields.get(j) else {
            cases.set_column_format(col, &text)?;
            continue;
        };
        let tip: String = describe(field).chars().take(250).collect();
        let mut rule = match field.kind {
            FieldType::Enum if field.values.join(",").chars().count() <= 255 => {
                DataValidation::new().allow_list_strings(&field.values)?
            }
            FieldType::Boolean => DataValidation::new().allow_list_strings(&["true", "false"])?,
            FieldType::Integer => DataValidation::new()
                .allow_whole_number(DataValidationRule::Between(i32::MIN, i32::MAX))
                .ignore_blank(true),
            _ => DataValidation::new().allow_any_value(),
        };
        rule = rule.set_input_message(tip)?;
        cases.add_data_validation(1, col, TEMPLATE_ROWS, col, &rule)?;
        match field.kind {
            FieldType::Date => cases.set_column_format(col, &date)?,
            // Ids such as 0012 and values such as 20-29 stay text, not numbers or dates.
            FieldType::String | FieldType::Enum | FieldType::List => {
                cases.set_column_format(col, &text)?
            }
            _ => cases,
        };
    }
    cases.set_freeze_panes(1, 0)?;

    let fields = book.add_worksheet();
    fields.set_name("Fields")?;
    for (j, title) in [
        "Column",
        "Label",
        "Type",
        "Required",
        "What to write",
        "Description",
    ]
    .iter()
    .enumerate()
    {
        fields.write_string_with_format(0, j as u16, *title, &bold)?;
    }
    let mut row = 1;
    for field in &schema.fields {
        fields.write_string(row, 0, &field.name)?;
        fields.write_string(row, 1, &field.label)?;
        fields.write_string(row, 2, format!("{:?}", field.kind).to_lowercase())?;
        fields.write_string(row, 3, if field.required { "yes" } else { "no" })?;
        fields.write_string(row, 4, describe(field))?;
        fields.write_string(row, 5, field.description.as_deref().unwrap_or(""))?;
        row += 1;
    }
    for (name, about) in written_columns() {
        fields.write_string(row, 0, name)?;
        fields.write_string(row, 4, about)?;
        row += 1;
    }
    for (j, width) in [20.0, 24.0, 10.0, 10.0, 60.0, 60.0].iter().enumerate() {
        fields.set_column_width(j as u16, *width)?;
    }
    book.save_to_buffer()
}
