//! CSV files: records read one at a time as the file streams past, so memory holds one
//! record (at most about the row limit), never the file.

use std::collections::VecDeque;
use std::io::Read;

use super::assemble::ROW_TEXT_LIMIT;
use super::{At, Item, Row, Table, Value};
use crate::error::{Diagnostic, Error, Result};

/// The most bytes one record may span in the file: the row limit, with room for quotes and
/// delimiters. Checked as the bytes stream in, before the csv reader copies them.
const RECORD_BYTES_LIMIT: u64 = ROW_TEXT_LIMIT as u64 + (1 << 20);

/// The delimiter of a CSV file: the candidate that splits the header line most often.
fn sniff_delimiter(text: &str) -> u8 {
    let first = text.lines().next().unwrap_or("");
    [b',', b';', b'\t', b'|']
        .into_iter()
        .max_by_key(|d| first.bytes().filter(|b| b == d).count())
        .filter(|d| first.bytes().any(|b| b == *d))
        .unwrap_or(b',')
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between records: line ends here are blank lines, which the csv reader skips.
    StartRecord,
    StartField,
    InField,
    InQuotes,
    /// A `"` inside quotes: the end of the quotes, or the first of a doubled `""`.
    QuoteInQuotes,
}

/// The file's bytes on their way to the csv reader, scanned as the reader scans them (RFC
/// 4180 quoting, any line end, blank lines skipped) for what it does not tell: the line each
/// record starts on (it counts line ends in quotes, and a record after a CRLF or a blank
/// line from the line end before it), and the cell at which a record passes
/// [`RECORD_BYTES_LIMIT`], where the reading stops.
struct Scan<R> {
    inner: R,
    delimiter: u8,
    state: State,
    /// The 1-based line of the next byte.
    line: usize,
    /// The line each record read since started on, oldest first.
    starts: VecDeque<usize>,
    /// Bytes and (0-based) column of the record being scanned.
    record_bytes: u64,
    column: usize,
    /// The record's line and the column it passed the limit in.
    over: Option<(usize, usize)>,
}

impl<R: Read> Scan<R> {
    /// Scans one byte; false when its record passes the limit.
    fn step(&mut self, b: u8) -> bool {
        let line_end = b == b'\n' || b == b'\r';
        if self.state == State::StartRecord && !line_end {
            self.starts.push_back(self.line);
            (self.record_bytes, self.column) = (0, 0);
            self.state = State::StartField;
        }
        let field_end = |s: &mut Self| {
            if b == s.delimiter {
                s.column += 1;
                Some(State::StartField)
            } else if line_end {
                Some(State::StartRecord)
            } else {
                None
            }
        };
        self.state = match self.state {
            State::StartRecord => State::StartRecord,
            State::StartField if b == b'"' => State::InQuotes,
            State::StartField | State::InField => field_end(self).unwrap_or(State::InField),
            State::InQuotes if b == b'"' => State::QuoteInQuotes,
            State::InQuotes => State::InQuotes,
            State::QuoteInQuotes if b == b'"' => State::InQuotes,
            State::QuoteInQuotes => field_end(self).unwrap_or(State::InField),
        };
        if b == b'\n' {
            self.line += 1;
        }
        self.record_bytes += 1;
        if self.record_bytes > RECORD_BYTES_LIMIT && self.state != State::StartRecord {
            self.over = Some((
                self.starts.back().copied().unwrap_or(self.line),
                self.column,
            ));
            return false;
        }
        true
    }
}

impl<R: Read> Read for Scan<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &b in &buf[..n] {
            if !self.step(b) {
                return Err(std::io::Error::other("a record over the limit"));
            }
        }
        Ok(n)
    }
}

/// Reads `input` as CSV, handing on the header and then each record.
pub(super) fn read(
    mut input: impl Read,
    display: &str,
    delimiter: Option<u8>,
    each: &mut dyn FnMut(Item) -> Result<()>,
) -> Result<()> {
    // The start of the file, for its byte-order mark and the header's delimiter.
    let mut head = Vec::new();
    (&mut input)
        .take(64 << 10)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(std::path::Path::new(display), e))?;
    if head.starts_with("\u{feff}".as_bytes()) {
        head.drain(..3);
    }
    let delimiter = delimiter.unwrap_or_else(|| sniff_delimiter(&String::from_utf8_lossy(&head)));
    let scan = Scan {
        inner: std::io::Cursor::new(head).chain(input),
        delimiter,
        state: State::StartRecord,
        line: 1,
        starts: VecDeque::new(),
        record_bytes: 0,
        column: 0,
        over: None,
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(scan);
    let mut width = None;
    let mut names: Vec<String> = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        let read = reader.read_record(&mut record);
        let scan = reader.get_mut();
        let line = scan.starts.pop_front().unwrap_or(scan.line);
        match read {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                return Err(Error::one(match (scan.over, e.kind()) {
                    (Some((line, column)), _) => {
                        let header = names.get(column).map_or("", String::as_str);
                        Diagnostic::new(
                            display,
                            format!(
                                "the row holds more than {} MiB of text by this cell, more than any case needs",
                                ROW_TEXT_LIMIT >> 20
                            ),
                        )
                        .at(line, column + 1)
                        .field(header)
                        .hint("check the cell in a spreadsheet program: a long text or a file may have been pasted into it")
                    }
                    (None, csv::ErrorKind::Utf8 { .. }) => Diagnostic::new(
                        display,
                        "the file is not UTF-8 text",
                    )
                    .at(line, 0)
                    .hint("save the sheet as \"CSV UTF-8\" (in Excel: File > Save As > CSV UTF-8)"),
                    (None, _) => {
                        Diagnostic::new(display, format!("unreadable CSV: {e}")).at(line, 0)
                    }
                }));
            }
        }
        let at = At {
            row: line,
            column: 1,
        };
        let Some(width) = width else {
            let header: Vec<String> = record.iter().map(|h| h.trim().to_string()).collect();
            width = Some(header.len());
            names = header.clone();
            each(Item::Header(Table {
                file: display.to_string(),
                sheet: None,
                header,
                header_row: line,
            }))?;
            continue;
        };
        // The limit a workbook's rows have (`assemble`), checked before any cell is copied:
        // one cell of 48 MB would otherwise reach the case file and every published page.
        let mut text = 0;
        for (j, cell) in record.iter().take(width).enumerate() {
            text += cell.len();
            if text > ROW_TEXT_LIMIT {
                let header = names.get(j).map_or("", String::as_str);
                return Err(Error::one(
                    Diagnostic::new(
                        display,
                        format!(
                            "the row holds more than {} MiB of text by this cell ({} bytes), more than any case needs",
                            ROW_TEXT_LIMIT >> 20,
                            cell.len()
                        ),
                    )
                    .at(line, j + 1)
                    .field(header)
                    .hint("check the cell in a spreadsheet program: a long text or a file may have been pasted into it"),
                ));
            }
        }
        let cells: Vec<Value> = record.iter().take(width).map(csv_cell).collect();
        let stray: Vec<usize> = record
            .iter()
            .enumerate()
            .skip(width)
            .filter(|(_, c)| !c.trim().is_empty())
            .map(|(j, _)| j)
            .take(4)
            .collect();
        if stray.is_empty() && cells.iter().all(Value::is_empty) {
            each(Item::Empty {
                first: at,
                count: 1,
            })?;
        } else {
            each(Item::Row(Row { at, cells, stray }))?;
        }
    }
    if width.is_none() {
        each(Item::Header(Table {
            file: display.to_string(),
            sheet: None,
            header: Vec::new(),
            header_row: 1,
        }))?;
    }
    Ok(())
}

/// A CSV cell. casebook's own export writes `'=...` so that spreadsheets do not run it; the
/// quote is taken off again, and the text after it kept exactly (spaces before an `=` too).
/// A cell that starts with `=`, or with `=` after spaces or control characters, is what a
/// spreadsheet would run.
fn csv_cell(text: &str) -> Value {
    if let Some(rest) = text.strip_prefix('\'') {
        if crate::site::export::needs_quote(rest) {
            return Value::Literal(rest.to_string());
        }
    }
    if let Some(formula) = text.strip_prefix('=').filter(|f| !f.is_empty()) {
        return Value::Formula(formula.to_string());
    }
    if let Some(formula) = Value::text_hiding_formula(text) {
        return Value::Formula(formula[1..].to_string());
    }
    if text.is_empty() {
        Value::Empty
    } else {
        Value::Text(text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header and the rows of a CSV text.
    fn table(text: &[u8], delimiter: Option<u8>) -> (Table, Vec<Row>) {
        let (mut header, mut rows) = (None, Vec::new());
        read(text, "s.csv", delimiter, &mut |item| {
            match item {
                Item::Header(t) => header = Some(t),
                Item::Row(r) => rows.push(r),
                Item::Empty { .. } => {}
            }
            Ok(())
        })
        .unwrap();
        (header.unwrap(), rows)
    }

    #[test]
    fn csv_with_bom_crlf_semicolons_and_quoted_newlines() {
        let text = "\u{feff}id;note\r\nc-1;\"two\r\nlines\"\r\nc-2;'=1+1\r\n";
        let (header, rows) = table(text.as_bytes(), None);
        assert_eq!(header.header, ["id", "note"]);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].cells[1], Value::Text("two\r\nlines".into()));
        // The second record starts on line 4: the first spans lines 2 and 3.
        assert_eq!(rows[1].at.row, 4);
        assert_eq!(rows[1].cells[1], Value::Literal("=1+1".into()));
    }

    #[test]
    fn a_csv_formula_is_seen_as_one_even_behind_spaces_or_control_characters() {
        let (_, rows) = table(b"id,n,m,o\nc-1,=SUM(A1:A2), =1+1,\x01\t=2\n", None);
        assert_eq!(rows[0].cells[1], Value::Formula("SUM(A1:A2)".into()));
        assert_eq!(rows[0].cells[2], Value::Formula("1+1".into()));
        assert_eq!(rows[0].cells[3], Value::Formula("2".into()));
    }

    #[test]
    fn records_are_placed_on_their_lines_past_blank_lines_and_quoted_line_ends() {
        let text = "id,note\r\n\r\nc-1,\"a\nb\"\"\n\"\n\n\nc-2,\"x,\"\"y\"\"\"z\n  \nc-3,\n";
        let (header, rows) = table(text.as_bytes(), None);
        assert_eq!(header.header_row, 1);
        let at: Vec<usize> = rows.iter().map(|r| r.at.row).collect();
        assert_eq!(at, [3, 8, 10]);
        assert_eq!(rows[0].cells[1], Value::Text("a\nb\"\n".into()));
        assert_eq!(rows[1].cells[1], Value::Text("x,\"y\"z".into()));
    }

    #[test]
    fn values_right_of_the_header_are_strays_not_cells() {
        let (_, rows) = table(b"id,n\nc-1,2,,x\n", None);
        assert_eq!(rows[0].cells.len(), 2);
        assert_eq!(rows[0].stray, [3]);
    }

    #[test]
    fn a_given_delimiter_is_used_as_it_is() {
        let (header, rows) = table(b"id:note\nc-1:a,b;c\n", Some(b':'));
        assert_eq!(header.header, ["id", "note"]);
        assert_eq!(rows[0].cells[1], Value::Text("a,b;c".into()));
    }

    #[test]
    fn the_delimiter_is_the_one_the_header_uses() {
        assert_eq!(sniff_delimiter("a;b;c\n1,5;2;3"), b';');
        assert_eq!(sniff_delimiter("a\tb\n"), b'\t');
        assert_eq!(sniff_delimiter("single\n"), b',');
    }
}
