//! `casebook import`: case files from the spreadsheet a documentation team already keeps.
//!
//! read the sheet → name its columns → check every row → compare with the case files →
//! write. Nothing is written unless every row passes: all problems are reported at once,
//! each at its cell. A case the sheet does not name is listed, never deleted; a case it
//! names is changed only in the fields the sheet has columns for.

mod batch;
mod columns;
mod readback;
mod rows;
mod sheet;
mod template;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::casefile::{self, Change, NewPhoto};
use crate::config::{CaseSchema, Config};
use crate::content::FieldValue;
use crate::content::case::check_value;
use crate::content::front_matter::{self, Entry};
use crate::error::{Diagnostic, Error, Result};
use batch::{Batches, Gathered, Planner};
use columns::Mapping;
use rows::{Checker, PhotoCell, Problems, Record};
use sheet::Item;
pub use template::template;

/// What `casebook import` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The site folder.
    pub root: PathBuf,
    /// The sheet: `.csv`, `.xlsx` or `.ods`.
    pub file: PathBuf,
    /// The workbook's sheet to read (default: the first).
    pub sheet: Option<String>,
    /// A saved mapping file.
    pub mapping: Option<PathBuf>,
    /// Where to save the mapping this import used, for the next one.
    pub save_mapping: Option<PathBuf>,
    /// The folder holding the photographs a `photos` column names.
    pub photos: Option<PathBuf>,
    /// Report what would change, write nothing.
    pub dry_run: bool,
}

/// One field of a case that an import changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldChange {
    /// The front-matter key: a schema field, `title` or `photos`.
    pub field: String,
    /// The value as text; empty when the field was or becomes absent.
    pub before: String,
    /// The new value as text.
    pub after: String,
}

/// What an import did, or would do with `--dry-run`.
#[derive(Debug, Clone, Default)]
pub struct ImportReport {
    /// The sheet, as given.
    pub sheet: String,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// New case files, by id.
    pub created: Vec<(String, PathBuf)>,
    /// Changed case files: id, file, each changed field and the photographs added.
    pub changed: Vec<(String, PathBuf, Vec<FieldChange>)>,
    /// Cases the sheet names whose files already say what it says.
    pub unchanged: usize,
    /// Ids of the site's cases that the sheet does not name: left as they are.
    pub not_in_sheet: Vec<String>,
    /// Photographs copied into case folders.
    pub photos_copied: usize,
    /// Where the mapping was saved, if asked.
    pub mapping_saved: Option<PathBuf>,
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (create, change) = if self.dry_run {
            ("would create", "would change")
        } else {
            ("created", "changed")
        };
        for (_, path) in &self.created {
            writeln!(f, "{create} {}", path.display())?;
        }
        for (_, path, fields) in &self.changed {
            writeln!(f, "{change} {}", path.display())?;
            for c in fields {
                let show = |v: &str| {
                    if v.is_empty() {
                        "(none)".to_string()
                    } else {
                        format!("\"{v}\"")
                    }
                };
                writeln!(
                    f,
                    "  {}: {} -> {}",
                    c.field,
                    show(&c.before),
                    show(&c.after)
                )?;
            }
        }
        if !self.not_in_sheet.is_empty() {
            write!(
                f,
                "not in the sheet, left as they are: {}",
                self.not_in_sheet.join(", ")
            )?;
            writeln!(f)?;
        }
        if let Some(m) = &self.mapping_saved {
            writeln!(f, "saved the mapping to {}", m.display())?;
        }
        write!(
            f,
            "{}: {} {}, {} {}, {} unchanged, {} not in the sheet",
            self.sheet,
            self.created.len(),
            if self.dry_run { "to create" } else { "created" },
            self.changed.len(),
            if self.dry_run { "to change" } else { "changed" },
            self.unchanged,
            self.not_in_sheet.len()
        )?;
        if self.photos_copied > 0 {
            write!(f, ", {} photographs copied", self.photos_copied)?;
        }
        if self.dry_run {
            write!(f, " (dry run: nothing was written)")?;
        }
        Ok(())
    }
}

/// A case file of the site, as found.
struct Existing {
    /// The file, relative to the site root.
    display: PathBuf,
    text: String,
    entries: Vec<Entry>,
    /// Whether it is a bundle's `index.md`, which can hold photographs.
    bundle: bool,
}

/// What to do with one case file: write `text` to `file` and copy `photos` beside it.
pub(crate) struct Plan {
    id: String,
    /// Relative to the site root.
    pub(crate) file: PathBuf,
    pub(crate) text: String,
    pub(crate) photos: Vec<PhotoCell>,
    /// The fields an existing file changes in; `None` for a new file.
    changed: Option<Vec<FieldChange>>,
}

/// The site's case schema: without one there is nothing to import into.
fn case_schema(config: &Config) -> Result<&CaseSchema> {
    config.cases.as_ref().ok_or_else(|| {
        Error::one(
            Diagnostic::new(
                "casebook.toml",
                "the site declares no case schema ([cases])",
            )
            .hint(
                "add a [cases] table with its [[cases.fields]] first (see docs/configuration.md)",
            ),
        )
    })
}

/// The most text the cases of one import may hold while they wait to be written: a sheet of
/// 100,000 cases holds about 50 MiB. A cell can repeat a shared string, so a small workbook can
/// ask for any amount; this keeps the import's memory bounded whatever the sheet holds.
const KEPT_TEXT_LIMIT: usize = 96 << 20;

/// Runs an import. On any problem nothing is written and every problem is returned (the
/// first hundred listed, the rest counted).
pub fn import(options: &ImportOptions) -> Result<ImportReport> {
    let config = Config::load(&options.root)?;
    let schema = case_schema(&config)?;
    let mapping = match &options.mapping {
        Some(path) => Mapping::load(path, schema)?,
        None => Mapping::default(),
    };
    let display = options.file.display().to_string();
    let mut diags = Problems::default();
    let existing = existing_cases(&config, schema, &mut diags)?;

    // The sheet is read a row at a time and each row checked in order; rows that pass are
    // made into files and read back a batch at a time on the pool, while the next batch is
    // read and checked.
    let mut checker: Option<Checker> = None;
    let mut missing_columns = Vec::new();
    let mut named = std::collections::HashSet::new();
    let mut creates = false;
    let planner = Planner {
        schema,
        existing: &existing,
        root: &config.root,
    };
    let gathered = rayon::in_place_scope(|scope| -> Result<Gathered> {
        let mut batches = Batches::default();
        let source = sheet::Source {
            path: &options.file,
            display: &display,
            sheet: options.sheet.as_deref(),
            delimiter: mapping.csv_delimiter(),
        };
        source.read(&mut |item| {
            let (checker, row) = match item {
                Item::Header(table) => {
                    let targets =
                        columns::resolve(&table, schema, &mapping).map_err(Error::Diagnostics)?;
                    missing_columns = columns::missing_required(schema, &targets);
                    checker = Some(Checker::new(table, targets, schema, &mapping));
                    return Ok(());
                }
                Item::Empty { first, count } => {
                    if let Some(c) = checker.as_mut() {
                        c.empty(first, count);
                    }
                    return Ok(());
                }
                Item::Row(row) => match checker.as_mut() {
                    Some(c) => (c, row),
                    None => return Ok(()),
                },
            };
            if let Some(record) = checker.row(&row, &mut batches.problems) {
                named.insert(record.id.clone());
                let known = existing.contains_key(&record.id);
                creates |= !known;
                // Without a required column no new case can be made: reported once below.
                if known || missing_columns.is_empty() {
                    batches.push(row, record);
                }
            }
            batches.advance(scope, &planner, &checker.layout, &mut diags)
        })?;
        match &checker {
            Some(c) => batches.finish(scope, &planner, &c.layout, &mut diags),
            None => Ok(Gathered::default()),
        }
    })?;
    let Gathered {
        plans, unchanged, ..
    } = gathered;
    let Some(Checker { layout, .. }) = checker else {
        return Err(Error::one(Diagnostic::new(
            &display,
            "the sheet has no header row",
        )));
    };
    if creates {
        for &i in &missing_columns {
            let field = &schema.fields[i];
            diags.push(
                layout
                    .table
                    .at_header(0, format!("required column `{}` is missing: the sheet adds new cases, and each needs it", field.name))
                    .field(&field.name)
                    .hint(format!("add a column headed `{}` ({})", field.name, field.kind.describe())),
            );
        }
    }
    let photos_copied = check_photos(&config, options, &layout.table, &plans, &mut diags);
    if let Some(error) = diags.into_error() {
        return Err(error);
    }

    let mut present: Vec<&String> = existing.keys().collect();
    present.sort();
    let mut report = ImportReport {
        sheet: display,
        dry_run: options.dry_run,
        unchanged,
        not_in_sheet: present
            .into_iter()
            .filter(|id| !named.contains(id.as_str()))
            .cloned()
            .collect(),
        photos_copied,
        ..ImportReport::default()
    };
    if !options.dry_run {
        write(&options.root, options.photos.as_deref(), &plans)?;
    }
    if let Some(path) = &options.save_mapping {
        let saved = mapping.completed(&layout.table, &layout.targets, schema);
        crate::output::save_atomically(path, saved.to_toml().as_bytes())
            .map_err(|e| Error::io(path, e))?;
        report.mapping_saved = Some(path.clone());
    }
    for plan in plans {
        match plan.changed {
            None => report.created.push((plan.id, plan.file)),
            Some(fields) => report.changed.push((plan.id, plan.file, fields)),
        }
    }
    report.created.sort();
    report.changed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(report)
}

/// Every default-language case file of the site, by id.
fn existing_cases(
    config: &Config,
    schema: &CaseSchema,
    diags: &mut Problems,
) -> Result<HashMap<String, Existing>> {
    let files = crate::content::case_files(config, &schema.section)?;
    let found: Vec<std::result::Result<(String, Existing), Diagnostic>> = files
        .par_iter()
        .filter_map(|path| {
            let display = path
                .strip_prefix(&config.root)
                .unwrap_or(path)
                .to_path_buf();
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => return Some(Err(Diagnostic::new(&display, format!("cannot read: {e}")))),
            };
            let entries = match front_matter::parse(&display, &text) {
                Ok(doc) => doc.entries,
                Err(d) => return Some(Err(d)),
            };
            let id = entries
                .iter()
                .find(|e| e.key == schema.id_field)
                .and_then(|e| e.value.as_str())?
                .to_string();
            let bundle = path.file_name().is_some_and(|n| n == "index.md");
            Some(Ok((
                id,
                Existing {
                    display,
                    text,
                    entries,
                    bundle,
                },
            )))
        })
        .collect();
    let mut out = HashMap::new();
    for item in found {
        match item {
            Ok((id, file)) => {
                out.insert(id, file);
            }
            Err(d) => diags.push(d.hint(
                "the import compares every case file with the sheet: correct this file first",
            )),
        }
    }
    Ok(out)
}

/// A value as a reader compares it: an empty list is no value, and text is the same without
/// spaces at either end and with LF line ends (cells are trimmed; spreadsheets write CRLF).
fn meaningful(value: Option<FieldValue>) -> Option<FieldValue> {
    value
        .filter(|v| !matches!(v, FieldValue::List(items) if items.is_empty()))
        .map(|v| match v {
            FieldValue::Str(s) => FieldValue::Str(sheet::lf_line_ends(s.trim())),
            other => other,
        })
}

fn text_of(value: &Option<FieldValue>) -> String {
    value.as_ref().map(FieldValue::to_text).unwrap_or_default()
}

/// The changes a record makes to an existing case file, if any.
fn change(
    schema: &CaseSchema,
    record: &Record,
    file: &Existing,
) -> std::result::Result<Option<Plan>, Diagnostic> {
    let entry = |key: &str| file.entries.iter().find(|e| e.key == key);
    let mut changes = Vec::new();
    let mut fields = Vec::new();
    for (i, value) in &record.fields {
        let field = &schema.fields[*i];
        let current = entry(&field.name);
        let checked = current.map(|e| check_value(field, &e.value));
        let after = meaningful(value.clone());
        // A value the file holds but the schema refuses is replaced whatever the sheet says.
        let valid = !matches!(checked, Some(Err(_)));
        if valid && meaningful(checked.clone().and_then(Result::ok)) == after {
            continue;
        }
        let before = match (current, checked) {
            (Some(_), Some(Ok(v))) => v.to_text(),
            (Some(e), _) => toml_text(&e.value),
            (None, _) => String::new(),
        };
        fields.push(FieldChange {
            field: field.name.clone(),
            before,
            after: text_of(&after),
        });
        changes.push(match after {
            Some(v) => Change::Set(field.name.clone(), v),
            None => Change::Remove(field.name.clone()),
        });
    }
    if let Some(title) = &record.title {
        if entry("title").and_then(|e| e.value.as_str()) != Some(title.as_str()) {
            fields.push(FieldChange {
                field: "title".into(),
                before: entry("title")
                    .map(|e| toml_text(&e.value))
                    .unwrap_or_default(),
                after: title.clone(),
            });
            changes.push(Change::Set("title".into(), FieldValue::Str(title.clone())));
        }
    }
    let have: Vec<&str> = entry("photos")
        .and_then(|e| e.value.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|p| p.get("file").and_then(|f| f.as_str()))
                .collect()
        })
        .unwrap_or_default();
    let photos: Vec<PhotoCell> = record
        .photos
        .iter()
        .filter(|p| !have.contains(&p.file.as_str()))
        .cloned()
        .collect();
    for p in &photos {
        fields.push(FieldChange {
            field: "photos".into(),
            before: String::new(),
            after: p.file.clone(),
        });
    }
    if changes.is_empty() && photos.is_empty() {
        return Ok(None);
    }
    if !photos.is_empty() && !file.bundle {
        return Err(Diagnostic::new(&file.display, format!("case {} gets photographs from the sheet, but its file is not a bundle", record.id))
            .hint("move the file to a folder of its own as index.md, so the photographs can sit beside it"));
    }
    let text = casefile::apply(&file.text, &changes, &new_photos(&photos)).map_err(|m| {
        Diagnostic::new(
            &file.display,
            format!("cannot update the front matter: {m}"),
        )
    })?;
    Ok(Some(Plan {
        id: record.id.clone(),
        file: file.display.clone(),
        text,
        photos,
        changed: Some(fields),
    }))
}

fn toml_text(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The sheet's photographs as the case-file editor adds them.
fn new_photos(cells: &[PhotoCell]) -> Vec<NewPhoto> {
    cells
        .iter()
        .map(|c| NewPhoto {
            file: c.file.clone(),
            alt: c.alt.clone(),
            caption: c.caption.clone(),
            sensitivity: c.sensitivity,
        })
        .collect()
}

/// A new case file for a record.
fn create(schema: &CaseSchema, record: &Record) -> Plan {
    let id_label = schema
        .field(&schema.id_field)
        .map_or("Case", |f| f.label.as_str());
    let title = record
        .title
        .clone()
        .unwrap_or_else(|| format!("{id_label} {}", record.id));
    let fields: Vec<(&str, &FieldValue)> = record
        .fields
        .iter()
        .filter_map(|(i, v)| Some((schema.fields[*i].name.as_str(), v.as_ref()?)))
        .collect();
    Plan {
        id: record.id.clone(),
        file: Path::new("content")
            .join(&schema.section)
            .join(&record.id)
            .join("index.md"),
        text: casefile::new_file(&title, &fields, &new_photos(&record.photos)),
        photos: record.photos.clone(),
        changed: None,
    }
}

/// Checks every photograph the plans add: a plain file name, in `--photos`, an image casebook
/// can read, not clashing with another file in the case folder. Returns how many to copy.
fn check_photos(
    config: &Config,
    options: &ImportOptions,
    table: &sheet::Table,
    plans: &[Plan],
    diags: &mut Problems,
) -> usize {
    let adds: Vec<(&Path, &PhotoCell)> = plans
        .iter()
        .flat_map(|p| p.photos.iter().map(|photo| (p.file.as_path(), photo)))
        .collect();
    if adds.is_empty() {
        return 0;
    }
    let Some(dir) = &options.photos else {
        diags.push(
            table
                .at_header(
                    0,
                    "the sheet names photographs, but no folder to take them from",
                )
                .hint("give the folder that holds them: --photos DIR"),
        );
        return 0;
    };
    let problems: Vec<Diagnostic> = adds
        .par_iter()
        .filter_map(|(case_file, photo)| {
            let at = |m: String| table.at(photo.at, m).field("photos");
            let plain = Path::new(&photo.file)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
                && !photo.file.contains(['/', '\\']);
            if !plain {
                return Some(at(format!("`{}` is not a plain file name", photo.file)).hint("name the file only, without folders: it is looked for in --photos"));
            }
            if photo.alt.as_deref().is_none_or(|a| a.trim().is_empty()) {
                return Some(at(format!("photograph `{}` has no alt text", photo.file)).hint("add a photo_alt column: one description per photograph, for people who cannot see it"));
            }
            let source = dir.join(&photo.file);
            let bytes = match std::fs::read(&source) {
                Ok(b) => b,
                Err(e) => {
                    return Some(at(format!("`{}` cannot be read in {}: {e}", photo.file, dir.display()))
                        .hint("check the file name's spelling and the --photos folder"));
                }
            };
            if let Err(m) = crate::images::decode::check_readable(&bytes, &config.images) {
                return Some(at(format!("`{}`: {m}", photo.file)));
            }
            let target = config.root.join(case_file.parent().unwrap_or(Path::new(""))).join(&photo.file);
            match std::fs::read(&target) {
                Ok(old) if old != bytes => Some(at(format!("the case folder already has a different `{}`", photo.file)).hint("rename one of the two files")),
                _ => None,
            }
        })
        .collect();
    diags.extend(problems);
    adds.len()
}

/// Writes every plan, photographs first: a changed file is replaced whole, by renaming a
/// finished copy over it.
fn write(root: &Path, photos: Option<&Path>, plans: &[Plan]) -> Result<()> {
    plans.par_iter().try_for_each(|plan| {
        let path = root.join(&plan.file);
        let folder = path.parent().unwrap_or(root);
        if plan.changed.is_none() {
            std::fs::create_dir_all(folder).map_err(|e| Error::io(folder, e))?;
        }
        if let Some(dir) = photos {
            for photo in &plan.photos {
                let target = folder.join(&photo.file);
                if !target.exists() {
                    std::fs::copy(dir.join(&photo.file), &target)
                        .map_err(|e| Error::io(&target, e))?;
                }
            }
        }
        match plan.changed {
            None => std::fs::write(&path, &plan.text),
            Some(_) => crate::output::save_atomically(&path, plan.text.as_bytes()),
        }
        .map_err(|e| Error::io(&path, e))
    })
}
