//! XLSX and XLSM workbooks, read a cell at a time with calamine's cell reader.
//!
//! Before calamine opens the file, its parts are checked (`parts`), and the chosen sheet's
//! formula cells are found by streaming its XML: calamine's own formula reader expands a
//! shared formula over its whole range, which a small hostile file makes any size.

use std::path::Path;

use calamine::{Data, DataRef};
use chrono::NaiveDate;

use super::assemble::Assembler;
use super::{Item, Value, parts};
use crate::error::{Diagnostic, Error, Result};

pub(super) fn read(
    path: &Path,
    display: &str,
    wanted: Option<&str>,
    each: &mut dyn FnMut(Item) -> Result<()>,
) -> Result<()> {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xlsb"))
    {
        return Err(Error::one(
            Diagnostic::new(display, "binary Excel workbooks (.xlsb) are not read")
                .hint("save the sheet as .xlsx (Excel Workbook) or CSV UTF-8 and import that file"),
        ));
    }
    let mut zip = parts::open_zip(path, display)?;
    parts::check_whole_parts(&mut zip, display)?;
    let sheets = parts::xlsx_sheets(&mut zip, display)?;
    let names: Vec<String> = sheets.iter().map(|(n, _)| n.clone()).collect();
    let name = super::choose_sheet(display, &names, wanted)?;
    let part = &sheets
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a chosen sheet is one of them")
        .1;
    let formulas = parts::xlsx_formulas(&mut zip, part, display, &name)?;
    drop(zip);
    guarded(display, || {
        let mut workbook: calamine::Xlsx<_> =
            calamine::open_workbook(path).map_err(|e| super::unreadable(display, &e))?;
        let mut cells = workbook
            .worksheet_cells_reader(&name)
            .map_err(|e| super::unreadable(display, &e))?;
        let mut assembler = Assembler::new(display, Some(name.clone()), each);
        while let Some(cell) = cells
            .next_cell()
            .map_err(|e| super::unreadable(display, &e))?
        {
            let (row, column) = cell.get_position();
            let value = match formulas.get(&(row, column)) {
                Some(f) => Value::Formula(f.clone()),
                None => data_ref_value(cell.get_value()),
            };
            assembler.cell(row, column as usize, value)?;
        }
        assembler.finish()
    })
}

/// Runs a reader of a foreign format, turning a panic in it into an error about the file:
/// a hostile workbook must give a message, never a crash. The default panic message is kept
/// off the terminal while it runs.
pub(super) fn guarded<T>(display: &str, read: impl FnOnce() -> Result<T>) -> Result<T> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
    std::panic::set_hook(hook);
    result.unwrap_or_else(|_| {
        Err(super::unreadable(
            display,
            &"its reader failed on the file's contents",
        ))
    })
}

fn text_value(s: String) -> Value {
    match Value::text_hiding_formula(&s) {
        Some(f) => Value::Formula(f[1..].to_string()),
        None => Value::Text(s),
    }
}

fn date_time(dt: Option<chrono::NaiveDateTime>, serial: f64) -> Value {
    match dt {
        Some(dt) if dt.time() == chrono::NaiveTime::MIN => Value::Date(dt.date()),
        Some(dt) => Value::Text(dt.format("%Y-%m-%dT%H:%M:%S").to_string()),
        None => Value::Number(serial),
    }
}

fn iso_date(s: String) -> Value {
    match NaiveDate::parse_from_str(&s, "%Y-%m-%d") {
        Ok(d) => Value::Date(d),
        Err(_) => Value::Text(s),
    }
}

fn data_ref_value(cell: &DataRef<'_>) -> Value {
    match cell {
        DataRef::Empty => Value::Empty,
        DataRef::String(s) => text_value(s.clone()),
        DataRef::SharedString(s) => text_value((*s).to_string()),
        DataRef::Int(i) => Value::Number(*i as f64),
        DataRef::Float(f) => Value::Number(*f),
        DataRef::Bool(b) => Value::Bool(*b),
        DataRef::DateTime(d) => date_time(d.as_datetime(), d.as_f64()),
        DataRef::DateTimeIso(s) => iso_date(s.clone()),
        DataRef::DurationIso(s) => Value::Text(s.clone()),
        DataRef::Error(e) => Value::Error(format!("{e:?}")),
    }
}

/// A cell of a range calamine read whole (old `.xls` files).
pub(super) fn data_value(cell: &Data) -> Value {
    match cell {
        Data::Empty => Value::Empty,
        Data::String(s) => text_value(s.clone()),
        Data::Int(i) => Value::Number(*i as f64),
        Data::Float(f) => Value::Number(*f),
        Data::Bool(b) => Value::Bool(*b),
        Data::DateTime(d) => date_time(d.as_datetime(), d.as_f64()),
        Data::DateTimeIso(s) => iso_date(s.clone()),
        Data::DurationIso(s) => Value::Text(s.clone()),
        Data::Error(e) => Value::Error(format!("{e:?}")),
    }
}
