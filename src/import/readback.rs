//! Every file an import would write is read back first, by the same parser the build uses,
//! and must give the values the sheet gave. A cell that cannot be written so that it reads
//! back the same (a line of `+++` inside a text, a NUL character) is a located error, never
//! a case file that the next build or import cannot read.

use super::columns::Target;
use super::rows::{Layout, PhotoCell, Record};
use super::sheet::{At, Row, Value};
use super::{Plan, meaningful};
use crate::config::CaseSchema;
use crate::content::case::check_value;
use crate::content::front_matter;
use crate::error::Diagnostic;

pub(super) fn check(
    schema: &CaseSchema,
    sheet: &Layout,
    row: &Row,
    record: &Record,
    plan: &Plan,
) -> Result<(), Diagnostic> {
    let table = &sheet.table;
    let cell_of = |target: Target| {
        let column = sheet
            .targets
            .iter()
            .position(|t| *t == target)
            .map_or(1, |j| j + 1);
        At {
            row: row.at.row,
            column,
        }
    };
    let document = match front_matter::parse(&plan.file, &plan.text) {
        Ok(d) => d,
        Err(d) => {
            // Blame the cell whose text the parser cannot take back, if one is plain to see.
            let culprit = row
                .cells
                .iter()
                .position(|c| matches!(c, Value::Text(t) if unwritable(t)))
                .map_or(row.at, |j| At {
                    row: row.at.row,
                    column: j + 1,
                });
            return Err(table
                .at(
                    culprit,
                    format!(
                        "this row would write a case file that cannot be read back ({})",
                        d.message
                    ),
                )
                .hint("remove the line that reads `+++` or `---` and any control characters from the cell"));
        }
    };
    let entry = |key: &str| document.entries.iter().find(|e| e.key == key);
    for (i, value) in &record.fields {
        let field = &schema.fields[*i];
        let read = entry(&field.name).and_then(|e| check_value(field, &e.value).ok());
        if meaningful(read.clone()) != meaningful(value.clone()) {
            return Err(table
                .at(
                    cell_of(Target::Field(*i)),
                    format!(
                        "the value cannot be written into a case file so that it reads back the same (it would read back as `{}`)",
                        read.as_ref().map(|v| v.to_text()).unwrap_or_default()
                    ),
                )
                .field(&field.name)
                .hint("simplify the cell's text: remove control characters and lines of only `+++` or `---`"));
        }
    }
    if let Some(title) = &record.title {
        let read = entry("title").and_then(|e| e.value.as_str().map(str::to_string));
        if read.as_deref() != Some(title.as_str()) {
            return Err(table
                .at(
                    cell_of(Target::Title),
                    "the title cannot be written into a case file so that it reads back the same",
                )
                .field("title")
                .hint("simplify the cell's text: remove control characters and lines of only `+++` or `---`"));
        }
    }
    let photos: Vec<PhotoCell> = entry("photos")
        .and_then(|e| e.value.as_array())
        .map(|items| {
            items
                .iter()
                .map(|p| {
                    let text = |k: &str| p.get(k).and_then(|v| v.as_str()).map(str::to_string);
                    PhotoCell {
                        file: text("file").unwrap_or_default(),
                        alt: text("alt"),
                        caption: text("caption"),
                        sensitivity: None,
                        at: row.at,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    for photo in &plan.photos {
        let found = photos
            .iter()
            .any(|p| p.file == photo.file && p.alt == photo.alt && p.caption == photo.caption);
        if !found {
            return Err(table
                .at(
                    cell_of(Target::Photos),
                    format!(
                        "photograph `{}` cannot be written into the case file so that it reads back the same",
                        photo.file
                    ),
                )
                .field("photos")
                .hint("simplify the file name, alt text and caption: remove control characters and lines of only `+++` or `---`"));
        }
    }
    Ok(())
}

/// Text that no front matter can hold as it is.
fn unwritable(text: &str) -> bool {
    text.contains('\0') || text.lines().any(|l| matches!(l.trim(), "+++" | "---"))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;

    use crate::content::front_matter;
    use crate::import::sheet::lf_line_ends;
    use crate::import::{ImportOptions, import};

    /// A copy of the minimal fixture site, to import into.
    fn site() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/minimal");
        for entry in walkdir::WalkDir::new(&from) {
            let entry = entry.unwrap();
            let to = dir.path().join(entry.path().strip_prefix(&from).unwrap());
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(&to).unwrap();
            } else {
                std::fs::copy(entry.path(), &to).unwrap();
            }
        }
        dir
    }

    /// Cell text with what breaks writers: quotes of every kind, backslashes, line ends,
    /// front-matter delimiters, control and invisible characters, Arabic, leading signs.
    fn cell_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("+++".to_string()),
            Just("---".to_string()),
            Just("\"\"\"".to_string()),
            Just("'''".to_string()),
            Just("\\".to_string()),
            Just("\n".to_string()),
            Just("\r\n".to_string()),
            Just("\r".to_string()),
            Just("\t".to_string()),
            Just(" ".to_string()),
            Just("=".to_string()),
            Just("'".to_string()),
            Just("\u{0}".to_string()),
            Just("\u{7f}".to_string()),
            Just("\u{feff}".to_string()),
            Just("\u{2028}".to_string()),
            Just("\u{200d}".to_string()),
            Just("محمد".to_string()),
            "[a-z]{1,4}",
            any::<char>().prop_map(String::from),
        ];
        proptest::collection::vec(piece, 0..10).prop_map(|p| p.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any cell text goes through import, the case file and the content parser unchanged
        /// (as a reader compares it: trimmed, LF line ends), or is refused at its cell.
        #[test]
        fn any_cell_text_reads_back_from_the_case_file(text in cell_text()) {
            let dir = site();
            let mut sheet = csv::Writer::from_writer(Vec::new());
            sheet.write_record(["case_id", "number", "branch", "photographed", "synthetic", "note"]).unwrap();
            sheet.write_record(["c-020", "120", "215", "2012-01-01", "true", text.as_str()]).unwrap();
            let sheet_path = dir.path().join("sheet.csv");
            std::fs::write(&sheet_path, sheet.into_inner().unwrap()).unwrap();
            let result = import(&ImportOptions {
                root: dir.path().to_path_buf(),
                file: sheet_path,
                ..ImportOptions::default()
            });
            match result {
                Err(e) => {
                    let shown = e.to_string();
                    prop_assert!(shown.contains("sheet.csv:2:6:"), "refused elsewhere than its cell: {shown}");
                    prop_assert!(shown.contains("formula") || shown.contains("control character"), "refused for another reason: {shown}");
                }
                Ok(_) => {
                    let file = dir.path().join("content/cases/c-020/index.md");
                    let written = std::fs::read_to_string(&file).unwrap();
                    let doc = front_matter::parse(&file, &written).unwrap();
                    let read = doc.entries.iter().find(|e| e.key == "note").and_then(|e| e.value.as_str().map(str::to_string));
                    let given = match text.strip_prefix('\'') {
                        Some(rest) if crate::site::export::needs_quote(rest) => rest.to_string(),
                        _ => text.clone(),
                    };
                    let expected = lf_line_ends(given.trim());
                    let read = read.map(|r| lf_line_ends(r.trim())).unwrap_or_default();
                    prop_assert_eq!(read, expected);
                }
            }
        }
    }
}
