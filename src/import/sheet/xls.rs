//! Old Excel workbooks (`.xls`, BIFF8): at most 65,536 rows and 256 columns.
//!
//! calamine reads every sheet of such a file whole, as a rectangle from the first used cell
//! to the last: one cell in a far corner asks for 16 million cells, twice (values and
//! formulas). So the file's cell records are counted first, and a sheet whose rectangle
//! passes `CELL_LIMIT` is refused before calamine is given the file.

use std::io::Read;
use std::path::Path;

use calamine::{Data, Reader};

use super::assemble::Assembler;
use super::workbook::{data_value, guarded};
use super::{Item, Value};
use crate::error::{Diagnostic, Error, Result};

/// The most cells a sheet's rectangle may hold: about 60 MiB once read.
const CELL_LIMIT: u64 = 1 << 20;

pub(super) fn read(
    path: &Path,
    display: &str,
    wanted: Option<&str>,
    each: &mut dyn FnMut(Item) -> Result<()>,
) -> Result<()> {
    check_rectangles(path, display)?;
    guarded(display, || {
        let mut workbook: calamine::Xls<_> =
            calamine::open_workbook(path).map_err(|e| super::unreadable(display, &e))?;
        let name = super::choose_sheet(display, &workbook.sheet_names(), wanted)?;
        let range = workbook
            .worksheet_range(&name)
            .map_err(|e| super::unreadable(display, &e))?;
        let formulas = workbook.worksheet_formula(&name).ok();
        let mut assembler = Assembler::new(display, Some(name.clone()), each);
        for (row, column, cell) in range.used_cells() {
            let (row, column) = (
                row as u32 + range.start().map_or(0, |s| s.0),
                column as u32 + range.start().map_or(0, |s| s.1),
            );
            let formula = formulas
                .as_ref()
                .and_then(|f| f.get_value((row, column)))
                .filter(|f| !f.is_empty());
            let value = match formula {
                Some(f) => Value::Formula(f.clone()),
                None => data_value(cell),
            };
            assembler.cell(row, column as usize, value)?;
        }
        // Formula cells without a stored value are not among the used cells.
        if let Some(f) = &formulas {
            if let Some((row, column, text)) = f.used_cells().find(|(r, c, _)| {
                let (r, c) = (
                    *r as u32 + f.start().map_or(0, |s| s.0),
                    *c as u32 + f.start().map_or(0, |s| s.1),
                );
                range.get_value((r, c)).is_none_or(|v| *v == Data::Empty)
            }) {
                let start = f.start().unwrap_or((0, 0));
                return Err(Error::one(
                    Diagnostic::new(
                        format!(
                            "{display}:{name}:{}{}",
                            super::column_letters(column + start.1 as usize + 1),
                            row + start.0 as usize + 1
                        ),
                        format!("a formula cell (={text}): imports take values only"),
                    )
                    .hint(
                        "copy the column and paste it back as values only (Paste Special > Values)",
                    ),
                ));
            }
        }
        assembler.finish()
    })
}

/// Refuses a file with a sheet whose rectangle of cells passes `CELL_LIMIT`.
fn check_rectangles(path: &Path, display: &str) -> Result<()> {
    let bad = |e: &dyn std::fmt::Display| super::unreadable(display, e);
    let mut file = cfb::open(path).map_err(|e| bad(&e))?;
    let stream = ["/Workbook", "/Book"]
        .into_iter()
        .find(|s| file.is_stream(s))
        .ok_or_else(|| bad(&"it holds no workbook stream"))?;
    let mut bytes = Vec::new();
    file.open_stream(stream)
        .map_err(|e| bad(&e))?
        .read_to_end(&mut bytes)
        .map_err(|e| bad(&e))?;
    let mut sheet = 0usize;
    let mut bounds: Option<(u16, u16, u16, u16)> = None;
    let mut at = 0usize;
    while at + 4 <= bytes.len() {
        let kind = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let len = u16::from_le_bytes([bytes[at + 2], bytes[at + 3]]) as usize;
        let data = &bytes[at + 4..(at + 4 + len).min(bytes.len())];
        at += 4 + len;
        let cells: Option<(u16, u16, u16)> = match kind {
            // BOF: a new substream (the workbook globals, then each sheet)
            0x0809 => {
                sheet += 1;
                bounds = None;
                None
            }
            // Number, Label, BoolErr, Rk, LabelSst, Formula: row, column
            0x0203 | 0x0204 | 0x0205 | 0x027E | 0x00FD | 0x0006 if data.len() >= 4 => {
                let row = u16::from_le_bytes([data[0], data[1]]);
                let col = u16::from_le_bytes([data[2], data[3]]);
                Some((row, col, col))
            }
            // MulRk: row, first column, ..., last column
            0x00BD if data.len() >= 6 => {
                let row = u16::from_le_bytes([data[0], data[1]]);
                let first = u16::from_le_bytes([data[2], data[3]]);
                let last = u16::from_le_bytes([data[data.len() - 2], data[data.len() - 1]]);
                Some((row, first.min(last), last.max(first)))
            }
            _ => None,
        };
        if let Some((row, first, last)) = cells {
            let b = bounds.get_or_insert((row, row, first, last));
            *b = (b.0.min(row), b.1.max(row), b.2.min(first), b.3.max(last));
            let (rows, columns) = (
                u32::from(b.1) - u32::from(b.0) + 1,
                u32::from(b.3) - u32::from(b.2) + 1,
            );
            let cells = u64::from(rows) * u64::from(columns);
            if cells > CELL_LIMIT {
                return Err(Error::one(
                    Diagnostic::new(
                        display,
                        format!(
                            "sheet {} of this .xls file spans {} rows and {} columns, more than casebook reads from an old .xls file ({} cells)",
                            sheet.saturating_sub(1),
                            rows,
                            columns,
                            CELL_LIMIT
                        ),
                    )
                    .hint("save the sheet as .xlsx or CSV UTF-8 and import that file"),
                ));
            }
        }
    }
    Ok(())
}
