//! Every file an import would write is read back first, by the same parser the build uses,
//! and must give the values the sheet gave. A cell that cannot be written so that it reads
//! back the same (a line of `+++` inside a text, a NUL character) is a located error, never
//! a case file that the next build or import cannot read.

use super::columns::Target;
use super::rows::{Checker, PhotoCell, Record};
use super::sheet::{At, Row, Value};
use super::{Plan, meaningful};
use crate::config::CaseSchema;
use crate::content::case::check_value;
use crate::content::front_matter;
use crate::error::Diagnostic;

pub(super) fn check(
    schema: &CaseSchema,
    checker: &Checker<'_>,
    row: &Row,
    record: &Record,
    plan: &Plan,
) -> Result<(), Diagnostic> {
    let table = &checker.table;
    let cell_of = |target: Target| {
        let column = checker
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
