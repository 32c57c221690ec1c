//! Cells, as a workbook reader meets them, gathered into rows one at a time.
//!
//! The first row holding a value is the header; it fixes the width. Every later row is handed
//! on when the next one starts, with the cells under the header only: a value further right
//! is noted as a stray column (a problem to report), never stored, so a cell at `XFD1048576`
//! costs nothing. Rows with no value, and the gaps a workbook skips, become `Item::Empty`.

use super::{At, Item, Row, Table, Value};
use crate::error::{Diagnostic, Error, Result};

/// The columns a spreadsheet has (A to XFD).
pub(crate) const MAX_COLUMNS: usize = 16_384;

/// The most text one row may hold. A cell can repeat a shared string, so a small file can
/// make a row of any size; no row of a case needs more than this.
pub(crate) const ROW_TEXT_LIMIT: usize = 16 << 20;

/// Stray columns noted per row: one is enough to report, a few say more.
const STRAYS_PER_ROW: usize = 4;

pub(super) struct Assembler<'e> {
    file: String,
    sheet: Option<String>,
    each: &'e mut dyn FnMut(Item) -> Result<()>,
    /// The header's width, once it is read.
    width: Option<usize>,
    /// The row being gathered (0-based) and its cells.
    row: Option<u32>,
    cells: Vec<Value>,
    stray: Vec<usize>,
    row_text: usize,
    /// The row after the last one handed on (0-based): rows between it and the next are empty.
    next_row: Option<u32>,
}

impl<'e> Assembler<'e> {
    pub(super) fn new(
        file: &str,
        sheet: Option<String>,
        each: &'e mut dyn FnMut(Item) -> Result<()>,
    ) -> Self {
        Assembler {
            file: file.to_string(),
            sheet,
            each,
            width: None,
            row: None,
            cells: Vec::new(),
            stray: Vec::new(),
            row_text: 0,
            next_row: None,
        }
    }

    /// One cell at 0-based `row` and `column`. Cells of one row come together.
    pub(super) fn cell(&mut self, row: u32, column: usize, value: Value) -> Result<()> {
        if self.row != Some(row) {
            self.end_row()?;
            self.row = Some(row);
        }
        if value.is_empty() {
            return Ok(());
        }
        if column >= MAX_COLUMNS {
            return Err(Error::one(
                Diagnostic::new(
                    self.place(),
                    format!(
                        "row {} has a cell beyond column XFD, the last a spreadsheet has",
                        row as usize + 1
                    ),
                )
                .hint("open the sheet in a spreadsheet program and save it again"),
            ));
        }
        match self.width {
            Some(width) if column >= width => {
                if self.stray.len() < STRAYS_PER_ROW {
                    self.stray.push(column);
                }
            }
            _ => {
                if let Value::Text(t) = &value {
                    self.row_text += t.len();
                    if self.row_text > ROW_TEXT_LIMIT {
                        return Err(too_much_text(&self.place(), row as u64));
                    }
                }
                if self.cells.len() <= column {
                    self.cells.resize(column + 1, Value::Empty);
                }
                self.cells[column] = value;
            }
        }
        Ok(())
    }

    /// Ends the sheet: hands on the last row.
    pub(super) fn finish(mut self) -> Result<()> {
        self.end_row()?;
        if self.width.is_none() {
            // A sheet with nothing in it: an empty header, and no rows.
            (self.each)(Item::Header(Table {
                file: self.file.clone(),
                sheet: self.sheet.clone(),
                header: Vec::new(),
                header_row: 1,
            }))?;
        }
        Ok(())
    }

    fn place(&self) -> String {
        match &self.sheet {
            Some(s) => format!("{}:{s}", self.file),
            None => self.file.clone(),
        }
    }

    fn end_row(&mut self) -> Result<()> {
        let Some(row) = self.row.take() else {
            return Ok(());
        };
        let cells = std::mem::take(&mut self.cells);
        let stray = std::mem::take(&mut self.stray);
        self.row_text = 0;
        let filled = !stray.is_empty() || cells.iter().any(|c| !c.is_empty());
        if self.width.is_none() {
            if !filled {
                return Ok(()); // above the header
            }
            self.width = Some(cells.len());
            self.next_row = Some(row.saturating_add(1));
            return (self.each)(Item::Header(Table {
                file: self.file.clone(),
                sheet: self.sheet.clone(),
                header: cells.iter().map(Value::text).collect(),
                header_row: row as usize + 1,
            }));
        }
        if !filled {
            return Ok(()); // counted as part of the gap before the next filled row
        }
        let expected = self.next_row.unwrap_or(row);
        if row > expected {
            (self.each)(Item::Empty {
                first: At {
                    row: expected as usize + 1,
                    column: 1,
                },
                count: (row - expected) as usize,
            })?;
        }
        self.next_row = Some(row.saturating_add(1).max(expected));
        (self.each)(Item::Row(Row {
            at: At {
                row: row as usize + 1,
                column: 1,
            },
            cells,
            stray,
        }))
    }
}

/// The error for a row with more than `ROW_TEXT_LIMIT` of text (`row` 0-based).
pub(super) fn too_much_text(place: &str, row: u64) -> Error {
    Error::one(
        Diagnostic::new(
            place,
            format!(
                "row {} holds more than {} MiB of text, more than any case needs",
                row + 1,
                ROW_TEXT_LIMIT >> 20
            ),
        )
        .hint("check the row in a spreadsheet program: a long text may have been pasted into many cells"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gather(cells: &[(u32, usize, &str)]) -> Vec<Item> {
        let mut items = Vec::new();
        let mut each = |i: Item| {
            items.push(i);
            Ok(())
        };
        let mut a = Assembler::new("s.xlsx", Some("S".into()), &mut each);
        for (r, c, v) in cells {
            a.cell(*r, *c, Value::Text(v.to_string())).unwrap();
        }
        a.finish().unwrap();
        items
    }

    #[test]
    fn a_far_corner_cell_is_a_stray_column_not_a_rectangle() {
        let items = gather(&[(0, 0, "id"), (1, 0, "c-1"), (1_048_575, 16_383, "x")]);
        assert!(matches!(&items[0], Item::Header(t) if t.header == ["id"]));
        assert!(matches!(&items[1], Item::Row(r) if r.at.row == 2 && r.cells.len() == 1));
        assert!(
            matches!(&items[2], Item::Empty { first, count } if first.row == 3 && *count == 1_048_573)
        );
        assert!(
            matches!(&items[3], Item::Row(r) if r.at.row == 1_048_576 && r.stray == [16_383] && r.cells.is_empty())
        );
    }

    #[test]
    fn blank_rows_above_the_header_and_whitespace_rows_are_skipped() {
        let items = gather(&[(2, 1, "  "), (3, 1, "id"), (4, 1, " \t "), (5, 1, "c-1")]);
        assert!(
            matches!(&items[0], Item::Header(t) if t.header_row == 4 && t.header == ["", "id"])
        );
        assert!(matches!(&items[1], Item::Empty { first, count } if first.row == 5 && *count == 1));
        assert!(matches!(&items[2], Item::Row(r) if r.at.row == 6));
        assert_eq!(items.len(), 3);
    }
}
