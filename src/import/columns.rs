//! Which schema field each column of a sheet fills: by field name or label (any language,
//! case and spacing ignored), or as a saved mapping file says.
//!
//! A mapping file is TOML, written by hand or by `--save-mapping`:
//!
//! ```toml
//! delimiter = ";"           # CSV only; by default the header line's most used of , ; tab |
//! list_separator = ";"
//! date_format = "%d/%m/%Y"
//! [columns]
//! "Detainee No." = "detainee_number"
//! "Notes" = ""              # an empty target: the column is not imported
//! [values.branch]
//! "Branch 215" = "215"
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::sheet::Table;
use crate::config::{CaseSchema, FieldType};
use crate::error::{Diagnostic, Error, Result, did_you_mean};

/// What a column fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Target {
    /// A schema field, by index into `CaseSchema::fields`.
    Field(usize),
    Title,
    /// Photograph file names, then their alt texts, captions and sensitivities.
    Photos,
    PhotoAlt,
    PhotoCaption,
    PhotoSensitivity,
    /// Not imported: `url` (the export's, derived from the id) or mapped to `""`.
    Ignored,
}

/// Columns that are not schema fields: the name a header and a mapping file use, what the
/// column fills, and what it holds (the template's *Fields* sheet says so).
pub(super) const OTHER_COLUMNS: [(&str, Target, &str); 6] = [
    (
        "title",
        Target::Title,
        "The page title. Optional: new cases are titled with their id.",
    ),
    (
        "photos",
        Target::Photos,
        "Photograph file names, separated by ;. The files must be in the folder given with --photos.",
    ),
    (
        "photo_alt",
        Target::PhotoAlt,
        "One description per photograph, separated by ;, for people who cannot see it. Required with photos.",
    ),
    (
        "photo_caption",
        Target::PhotoCaption,
        "One caption per photograph, separated by ;. Optional.",
    ),
    (
        "photo_sensitivity",
        Target::PhotoSensitivity,
        "none, sensitive or graphic, one per photograph. Optional: the site's default applies.",
    ),
    (
        "url",
        Target::Ignored,
        "Not imported: a case's address follows from its id.",
    ),
];

/// A saved mapping, as read from or written to a mapping file.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Mapping {
    /// A CSV file's delimiter, one character. Default: whichever of `,` `;` tab `|` the
    /// header line uses most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) delimiter: Option<String>,
    /// What separates the items of a list cell (and of photo cells). Default `;`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) list_separator: Option<String>,
    /// How date cells written as text are read, in chrono's `strftime` notation. Default
    /// `%Y-%m-%d`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) date_format: Option<String>,
    /// Column header → field name (`""`: not imported).
    #[serde(default)]
    pub(crate) columns: BTreeMap<String, String>,
    /// Field name → (cell text → allowed value).
    #[serde(default)]
    pub(crate) values: BTreeMap<String, BTreeMap<String, String>>,
}

impl Mapping {
    pub(crate) fn separator(&self) -> &str {
        self.list_separator.as_deref().unwrap_or(";")
    }

    /// The CSV delimiter the mapping sets, checked to be one ASCII character by `load`.
    pub(crate) fn csv_delimiter(&self) -> Option<u8> {
        self.delimiter.as_deref().map(|d| d.as_bytes()[0])
    }

    pub(crate) fn date_format(&self) -> &str {
        self.date_format.as_deref().unwrap_or("%Y-%m-%d")
    }

    /// Reads and checks a mapping file against the schema; every problem is reported.
    pub(crate) fn load(path: &Path, schema: &CaseSchema) -> Result<Mapping> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let mapping: Mapping = toml::from_str(&text)
            .map_err(|e| Error::one(crate::error::toml_error(path, &text, &e)))?;
        let mut diags = Vec::new();
        let at = |needle: &str| {
            text.lines()
                .position(|l| l.contains(needle))
                .map_or(0, |i| i + 1)
        };
        for (column, field) in &mapping.columns {
            if !field.is_empty() && target_named(schema, field).is_none() {
                diags.push(
                    Diagnostic::new(
                        path,
                        format!(
                            "column `{column}` is mapped to `{field}`, which is not a case field"
                        ),
                    )
                    .at(at(&format!("\"{column}\"")), 1)
                    .field("columns")
                    .hint(
                        did_you_mean(field, target_names(schema)).unwrap_or_else(|| {
                            format!(
                                "map it to one of: {}, or to \"\" to leave it out",
                                target_names(schema).collect::<Vec<_>>().join(", ")
                            )
                        }),
                    ),
                );
            }
        }
        for (field, translations) in &mapping.values {
            let Some(def) = schema.field(field) else {
                diags.push(
                    Diagnostic::new(
                        path,
                        format!("[values.{field}]: `{field}` is not a case field"),
                    )
                    .at(at(&format!("[values.{field}]")), 1)
                    .maybe_hint(did_you_mean(
                        field,
                        schema.fields.iter().map(|f| f.name.as_str()),
                    )),
                );
                continue;
            };
            if matches!(def.kind, FieldType::Enum | FieldType::List) {
                for (from, to) in translations {
                    if !def.values.contains(to) {
                        diags.push(
                            Diagnostic::new(path, format!("\"{from}\" is translated to `{to}`, which is not an allowed value of {field}"))
                                .at(at(&format!("\"{from}\"")), 1)
                                .field(format!("values.{field}"))
                                .hint(did_you_mean(to, def.values.iter().map(String::as_str)).unwrap_or_else(|| format!("the allowed values are: {}", def.values.join(", ")))),
                        );
                    }
                }
            }
        }
        if mapping
            .list_separator
            .as_deref()
            .is_some_and(|s| s.trim().is_empty())
        {
            diags.push(
                Diagnostic::new(path, "list_separator is empty or blank")
                    .at(at("list_separator"), 1)
                    .hint("use a character that no value contains, e.g. \";\" or \"|\""),
            );
        }
        if mapping
            .delimiter
            .as_deref()
            .is_some_and(|d| d.len() != 1 || !d.is_ascii() || d == "\"" || d == "\n")
        {
            diags.push(
                Diagnostic::new(path, "delimiter is not one character")
                    .at(at("delimiter"), 1)
                    .hint("give the one character between a CSV file's values, e.g. delimiter = \":\" or \"\\t\" for tab"),
            );
        }
        if let Some(format) = &mapping.date_format {
            // A format that reads back the date it writes names the day, month and year.
            let probe = chrono::NaiveDate::from_ymd_opt(2012, 5, 14).expect("a valid date");
            let mut written = String::new();
            let written =
                std::fmt::Write::write_fmt(&mut written, format_args!("{}", probe.format(format)))
                    .ok()
                    .map(|()| written);
            let reads_back = written
                .and_then(|w| chrono::NaiveDate::parse_from_str(&w, format).ok())
                == Some(probe);
            if !reads_back {
                diags.push(
                    Diagnostic::new(
                        path,
                        format!("date_format `{format}` does not read a whole date"),
                    )
                    .at(at("date_format"), 1)
                    .hint("give the day, month and year, e.g. \"%d/%m/%Y\" for 14/05/2012"),
                );
            }
        }
        if diags.is_empty() {
            Ok(mapping)
        } else {
            Err(Error::Diagnostics(diags))
        }
    }

    /// This mapping with every column of `table` named, as `--save-mapping` writes it.
    pub(crate) fn completed(
        &self,
        table: &Table,
        columns: &[Target],
        schema: &CaseSchema,
    ) -> Mapping {
        let mut saved = self.clone();
        saved.list_separator = Some(self.separator().to_string());
        saved.date_format = Some(self.date_format().to_string());
        for (header, target) in table.header.iter().zip(columns) {
            if header.is_empty() {
                continue;
            }
            saved
                .columns
                .insert(header.clone(), target_name(schema, *target).to_string());
        }
        saved
    }

    pub(crate) fn to_toml(&self) -> String {
        let body = toml::to_string_pretty(self).expect("a mapping serialises");
        format!(
            "# casebook import mapping: which field each column fills (\"\" leaves a column out),\n\
             # how lists are separated and dates written, and cell values to translate.\n\
             # Use it with: casebook import SHEET --mapping THIS_FILE\n\n{body}"
        )
    }
}

fn target_names(schema: &CaseSchema) -> impl Iterator<Item = &str> {
    schema
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .chain(OTHER_COLUMNS.iter().map(|(n, ..)| *n))
}

fn target_named(schema: &CaseSchema, name: &str) -> Option<Target> {
    if name.is_empty() {
        return Some(Target::Ignored);
    }
    if let Some(i) = schema.fields.iter().position(|f| f.name == name) {
        return Some(Target::Field(i));
    }
    OTHER_COLUMNS
        .iter()
        .find(|(n, ..)| *n == name)
        .map(|(_, t, _)| *t)
}

pub(crate) fn target_name(schema: &CaseSchema, target: Target) -> &str {
    match target {
        Target::Field(i) => &schema.fields[i].name,
        Target::Ignored => "",
        other => OTHER_COLUMNS
            .iter()
            .find(|(_, t, _)| *t == other)
            .map_or("", |(n, ..)| *n),
    }
}

/// Headers compared as a person reads them: case, spaces, `_` and `-` ignored.
fn normalise(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c == '_' || c == '-')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The target of every column of `table`, or every column problem at once.
pub(crate) fn resolve(
    table: &Table,
    schema: &CaseSchema,
    mapping: &Mapping,
) -> std::result::Result<Vec<Target>, Vec<Diagnostic>> {
    // Every name a column may carry, normalised: names first, so a label never shadows a
    // field's own name.
    let mut known: Vec<(String, Target)> = Vec::new();
    for (i, f) in schema.fields.iter().enumerate() {
        known.push((normalise(&f.name), Target::Field(i)));
    }
    for (name, target, _) in OTHER_COLUMNS {
        known.push((normalise(name), target));
    }
    for (i, f) in schema.fields.iter().enumerate() {
        known.push((normalise(&f.label), Target::Field(i)));
        for texts in f.translated.values() {
            known.push((normalise(&texts.label), Target::Field(i)));
        }
    }
    let by_mapping: BTreeMap<String, &String> = mapping
        .columns
        .iter()
        .map(|(column, field)| (normalise(column), field))
        .collect();
    let mut diags = Vec::new();
    let mut targets = Vec::new();
    for (j, header) in table.header.iter().enumerate() {
        let column = j + 1;
        if header.trim().is_empty() {
            // A value under it is reported where it is met (`rows::Checker`).
            targets.push(Target::Ignored);
            continue;
        }
        let key = normalise(header);
        let target = match by_mapping.get(&key) {
            Some(field) => target_named(schema, field),
            None => known.iter().find(|(n, _)| *n == key).map(|(_, t)| *t),
        };
        match target {
            Some(t) => targets.push(t),
            None => {
                let names: Vec<&str> = schema
                    .fields
                    .iter()
                    .flat_map(|f| [f.name.as_str(), f.label.as_str()])
                    .chain(OTHER_COLUMNS.iter().map(|(n, ..)| *n))
                    .collect();
                let hint = did_you_mean(header, names.iter().copied())
                    .map(|d| format!("{d} Or leave it out with a mapping file line `\"{header}\" = \"\"` under [columns]"))
                    .unwrap_or_else(|| {
                        format!(
                            "rename the column to a case field ({}), or map it with a mapping file (--mapping) line `\"{header}\" = \"field\"` under [columns], `\"\"` to leave it out",
                            schema.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ")
                        )
                    });
                diags.push(
                    table
                        .at_header(column, format!("unknown column `{header}`"))
                        .hint(hint),
                );
                targets.push(Target::Ignored);
            }
        }
    }
    // One column per target.
    for (j, t) in targets.iter().enumerate() {
        if *t == Target::Ignored {
            continue;
        }
        if let Some(first) = targets[..j].iter().position(|u| u == t) {
            diags.push(
                table
                    .at_header(
                        j + 1,
                        format!(
                            "column `{}` fills `{}`, as column `{}` already does",
                            table.header[j],
                            target_name(schema, *t),
                            table.header[first]
                        ),
                    )
                    .hint("remove one of the two columns, or leave one out with a mapping file"),
            );
        }
    }
    let has = |t: Target| targets.contains(&t);
    let id = schema.fields.iter().position(|f| f.name == schema.id_field);
    if let Some(id) = id {
        if !has(Target::Field(id)) {
            diags.push(
                table
                    .at_header(0, format!("the id column `{}` is missing", schema.id_field))
                    .field(&schema.id_field)
                    .hint(format!(
                        "add a column headed `{}`: each row's case id",
                        schema.id_field
                    )),
            );
        }
    }
    for photo_part in [
        Target::PhotoAlt,
        Target::PhotoCaption,
        Target::PhotoSensitivity,
    ] {
        if has(photo_part) && !has(Target::Photos) {
            diags.push(
                table
                    .at_header(
                        targets
                            .iter()
                            .position(|t| *t == photo_part)
                            .map_or(0, |j| j + 1),
                        format!(
                            "a `{}` column needs a `photos` column",
                            target_name(schema, photo_part)
                        ),
                    )
                    .hint("add a `photos` column with each row's photograph file names"),
            );
        }
    }
    if diags.is_empty() {
        Ok(targets)
    } else {
        Err(diags)
    }
}

/// The required fields that have no column: needed only by rows that create a case.
pub(crate) fn missing_required(schema: &CaseSchema, targets: &[Target]) -> Vec<usize> {
    schema
        .fields
        .iter()
        .enumerate()
        .filter(|(i, f)| f.required && !targets.contains(&Target::Field(*i)))
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_read_as_people_write_them() {
        assert_eq!(normalise("  Detainee_Number "), "detainee number");
        assert_eq!(normalise("Age-range"), "age range");
        assert_eq!(normalise("رقم المعتقل"), "رقم المعتقل");
    }
}
