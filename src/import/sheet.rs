//! Reading a spreadsheet into plain rows of cells, each knowing where it was written.
//!
//! CSV (any of `,` `;` tab `|`, UTF-8 with or without a byte-order mark, quoted newlines)
//! is read with the `csv` crate; XLSX, XLS and ODS with `calamine`. Both end as the same
//! `Table`, so everything after this module is blind to the format.

use std::path::Path;

use calamine::{Data, Reader};
use chrono::NaiveDate;

use crate::error::{Diagnostic, Error, Result};

/// One cell's value as the spreadsheet typed it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Empty,
    Text(String),
    Number(f64),
    Bool(bool),
    Date(NaiveDate),
    /// A formula: its text. Imports take values only.
    Formula(String),
    /// `#N/A`, `#REF!` and the like.
    Error(String),
}

impl Value {
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Value::Empty => true,
            Value::Text(t) => t.trim().is_empty(),
            _ => false,
        }
    }

    /// The cell as a person reads it.
    pub(crate) fn text(&self) -> String {
        match self {
            Value::Empty => String::new(),
            // Spreadsheets end lines inside a cell with CRLF; case files use LF.
            Value::Text(t) => t.trim().replace("\r\n", "\n"),
            Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => format!("{}", *n as i64),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Date(d) => d.format("%Y-%m-%d").to_string(),
            Value::Formula(f) => format!("={f}"),
            Value::Error(e) => e.clone(),
        }
    }
}

/// Where a cell was written: `cases.csv:17:3` or `cases.xlsx:Sheet1:C17`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct At {
    /// 1-based row (for CSV, the line on which the record starts).
    pub(crate) row: usize,
    /// 1-based column.
    pub(crate) column: usize,
}

#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// The row's position (column 1).
    pub(crate) at: At,
    pub(crate) cells: Vec<Value>,
}

/// One sheet: its header and the rows below it.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    /// The file as given, for messages.
    pub(crate) file: String,
    /// The sheet's name (workbooks only).
    pub(crate) sheet: Option<String>,
    pub(crate) header: Vec<String>,
    pub(crate) header_row: usize,
    pub(crate) rows: Vec<Row>,
}

impl Table {
    /// A diagnostic located at a cell: `file:Sheet:C17` for workbooks, `file:17:3` for CSV.
    pub(crate) fn at(&self, at: At, message: impl Into<String>) -> Diagnostic {
        match &self.sheet {
            Some(sheet) => Diagnostic::new(
                format!(
                    "{}:{sheet}:{}{}",
                    self.file,
                    column_letters(at.column),
                    at.row
                ),
                message,
            ),
            None => Diagnostic::new(&self.file, message).at(at.row, at.column),
        }
    }

    /// A diagnostic about a whole column, located at its header cell.
    pub(crate) fn at_header(&self, column: usize, message: impl Into<String>) -> Diagnostic {
        self.at(
            At {
                row: self.header_row,
                column,
            },
            message,
        )
    }
}

/// `1` → `A`, `27` → `AA`.
pub(crate) fn column_letters(mut column: usize) -> String {
    let mut letters = Vec::new();
    while column > 0 {
        let rem = (column - 1) % 26;
        letters.push(b'A' + rem as u8);
        column = (column - 1) / 26;
    }
    letters.reverse();
    String::from_utf8(letters).unwrap_or_default()
}

/// Which kind of file a path names, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Csv,
    Workbook,
}

pub(crate) fn kind(path: &Path) -> Option<Kind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "csv" | "tsv" | "txt" => Some(Kind::Csv),
        "xlsx" | "xlsm" | "xlsb" | "xls" | "ods" => Some(Kind::Workbook),
        _ => None,
    }
}

/// Reads the sheet `sheet` (default: the first) of `path`. `display` names it in messages;
/// `delimiter` is a CSV file's, when it is not to be guessed.
pub(crate) fn read(
    path: &Path,
    display: &str,
    sheet: Option<&str>,
    delimiter: Option<u8>,
) -> Result<Table> {
    match kind(path) {
        Some(Kind::Csv) => {
            if let Some(name) = sheet {
                return Err(Error::one(
                    Diagnostic::new(display, format!("--sheet {name}: a CSV file has no sheets"))
                        .hint("leave out --sheet for CSV files"),
                ));
            }
            let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
            read_csv(&bytes, display, delimiter)
        }
        Some(Kind::Workbook) => read_workbook(path, display, sheet),
        None => Err(Error::one(
            Diagnostic::new(display, "not a spreadsheet casebook can read")
                .hint("save it as .csv, .xlsx or .ods"),
        )),
    }
}

/// The delimiter of a CSV file: the candidate that splits the header line most often.
fn sniff_delimiter(text: &str) -> u8 {
    let first = text.lines().next().unwrap_or("");
    [b',', b';', b'\t', b'|']
        .into_iter()
        .max_by_key(|d| first.bytes().filter(|b| b == d).count())
        .filter(|d| first.bytes().any(|b| b == *d))
        .unwrap_or(b',')
}

pub(crate) fn read_csv(bytes: &[u8], display: &str, delimiter: Option<u8>) -> Result<Table> {
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        Error::one(
            Diagnostic::new(display, "the file is not UTF-8 text")
                .at(line, 0)
                .hint("save the sheet as \"CSV UTF-8\" (in Excel: File > Save As > CSV UTF-8)"),
        )
    })?;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter.unwrap_or_else(|| sniff_delimiter(text)))
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut header = None;
    let mut header_row = 1;
    let mut rows = Vec::new();
    let mut record = csv::StringRecord::new();
    let (mut line, mut counted) = (1, 0);
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line() as usize);
                return Err(Error::one(
                    Diagnostic::new(display, format!("unreadable CSV: {e}")).at(line, 0),
                ));
            }
        }
        // The csv crate does not count newlines inside quotes: count them here, once.
        let mut start = record.position().map_or(0, |p| p.byte() as usize);
        // After a CR the record may be said to start at the LF that ends that line.
        while text
            .as_bytes()
            .get(start)
            .is_some_and(|b| *b == b'\r' || *b == b'\n')
        {
            start += 1;
        }
        line += text.as_bytes()[counted..start.max(counted)]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        counted = start.max(counted);
        let line = line;
        if header.is_none() {
            header = Some(record.iter().map(|h| h.trim().to_string()).collect());
            header_row = line;
            continue;
        }
        rows.push(Row {
            at: At {
                row: line,
                column: 1,
            },
            cells: record.iter().map(csv_cell).collect(),
        });
    }
    Ok(Table {
        file: display.to_string(),
        sheet: None,
        header: header.unwrap_or_default(),
        header_row,
        rows,
    })
}

/// A CSV cell. casebook's own export writes `'=...` so that spreadsheets do not run it; the
/// quote is taken off again. A cell that starts with `=` is what a spreadsheet would run.
fn csv_cell(text: &str) -> Value {
    if let Some(rest) = text.strip_prefix('\'') {
        if rest.starts_with(['=', '+', '-', '@', '\t', '\r']) {
            return Value::Text(rest.to_string());
        }
    }
    if let Some(formula) = text.strip_prefix('=').filter(|f| !f.is_empty()) {
        return Value::Formula(formula.to_string());
    }
    if text.is_empty() {
        Value::Empty
    } else {
        Value::Text(text.to_string())
    }
}

fn read_workbook(path: &Path, display: &str, sheet: Option<&str>) -> Result<Table> {
    let unreadable = |e: &dyn std::fmt::Display| {
        Error::one(
            Diagnostic::new(display, format!("cannot read the workbook: {e}"))
                .hint("open it in a spreadsheet program and save it again as .xlsx or .ods"),
        )
    };
    let mut workbook = calamine::open_workbook_auto(path).map_err(|e| unreadable(&e))?;
    let names = workbook.sheet_names();
    let name = match sheet {
        Some(wanted) => match names.iter().find(|n| n.as_str() == wanted) {
            Some(n) => n.clone(),
            None => {
                let hint = crate::error::did_you_mean(wanted, names.iter().map(String::as_str))
                    .unwrap_or_else(|| format!("the sheets are: {}", names.join(", ")));
                return Err(Error::one(
                    Diagnostic::new(display, format!("there is no sheet named `{wanted}`"))
                        .hint(hint),
                ));
            }
        },
        None => match names.first() {
            Some(n) => n.clone(),
            None => {
                return Err(Error::one(Diagnostic::new(
                    display,
                    "the workbook has no sheets",
                )));
            }
        },
    };
    let range = workbook
        .worksheet_range(&name)
        .map_err(|e| unreadable(&e))?;
    let formulas = workbook.worksheet_formula(&name).ok();
    let (top, left) = range.start().unwrap_or((0, 0));
    let (top, left) = (top as usize, left as usize);
    let formula_at = |row: usize, column: usize| -> Option<String> {
        let f = formulas.as_ref()?;
        let (ftop, fleft) = f.start()?;
        let (r, c) = (
            row.checked_sub(ftop as usize)?,
            column.checked_sub(fleft as usize)?,
        );
        f.get((r, c)).filter(|s| !s.is_empty()).cloned()
    };
    let mut header = Vec::new();
    let mut header_row = top + 1;
    let mut rows = Vec::new();
    for (i, cells) in range.rows().enumerate() {
        let row = top + i;
        // Columns left of the used range are empty in every row.
        let mut values: Vec<Value> = vec![Value::Empty; left];
        for (j, cell) in cells.iter().enumerate() {
            values.push(match formula_at(row, left + j) {
                Some(f) => Value::Formula(f),
                None => workbook_cell(cell),
            });
        }
        if i == 0 {
            header = values.iter().map(Value::text).collect();
            header_row = row + 1;
            continue;
        }
        rows.push(Row {
            at: At {
                row: row + 1,
                column: 1,
            },
            cells: values,
        });
    }
    Ok(Table {
        file: display.to_string(),
        sheet: Some(name),
        header,
        header_row,
        rows,
    })
}

fn workbook_cell(cell: &Data) -> Value {
    match cell {
        Data::Empty => Value::Empty,
        Data::String(s) => Value::Text(s.clone()),
        Data::Int(i) => Value::Number(*i as f64),
        Data::Float(f) => Value::Number(*f),
        Data::Bool(b) => Value::Bool(*b),
        Data::DateTime(d) => match d.as_datetime() {
            Some(dt) if dt.time() == chrono::NaiveTime::MIN => Value::Date(dt.date()),
            Some(dt) => Value::Text(dt.format("%Y-%m-%dT%H:%M:%S").to_string()),
            None => Value::Number(d.as_f64()),
        },
        Data::DateTimeIso(s) => match NaiveDate::parse_from_str(s, "%Y-%m-%d") {
            Ok(d) => Value::Date(d),
            Err(_) => Value::Text(s.clone()),
        },
        Data::DurationIso(s) => Value::Text(s.clone()),
        Data::Error(e) => Value::Error(format!("{e:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_letters_follow_spreadsheets() {
        assert_eq!(column_letters(1), "A");
        assert_eq!(column_letters(26), "Z");
        assert_eq!(column_letters(27), "AA");
        assert_eq!(column_letters(703), "AAA");
    }

    #[test]
    fn csv_with_bom_crlf_semicolons_and_quoted_newlines() {
        let text = "\u{feff}id;note\r\nc-1;\"two\r\nlines\"\r\nc-2;'=1+1\r\n";
        let table = read_csv(text.as_bytes(), "s.csv", None).unwrap();
        assert_eq!(table.header, ["id", "note"]);
        assert_eq!(table.rows.len(), 2);
        assert_eq!(table.rows[0].cells[1], Value::Text("two\r\nlines".into()));
        // The second record starts on line 4: the first spans lines 2 and 3.
        assert_eq!(table.rows[1].at.row, 4);
        assert_eq!(table.rows[1].cells[1], Value::Text("=1+1".into()));
    }

    #[test]
    fn a_csv_formula_is_seen_as_one() {
        let table = read_csv(b"id,n\nc-1,=SUM(A1:A2)\n", "s.csv", None).unwrap();
        assert_eq!(table.rows[0].cells[1], Value::Formula("SUM(A1:A2)".into()));
    }

    #[test]
    fn a_given_delimiter_is_used_as_it_is() {
        let table = read_csv(b"id:note\nc-1:a,b;c\n", "s.csv", Some(b':')).unwrap();
        assert_eq!(table.header, ["id", "note"]);
        assert_eq!(table.rows[0].cells[1], Value::Text("a,b;c".into()));
    }

    #[test]
    fn the_delimiter_is_the_one_the_header_uses() {
        assert_eq!(sniff_delimiter("a;b;c\n1,5;2;3"), b';');
        assert_eq!(sniff_delimiter("a\tb\n"), b'\t');
        assert_eq!(sniff_delimiter("single\n"), b',');
    }
}
