//! ODS workbooks (LibreOffice, OpenOffice), read as a stream of `content.xml`.
//!
//! A row or cell may say it repeats (`number-rows-repeated`, `number-columns-repeated`):
//! LibreOffice writes a million empty rows as one element. Repeats of empty rows and cells
//! are counted, never expanded; repeats of a value are expanded only under the header.

use quick_xml::events::{BytesStart, Event};

use super::assemble::{Assembler, MAX_COLUMNS, ROW_TEXT_LIMIT, too_much_text};
use super::parts::{self, Bounded};
use super::{Item, Value};
use crate::error::{Diagnostic, Error, Result};

/// The most rows a sheet has (as in XLSX).
const MAX_ROWS: u64 = 1 << 20;
/// The most text a repeated row may add up to over its copies.
const REPEATED_TEXT_LIMIT: usize = 256 << 20;

pub(super) fn read(
    path: &std::path::Path,
    display: &str,
    wanted: Option<&str>,
    each: &mut dyn FnMut(Item) -> Result<()>,
) -> Result<()> {
    let bad = |e: &dyn std::fmt::Display| super::unreadable(display, e);
    let mut zip = parts::open_zip(path, display)?;
    parts::check_whole_parts(&mut zip, display)?;
    let names = sheet_names(&mut zip, display)?;
    let name = super::choose_sheet(display, &names, wanted)?;
    let content = zip.by_name("content.xml").map_err(|e| bad(&e))?;
    let mut reader = quick_xml::Reader::from_reader(std::io::BufReader::new(Bounded::new(content)));
    reader.config_mut().check_end_names = false;
    let place = format!("{display}:{name}");
    let mut assembler = Assembler::new(display, Some(name.clone()), each);
    let mut buf = Vec::new();
    let mut in_sheet = false;
    let (mut row, mut column): (u64, u64) = (0, 0);
    let mut row_repeat = 1u64;
    // The values of the open row, by column: handed on when the row ends, once per repeat.
    let mut row_cells: Vec<(u64, Value)> = Vec::new();
    // The open cell: its value so far, how often it repeats, its paragraphs' text.
    let mut cell: Option<(CellStart, String)> = None;
    let mut paragraphs = 0usize;
    loop {
        let event = reader.read_event_into(&mut buf).map_err(|e| bad(&e))?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                match e.local_name().as_ref() {
                    b"table" if parts::attribute(e, b"name").as_deref() == Some(name.as_str()) => {
                        in_sheet = true;
                    }
                    b"table-row" if in_sheet => {
                        row_repeat = repeat(e, b"number-rows-repeated");
                        column = 0;
                        row_cells.clear();
                        if empty {
                            row = row.saturating_add(row_repeat);
                        }
                    }
                    b"table-cell" | b"covered-table-cell" if in_sheet => {
                        let start = CellStart::of(e);
                        if empty {
                            gather(&mut row_cells, &mut column, start, String::new())
                                .map_err(|()| too_much_text(&place, row))?;
                        } else {
                            cell = Some((start, String::new()));
                            paragraphs = 0;
                        }
                    }
                    b"p" | b"h" if cell.is_some() => {
                        if let Some((_, text)) = cell.as_mut() {
                            if paragraphs > 0 {
                                text.push('\n');
                            }
                        }
                        paragraphs += 1;
                    }
                    b"s" if cell.is_some() => {
                        let spaces = repeat(e, b"c").min(1 << 16) as usize;
                        push_text(&mut cell, &" ".repeat(spaces))
                            .map_err(|()| too_much_text(&place, row))?;
                    }
                    b"tab" if cell.is_some() => {
                        push_text(&mut cell, "\t").map_err(|()| too_much_text(&place, row))?
                    }
                    b"line-break" if cell.is_some() => {
                        push_text(&mut cell, "\n").map_err(|()| too_much_text(&place, row))?
                    }
                    _ => {}
                }
            }
            Event::Text(t) if cell.is_some() => {
                let text = t.decode().map_err(|e| bad(&e))?;
                push_text(&mut cell, &text).map_err(|()| too_much_text(&place, row))?;
            }
            Event::GeneralRef(r) if cell.is_some() => {
                let name = r.decode().map_err(|e| bad(&e))?;
                let text = match name.as_ref() {
                    "amp" => "&".to_string(),
                    "lt" => "<".to_string(),
                    "gt" => ">".to_string(),
                    "quot" => "\"".to_string(),
                    "apos" => "'".to_string(),
                    other => r
                        .resolve_char_ref()
                        .ok()
                        .flatten()
                        .map(String::from)
                        .unwrap_or_else(|| format!("&{other};")),
                };
                push_text(&mut cell, &text).map_err(|()| too_much_text(&place, row))?;
            }
            Event::End(e) => match e.local_name().as_ref() {
                b"table" if in_sheet => break,
                b"table-row" if in_sheet => {
                    // LibreOffice writes equal rows in a row once, with a repeat count.
                    let copies = row_repeat.min(MAX_ROWS.saturating_sub(row));
                    let text: usize = row_cells.iter().map(|(_, v)| text_len(v)).sum();
                    if !row_cells.is_empty()
                        && (copies as usize).saturating_mul(text) > REPEATED_TEXT_LIMIT
                    {
                        return Err(Error::one(
                            Diagnostic::new(
                                &place,
                                format!("row {} repeats {copies} times with {text} bytes of text, more than any sheet of cases holds", row + 1),
                            )
                            .hint("open the sheet in LibreOffice, delete the repeated rows and save it again"),
                        ));
                    }
                    if !row_cells.is_empty() {
                        for copy in 0..copies {
                            for (c, value) in &row_cells {
                                assembler.cell((row + copy) as u32, *c as usize, value.clone())?;
                            }
                        }
                    }
                    row_cells.clear();
                    row = row.saturating_add(row_repeat);
                }
                b"table-cell" | b"covered-table-cell" if in_sheet => {
                    if let Some((start, text)) = cell.take() {
                        gather(&mut row_cells, &mut column, start, text)
                            .map_err(|()| too_much_text(&place, row))?;
                    }
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    assembler.finish()
}

/// A cell's attributes: what it holds besides its text.
struct CellStart {
    repeat: u64,
    kind: Option<String>,
    value: Option<String>,
    formula: Option<String>,
}

impl CellStart {
    fn of(e: &BytesStart<'_>) -> Self {
        let kind = parts::attribute(e, b"value-type");
        let value = match kind.as_deref() {
            Some("date") => parts::attribute(e, b"date-value"),
            Some("boolean") => parts::attribute(e, b"boolean-value"),
            Some("time") => parts::attribute(e, b"time-value"),
            _ => parts::attribute(e, b"value"),
        };
        CellStart {
            repeat: repeat(e, b"number-columns-repeated"),
            kind,
            value,
            formula: parts::attribute(e, b"formula"),
        }
    }

    fn value(self, text: String) -> Value {
        if let Some(f) = self.formula {
            // `of:=SUM([.A1:.A2])`: the namespace prefix and `=` are LibreOffice's notation.
            let f = f.split_once(":=").map_or(f.as_str(), |(_, rest)| rest);
            return Value::Formula(f.trim_start_matches('=').to_string());
        }
        match (self.kind.as_deref(), self.value) {
            (Some("float" | "percentage" | "currency"), Some(v)) => {
                v.parse().map(Value::Number).unwrap_or(Value::Text(text))
            }
            (Some("boolean"), Some(v)) => Value::Bool(v == "true"),
            (Some("date"), Some(v)) => match chrono::NaiveDate::parse_from_str(&v, "%Y-%m-%d") {
                Ok(d) => Value::Date(d),
                Err(_) => match chrono::NaiveDateTime::parse_from_str(&v, "%Y-%m-%dT%H:%M:%S") {
                    Ok(dt) if dt.time() == chrono::NaiveTime::MIN => Value::Date(dt.date()),
                    Ok(dt) => Value::Text(dt.format("%Y-%m-%dT%H:%M:%S").to_string()),
                    Err(_) => Value::Text(v),
                },
            },
            _ if text.is_empty() => Value::Empty,
            _ => match Value::text_hiding_formula(&text) {
                Some(f) => Value::Formula(f[1..].to_string()),
                None => Value::Text(text),
            },
        }
    }
}

/// Notes a finished cell's value in its row, once per column it repeats over. An empty cell
/// only moves the column on; a value repeated past the last column stops there.
/// `Err` when the row's text passes `ROW_TEXT_LIMIT`.
fn gather(
    row_cells: &mut Vec<(u64, Value)>,
    column: &mut u64,
    start: CellStart,
    text: String,
) -> std::result::Result<(), ()> {
    let repeat = start.repeat;
    let value = start.value(text);
    if !value.is_empty() {
        let columns = repeat.min((MAX_COLUMNS as u64).saturating_sub(*column));
        let had: usize = row_cells.iter().map(|(_, v)| text_len(v)).sum();
        if had.saturating_add((columns as usize).saturating_mul(text_len(&value))) > ROW_TEXT_LIMIT
        {
            return Err(());
        }
        for c in 0..columns {
            row_cells.push((*column + c, value.clone()));
        }
    }
    *column = column.saturating_add(repeat);
    Ok(())
}

fn text_len(value: &Value) -> usize {
    match value {
        Value::Text(t) | Value::Formula(t) | Value::Error(t) => t.len(),
        _ => 8,
    }
}

/// Adds text to the open cell; `Err` past `ROW_TEXT_LIMIT`.
fn push_text(cell: &mut Option<(CellStart, String)>, text: &str) -> std::result::Result<(), ()> {
    if let Some((_, t)) = cell.as_mut() {
        if t.len() + text.len() > ROW_TEXT_LIMIT {
            return Err(());
        }
        t.push_str(text);
    }
    Ok(())
}

fn repeat(e: &BytesStart<'_>, key: &[u8]) -> u64 {
    parts::attribute(e, key)
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(1)
        .max(1)
}

/// The names of the workbook's sheets, in order.
fn sheet_names(zip: &mut parts::Zip, display: &str) -> Result<Vec<String>> {
    let bad = |e: &dyn std::fmt::Display| super::unreadable(display, e);
    let content = zip.by_name("content.xml").map_err(|e| bad(&e))?;
    let mut reader = quick_xml::Reader::from_reader(std::io::BufReader::new(Bounded::new(content)));
    let mut names = Vec::new();
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf).map_err(|e| bad(&e))? {
            Event::Start(e) | Event::Empty(e) if e.local_name().as_ref() == b"table" => {
                if let Some(n) = parts::attribute(&e, b"name") {
                    names.push(n);
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    Ok(names)
}
