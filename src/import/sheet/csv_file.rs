//! CSV files: records read one at a time from the file's text.

use super::assemble::ROW_TEXT_LIMIT;
use super::{At, Item, Row, Table, Value};
use crate::error::{Diagnostic, Error, Result};

/// The delimiter of a CSV file: the candidate that splits the header line most often.
fn sniff_delimiter(text: &str) -> u8 {
    let first = text.lines().next().unwrap_or("");
    [b',', b';', b'\t', b'|']
        .into_iter()
        .max_by_key(|d| first.bytes().filter(|b| b == d).count())
        .filter(|d| first.bytes().any(|b| b == *d))
        .unwrap_or(b',')
}

/// Reads `bytes` as CSV, handing on the header and then each record.
pub(super) fn read(
    bytes: &[u8],
    display: &str,
    delimiter: Option<u8>,
    each: &mut dyn FnMut(Item) -> Result<()>,
) -> Result<()> {
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
    let mut width = None;
    let mut names = Vec::new();
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
