//! Each row of a sheet checked against the case schema, with the same rules as front matter
//! (`content::case::check_value`), into a `Record` of typed values.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use chrono::NaiveDate;

use super::columns::{Mapping, Target};
use super::sheet::{At, Row, Table, Value};
use crate::config::{CaseSchema, FieldDef, FieldType, Sensitivity, is_url_safe};
use crate::content::FieldValue;
use crate::content::case::check_value;
use crate::error::{Diagnostic, Error};

/// One row as the site will store it.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub(crate) id: String,
    /// Every field the sheet has a column for, in schema order: `None` for an empty cell.
    pub(crate) fields: Vec<(usize, Option<FieldValue>)>,
    /// The title cell, if the sheet has a title column and the cell is not empty.
    pub(crate) title: Option<String>,
    pub(crate) photos: Vec<PhotoCell>,
}

/// A photograph named in a row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PhotoCell {
    pub(crate) file: String,
    pub(crate) alt: Option<String>,
    pub(crate) caption: Option<String>,
    pub(crate) sensitivity: Option<Sensitivity>,
    pub(crate) at: At,
}

/// The problems of an import: the first `SHOWN` kept, the rest counted. Millions of bad
/// rows cost a counter, not millions of messages.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    shown: Vec<Diagnostic>,
    more: usize,
}

/// How many problems an import lists before it only counts them.
pub(crate) const SHOWN: usize = 100;

impl Problems {
    pub(crate) fn push(&mut self, d: Diagnostic) {
        if self.shown.len() < SHOWN {
            self.shown.push(d);
        } else {
            self.more += 1;
        }
    }

    pub(crate) fn extend(&mut self, ds: impl IntoIterator<Item = Diagnostic>) {
        for d in ds {
            self.push(d);
        }
    }

    /// Counts problems that are not listed.
    pub(crate) fn count_more(&mut self, more: usize) {
        self.more += more;
    }

    /// The listed problems and how many more there are.
    pub(crate) fn into_parts(self) -> (Vec<Diagnostic>, usize) {
        (self.shown, self.more)
    }

    /// How many there are, shown or not.
    pub(crate) fn count(&self) -> usize {
        self.shown.len() + self.more
    }

    /// The error reporting them: `None` when there are none.
    pub(crate) fn into_error(self) -> Option<Error> {
        match (self.shown.is_empty(), self.more) {
            (true, _) => None,
            (false, 0) => Some(Error::Diagnostics(self.shown)),
            (false, more) => Some(Error::Many {
                shown: self.shown,
                more,
            }),
        }
    }
}

/// The sheet's header and what each column fills: all a row's cells need to be located.
/// Shared with the batches being made into files while later rows are checked.
pub(crate) struct Layout {
    pub(crate) table: Table,
    pub(crate) targets: Vec<Target>,
}

/// Checks the rows of one sheet as they come, against the case schema.
pub(crate) struct Checker<'s> {
    pub(crate) layout: Arc<Layout>,
    schema: &'s CaseSchema,
    mapping: &'s Mapping,
    id_field: Option<usize>,
    /// The row each id was first met on: kept small (a sheet may hold millions of ids).
    first_row_of: HashMap<Box<str>, usize>,
    /// Empty rows not yet reported: a blank row among filled ones may be a lost case, but
    /// blank rows after the last filled one are what spreadsheets keep.
    empty_run: Option<(At, usize)>,
    /// Columns already reported as holding values without a header.
    headerless: HashSet<usize>,
}

impl<'s> Checker<'s> {
    pub(crate) fn new(
        table: Table,
        targets: Vec<Target>,
        schema: &'s CaseSchema,
        mapping: &'s Mapping,
    ) -> Self {
        Checker {
            layout: Arc::new(Layout { table, targets }),
            schema,
            mapping,
            id_field: schema.fields.iter().position(|f| f.name == schema.id_field),
            first_row_of: HashMap::new(),
            empty_run: None,
            headerless: HashSet::new(),
        }
    }

    /// `count` empty rows from `first` on.
    pub(crate) fn empty(&mut self, first: At, count: usize) {
        match &mut self.empty_run {
            Some((_, n)) => *n += count,
            None => self.empty_run = Some((first, count)),
        }
    }

    /// The record of one filled row, or `None` when the row has problems (in `diags`).
    pub(crate) fn row(&mut self, row: &Row, diags: &mut Problems) -> Option<Record> {
        let table = &self.layout.table;
        let (schema, targets, mapping) = (self.schema, &self.layout.targets[..], self.mapping);
        if let Some((first, count)) = self.empty_run.take() {
            let message = if count == 1 {
                "this row is empty".to_string()
            } else {
                format!("this row and the {} below it are empty", count - 1)
            };
            diags.push(
                table
                    .at(first, message)
                    .hint("delete the empty rows (or fill them in): every row between the header and the last case is imported"),
            );
        }
        let before = diags.count();
        let mut headerless: Vec<usize> = row
            .cells
            .iter()
            .enumerate()
            .filter(|(j, c)| {
                !c.is_empty() && table.header.get(*j).is_none_or(|h| h.trim().is_empty())
            })
            .map(|(j, _)| j)
            .chain(row.stray.iter().copied())
            .collect();
        headerless.retain(|j| self.headerless.insert(*j));
        for j in headerless {
            diags.push(
                table
                    .at(
                        At {
                            row: row.at.row,
                            column: j + 1,
                        },
                        "this column has values but no header",
                    )
                    .hint("write the field's name in the header row, e.g. `branch`"),
            );
        }
        let first_row_of = &mut self.first_row_of;
        let id_field = self.id_field;
        let cell_at = |j: usize| At {
            row: row.at.row,
            column: j + 1,
        };
        let cell = |j: usize| row.cells.get(j).unwrap_or(&Value::Empty);
        let mut fields = Vec::new();
        let mut title = None;
        let mut photo_parts: BTreeMap<Target, (Vec<String>, At)> = BTreeMap::new();
        for (j, target) in targets.iter().enumerate() {
            let value = cell(j);
            if let Value::Formula(f) = value {
                diags.push(
                    table
                        .at(cell_at(j), format!("a formula cell (={f}): imports take values only"))
                        .hint("copy the column and paste it back as values only (Paste Special > Values)"),
                );
                continue;
            }
            if let Value::Error(e) = value {
                diags.push(
                    table
                        .at(
                            cell_at(j),
                            format!("the cell holds the spreadsheet error {e}"),
                        )
                        .hint("correct the cell in the spreadsheet, then import again"),
                );
                continue;
            }
            let control = match value {
                Value::Text(t) | Value::Literal(t) if *target != Target::Ignored => {
                    unpublishable_character(t)
                }
                _ => None,
            };
            if let Some(c) = control {
                let header = table.header.get(j).map_or("", |h| h.trim());
                diags.push(
                    table
                        .at(
                            cell_at(j),
                            format!(
                                "the cell holds the control character {} ({}), which no page, feed or data file can publish as it is",
                                c.escape_unicode(),
                                if c == '\0' { "NUL" } else { "invisible" }
                            ),
                        )
                        .field(header)
                        .hint("delete the character from the cell (it often comes from a copy out of another program), then import again"),
                );
                continue;
            }
            match target {
                Target::Field(i) => {
                    let field = &schema.fields[*i];
                    match convert(field, value, mapping) {
                        Ok(v) => {
                            if v.is_none() && field.required {
                                diags.push(
                                    table
                                        .at(
                                            cell_at(j),
                                            format!(
                                                "{} is required, and the cell is empty",
                                                field.name
                                            ),
                                        )
                                        .field(&field.name)
                                        .hint(format!("fill it with {}", field.kind.describe())),
                                );
                            }
                            fields.push((*i, v));
                        }
                        Err((message, hint)) => diags.push(
                            table
                                .at(cell_at(j), message)
                                .field(&field.name)
                                .maybe_hint(hint),
                        ),
                    }
                }
                Target::Title => {
                    let t = value.text();
                    title = (!t.is_empty()).then_some(t);
                }
                photo_part @ (Target::Photos
                | Target::PhotoAlt
                | Target::PhotoCaption
                | Target::PhotoSensitivity) => {
                    let items = split(&value.text(), mapping.separator());
                    photo_parts.insert(*photo_part, (items, cell_at(j)));
                }
                Target::Ignored => {}
            }
        }
        fields.sort_by_key(|(i, _)| *i);
        let photos = photos(table, &photo_parts, diags);
        let id = id_field.and_then(|i| {
            fields
                .iter()
                .find(|(f, _)| *f == i)
                .and_then(|(_, v)| v.as_ref())
                .map(FieldValue::to_text)
        });
        let id_at = cell_at(
            id_field
                .and_then(|i| targets.iter().position(|t| *t == Target::Field(i)))
                .unwrap_or(0),
        );
        let Some(id) = id else {
            // An empty id cell is already reported as an empty required field.
            return None;
        };
        if !is_url_safe(&id) {
            diags.push(
                table
                    .at(id_at, format!("case id `{id}` cannot be used in a URL"))
                    .field(&schema.id_field)
                    .hint(format!(
                        "use lowercase letters, digits, `-` and `_`, e.g. `{}`",
                        slug::slugify(&id)
                    )),
            );
            return None;
        }
        match first_row_of.get(id.as_str()) {
            Some(first) => {
                let first_place = match &table.sheet {
                    Some(_) => format!("row {first}"),
                    None => format!("line {first}"),
                };
                diags.push(
                    table
                        .at(
                            id_at,
                            format!(
                                "case id `{id}` is in the sheet twice (first on {first_place})"
                            ),
                        )
                        .field(&schema.id_field)
                        .hint("each case is one row: merge the two rows, or correct one id"),
                );
                return None;
            }
            None => {
                first_row_of.insert(id.as_str().into(), id_at.row);
            }
        }
        if diags.count() > before {
            return None;
        }
        Some(Record {
            id,
            fields,
            title,
            photos,
        })
    }
}

/// The items of a list cell, trimmed, blanks dropped.
/// The first character of `text` that HTML and XML 1.0 (the site's pages, feeds and
/// sitemap) cannot hold as it is: a C0 control character other than tab and line ends. NUL
/// would otherwise reach every file the case is published in.
fn unpublishable_character(text: &str) -> Option<char> {
    text.chars()
        .find(|c| c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{7f}'))
}

fn split(text: &str, separator: &str) -> Vec<String> {
    text.split(separator)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Pairs each photograph file with its alt text, caption and sensitivity.
fn photos(
    table: &Table,
    parts: &BTreeMap<Target, (Vec<String>, At)>,
    diags: &mut Problems,
) -> Vec<PhotoCell> {
    let Some((files, files_at)) = parts.get(&Target::Photos) else {
        return Vec::new();
    };
    let mut part = |target: Target, name: &str| -> Option<Vec<String>> {
        let (items, at) = parts.get(&target)?;
        if !items.is_empty() && items.len() != files.len() {
            diags.push(
                table
                    .at(*at, format!("{} items for {} photographs", items.len(), files.len()))
                    .field(name)
                    .hint("give one per photograph, in the same order, separated as the file names are"),
            );
        }
        Some(items.clone())
    };
    let alts = part(Target::PhotoAlt, "photo_alt").unwrap_or_default();
    let captions = part(Target::PhotoCaption, "photo_caption").unwrap_or_default();
    let sensitivities = part(Target::PhotoSensitivity, "photo_sensitivity").unwrap_or_default();
    let mut out = Vec::new();
    for (n, file) in files.iter().enumerate() {
        let sensitivity = match sensitivities.get(n) {
            Some(s) => match Sensitivity::parse(&s.to_lowercase()) {
                Some(v) => Some(v),
                None => {
                    diags.push(
                        table
                            .at(
                                parts[&Target::PhotoSensitivity].1,
                                format!("`{s}` is not a sensitivity"),
                            )
                            .field("photo_sensitivity")
                            .hint(format!("use one of: {}", Sensitivity::NAMES.join(", "))),
                    );
                    None
                }
            },
            None => None,
        };
        out.push(PhotoCell {
            file: file.clone(),
            alt: alts.get(n).cloned(),
            caption: captions.get(n).cloned(),
            sensitivity,
            at: *files_at,
        });
    }
    out
}

/// A cell as a value of `field`: `None` when empty.
fn convert(
    field: &FieldDef,
    cell: &Value,
    mapping: &Mapping,
) -> Result<Option<FieldValue>, (String, Option<String>)> {
    if cell.is_empty() {
        return Ok(None);
    }
    let text = cell.text();
    let translations = mapping.values.get(&field.name);
    let value: toml::Value = match field.kind {
        FieldType::String => toml::Value::String(text),
        FieldType::Integer => match cell {
            Value::Number(n) if n.fract() == 0.0 && n.abs() < 9e15 => {
                toml::Value::Integer(*n as i64)
            }
            _ => match text.parse::<i64>() {
                Ok(i) => toml::Value::Integer(i),
                Err(_) => {
                    return Err((
                        format!("expected a whole number, found `{text}`"),
                        Some("write digits only, e.g. 90417".into()),
                    ));
                }
            },
        },
        FieldType::Boolean => match cell {
            Value::Bool(b) => toml::Value::Boolean(*b),
            _ => match boolean(&text) {
                Some(b) => toml::Value::Boolean(b),
                None => {
                    return Err((
                        format!("expected true or false, found `{text}`"),
                        Some("write true or false (yes/no and 1/0 are read too)".into()),
                    ));
                }
            },
        },
        FieldType::Date => {
            let date = match cell {
                Value::Date(d) => Some(*d),
                _ => NaiveDate::parse_from_str(&text, mapping.date_format()).ok(),
            };
            return match date {
                Some(d) => Ok(Some(FieldValue::Date(d))),
                None => Err((
                    format!(
                        "`{text}` is not a date written {}",
                        human_format(mapping.date_format())
                    ),
                    Some(
                        "write dates as the date format says (2012-05-14 by default), or set date_format in a mapping file, e.g. date_format = \"%d/%m/%Y\"".into(),
                    ),
                )),
            };
        }
        FieldType::Enum => toml::Value::String(allowed(field, &text, translations)),
        FieldType::List => toml::Value::Array(
            split(&text, mapping.separator())
                .iter()
                .map(|item| toml::Value::String(allowed(field, item, translations)))
                .collect(),
        ),
    };
    check_value(field, &value).map(Some).map_err(|(message, hint)| {
        let hint = match (field.kind, &hint) {
            // Front matter's hints speak of `key = value`; a cell has no key.
            (FieldType::Enum | FieldType::List, Some(h)) if h.starts_with("did you mean") => {
                Some(format!("{h} Or translate the cell's text in a mapping file: [values.{}]", field.name))
            }
            (FieldType::Enum | FieldType::List, _) => Some(format!(
                "use one of the allowed values, or translate the cell's text in a mapping file: [values.{}]",
                field.name
            )),
            _ => hint,
        };
        (message, hint)
    })
}

/// An enum cell as the allowed value it stands for: translated by the mapping, or written
/// as the value's label (in any language) or in other case.
fn allowed(
    field: &FieldDef,
    text: &str,
    translations: Option<&BTreeMap<String, String>>,
) -> String {
    if let Some(to) = translations.and_then(|t| t.get(text)) {
        return to.clone();
    }
    if field.values.iter().any(|v| v == text) {
        return text.to_string();
    }
    let folded = text.to_lowercase();
    for value in &field.values {
        let labels = std::iter::once(field.value_label(value)).chain(
            field
                .translated
                .values()
                .filter_map(|t| t.value_labels.get(value).map(String::as_str)),
        );
        if value.to_lowercase() == folded || labels.into_iter().any(|l| l.to_lowercase() == folded)
        {
            return value.clone();
        }
    }
    text.to_string()
}

fn boolean(text: &str) -> Option<bool> {
    match text.to_lowercase().as_str() {
        "true" | "yes" | "y" | "1" | "نعم" => Some(true),
        "false" | "no" | "n" | "0" | "لا" => Some(false),
        _ => None,
    }
}

/// `%d/%m/%Y` as `DD/MM/YYYY`, for messages.
fn human_format(format: &str) -> String {
    format
        .replace("%Y", "YYYY")
        .replace("%m", "MM")
        .replace("%d", "DD")
        .replace("%y", "YY")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_are_read_in_words_and_digits() {
        assert_eq!(boolean("Yes"), Some(true));
        assert_eq!(boolean("0"), Some(false));
        assert_eq!(boolean("نعم"), Some(true));
        assert_eq!(boolean("maybe"), None);
    }

    #[test]
    fn lists_split_on_the_separator_and_drop_blanks() {
        assert_eq!(split("a; b;;c ", ";"), ["a", "b", "c"]);
        assert_eq!(split("a|b", "|"), ["a", "b"]);
        assert!(split("  ", ";").is_empty());
    }

    #[test]
    fn date_formats_read_as_people_write_them() {
        assert_eq!(human_format("%d/%m/%Y"), "DD/MM/YYYY");
    }
}
