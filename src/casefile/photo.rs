//! Editing one photograph's entry of a case file (the workbench of `casebook serve`): its
//! regions, sensitivity, alt text, caption and review; and its alt text and caption in a
//! translation file.
//!
//! TOML front matter is edited with `toml_edit`, in `[[photos]]` tables or an inline
//! `photos = [ { ... } ]` list alike; YAML in block style by its lines (`photo_yaml.rs`).
//! Either way the result is parsed again and compared with the file as it was: every key
//! but the ones edited must read the same, and the edited ones must read as asked, or the
//! edit is refused and nothing is written.

use toml_edit::{DocumentMut, InlineTable, Item, TableLike, Value};

use super::fields::toml_string;
use super::{Form, Parts, split};
use crate::config::Sensitivity;
use crate::content::review::{COVERS_LEN, fraction};
use crate::content::{RedactMethod, Region, Review};

#[path = "photo_yaml.rs"]
mod yaml;

/// What to change in one photograph's entry; `None` leaves a key as it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PhotoEdit {
    /// Some: replace the list (empty: remove the key).
    pub(crate) redact: Option<Vec<Region>>,
    pub(crate) sensitivity: Option<Sensitivity>,
    pub(crate) alt: Option<String>,
    /// Some(None): remove.
    pub(crate) caption: Option<Option<String>>,
    /// Some(None): remove.
    pub(crate) reviewed: Option<Option<Review>>,
}

/// One key's new value in an entry: `None` removes it.
type Set = (&'static str, Option<Written>);

/// A value as it is written, in either language.
#[derive(Debug, Clone, PartialEq)]
enum Written {
    Text(String),
    /// A bare word (`graphic`): a string in TOML, a plain scalar in YAML.
    Word(&'static str),
    Regions(Vec<Region>),
    Review(Review),
}

/// The case file's text with the entry for photograph `file` (its `file` value) edited.
pub(crate) fn edit_photo(text: &str, file: &str, edit: &PhotoEdit) -> Result<String, String> {
    let mut sets: Vec<Set> = Vec::new();
    if let Some(regions) = &edit.redact {
        let regions = regions
            .iter()
            .map(checked_region)
            .collect::<Result<Vec<_>, _>>()?;
        sets.push((
            "redact",
            (!regions.is_empty()).then_some(Written::Regions(regions)),
        ));
    }
    if let Some(s) = edit.sensitivity {
        sets.push(("sensitivity", Some(Written::Word(s.name()))));
    }
    if let Some(alt) = &edit.alt {
        sets.push(("alt", Some(Written::Text(non_empty(alt, "alt text")?))));
    }
    if let Some(caption) = &edit.caption {
        let caption = caption.as_deref().map(str::trim).filter(|c| !c.is_empty());
        sets.push(("caption", caption.map(|c| Written::Text(c.to_string()))));
    }
    if let Some(review) = &edit.reviewed {
        sets.push(("reviewed", review.as_ref().map(checked_review).transpose()?));
    }
    edit_entry(text, file, &sets, false)
}

/// A translation file's text with that photograph's `alt`/`caption` set (its `[[photos]]`
/// entry added, by `file`, if missing).
pub(crate) fn edit_translated_photo(
    text: &str,
    file: &str,
    alt: Option<&str>,
    caption: Option<Option<&str>>,
) -> Result<String, String> {
    let mut sets: Vec<Set> = Vec::new();
    if let Some(alt) = alt {
        sets.push(("alt", Some(Written::Text(non_empty(alt, "alt text")?))));
    }
    if let Some(caption) = caption {
        let caption = caption.map(str::trim).filter(|c| !c.is_empty());
        sets.push(("caption", caption.map(|c| Written::Text(c.to_string()))));
    }
    edit_entry(text, file, &sets, true)
}

fn non_empty(text: &str, what: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("the {what} is empty"));
    }
    Ok(text.to_string())
}

/// The region as it will be written, if it is one the build accepts.
fn checked_region(r: &Region) -> Result<Region, String> {
    let numbers = [r.x, r.y, r.w, r.h];
    if numbers
        .iter()
        .any(|v| !v.is_finite() || !(0.0..=1.0).contains(v))
    {
        return Err(format!(
            "a region's x, y, w and h must be fractions from 0 to 1: {r:?}"
        ));
    }
    let n = r.normalized();
    if n.w <= 0.0 || n.h <= 0.0 {
        return Err(format!(
            "a region is empty once rounded to 4 decimals: {r:?}"
        ));
    }
    Ok(n)
}

fn checked_review(r: &Review) -> Result<Written, String> {
    let by = non_empty(&r.by, "reviewer's name")?;
    chrono::NaiveDate::parse_from_str(&r.on, "%Y-%m-%d")
        .map_err(|_| format!("`{}` is not a date written YYYY-MM-DD", r.on))?;
    let covers = r.covers.to_ascii_lowercase();
    if covers.len() != COVERS_LEN || !covers.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "`{}` is not what review_covers gives (16 hexadecimal digits)",
            r.covers
        ));
    }
    Ok(Written::Review(Review {
        by,
        on: r.on.clone(),
        covers,
    }))
}

/// Makes `sets` in the entry of `file` (added if `add` and missing), then checks that the
/// file reads as before apart from them.
fn edit_entry(text: &str, file: &str, sets: &[Set], add: bool) -> Result<String, String> {
    let parts = split(text)?;
    let block = match parts.form {
        Form::Toml => edit_toml(&parts.block, file, sets, add)?,
        Form::Yaml => yaml::edit(&parts.block, file, sets, add)?,
    };
    let out = parts.join(&block);
    verify(&parts, text, &out, file, sets).map_err(|problem| match parts.form {
        Form::Toml => format!("the edit was refused, nothing was changed: {problem}"),
        Form::Yaml => format!(
            "casebook cannot make this edit and keep the form of this file's YAML front matter ({problem}); nothing was changed. Edit the photograph's entry by hand, or convert the front matter to TOML (+++), which the workbench edits in any form"
        ),
    })?;
    Ok(out)
}

fn edit_toml(block: &str, file: &str, sets: &[Set], add: bool) -> Result<String, String> {
    let mut doc: DocumentMut = block.parse().map_err(|e| format!("{e}"))?;
    let inline = matches!(doc.get("photos"), Some(Item::Value(_)));
    let entry = match toml_entry(&mut doc, file)? {
        Some(entry) => entry,
        None if add => add_toml_entry(&mut doc, file)?,
        None => return Err(format!("no photograph `{file}` in this file's photos")),
    };
    for (key, value) in sets {
        match value {
            Some(value) => set(entry, key, toml_value(value), inline),
            None => {
                entry.remove(key);
            }
        }
    }
    Ok(doc.to_string())
}

/// The entry of `file` in `photos`, as `[[photos]]` tables or an inline list.
fn toml_entry<'d>(
    doc: &'d mut DocumentMut,
    file: &str,
) -> Result<Option<&'d mut dyn TableLike>, String> {
    let Some(photos) = doc.get_mut("photos") else {
        return Ok(None);
    };
    let entries: Vec<&mut dyn TableLike> = match photos {
        Item::ArrayOfTables(tables) => tables.iter_mut().map(|t| t as &mut dyn TableLike).collect(),
        Item::Value(Value::Array(list)) => list
            .iter_mut()
            .filter_map(Value::as_inline_table_mut)
            .map(|t| t as &mut dyn TableLike)
            .collect(),
        _ => return Err("`photos` is not a list of photographs".into()),
    };
    let mut found: Vec<&mut dyn TableLike> = entries
        .into_iter()
        .filter(|t| t.get("file").and_then(Item::as_str).map(str::trim) == Some(file))
        .collect();
    if found.len() > 1 {
        return Err(format!("photograph `{file}` is listed more than once"));
    }
    Ok(found.pop())
}

fn add_toml_entry<'d>(
    doc: &'d mut DocumentMut,
    file: &str,
) -> Result<&'d mut dyn TableLike, String> {
    let photos = doc
        .entry("photos")
        .or_insert(Item::ArrayOfTables(Default::default()));
    let mut entry = toml_edit::Table::new();
    entry.insert("file", toml_edit::value(toml_string(file)));
    match photos {
        Item::ArrayOfTables(tables) => {
            tables.push(entry);
            Ok(tables.iter_mut().last().expect("just pushed"))
        }
        Item::Value(Value::Array(list)) => {
            list.push(entry.into_inline_table());
            let last = list.iter_mut().last().expect("just pushed");
            Ok(last.as_inline_table_mut().expect("just pushed"))
        }
        _ => Err("`photos` is not a list of photographs".into()),
    }
}

/// Sets `key` to `value`, in the place and with the spacing and comment of its old value.
/// A key new to an inline table (`inline`) takes the space before its `}` from the last.
fn set(entry: &mut dyn TableLike, key: &str, value: Value, inline: bool) {
    if let Some(old) = entry.get_mut(key).and_then(Item::as_value_mut) {
        let decor = old.decor().clone();
        *old = value;
        *old.decor_mut() = decor;
        return;
    }
    let mut last_suffix = None;
    if inline {
        if let Some((_, Item::Value(last))) = entry.iter_mut().last() {
            last_suffix = last.decor().suffix().cloned();
            last.decor_mut().set_suffix("");
        }
    }
    entry.insert(key, Item::Value(value));
    if let Some(suffix) = last_suffix {
        if let Some(new) = entry.get_mut(key).and_then(Item::as_value_mut) {
            new.decor_mut().set_suffix(suffix);
        }
    }
}

fn toml_value(value: &Written) -> Value {
    match value {
        Written::Text(text) => toml_string(text),
        Written::Word(word) => (*word).into(),
        Written::Regions(regions) => {
            let mut list = String::from("[\n");
            for r in regions {
                list.push_str(&format!("  {},\n", region_text(r, " =")));
            }
            list.push(']');
            list.parse().expect("regions written as TOML parse")
        }
        Written::Review(review) => {
            let mut table = InlineTable::new();
            table.insert("by", toml_string(&review.by));
            let on: toml_edit::Datetime = review.on.parse().expect("checked as a date");
            table.insert("on", on.into());
            table.insert("covers", review.covers.as_str().into());
            Value::InlineTable(table)
        }
    }
}

/// `{ x = 0.3, y = 0.05, w = 0.4, h = 0.3 }` (TOML, `assign` " =") or `{ x: 0.3, ... }`
/// (YAML, ":"); `method` only when not `fill`.
fn region_text(r: &Region, assign: &str) -> String {
    let mut text = format!(
        "{{ x{assign} {}, y{assign} {}, w{assign} {}, h{assign} {}",
        fraction(r.x),
        fraction(r.y),
        fraction(r.w),
        fraction(r.h)
    );
    if r.method == RedactMethod::Pixelate {
        text.push_str(&format!(", method{assign} \"pixelate\""));
    }
    text.push_str(" }");
    text
}

/// The value `written` reads as, for comparing; dates as text, as YAML reads them.
fn expected(written: &Written) -> toml::Value {
    match written {
        Written::Text(t) => toml::Value::String(t.clone()),
        Written::Word(w) => toml::Value::String((*w).to_string()),
        Written::Regions(regions) => toml::Value::Array(
            regions
                .iter()
                .map(|r| {
                    let mut t = toml::Table::new();
                    for (k, v) in [("x", r.x), ("y", r.y), ("w", r.w), ("h", r.h)] {
                        t.insert(k.into(), toml::Value::Float(fraction(v).parse().unwrap()));
                    }
                    if r.method == RedactMethod::Pixelate {
                        t.insert("method".into(), toml::Value::String("pixelate".into()));
                    }
                    toml::Value::Table(t)
                })
                .collect(),
        ),
        Written::Review(r) => {
            let mut t = toml::Table::new();
            t.insert("by".into(), toml::Value::String(r.by.clone()));
            t.insert("on".into(), toml::Value::String(r.on.clone()));
            t.insert("covers".into(), toml::Value::String(r.covers.clone()));
            toml::Value::Table(t)
        }
    }
}

/// `value` with every date as its text, so TOML and YAML front matter compare alike.
fn plain(value: &toml::Value) -> toml::Value {
    match value {
        toml::Value::Datetime(d) => toml::Value::String(d.to_string()),
        toml::Value::Array(a) => toml::Value::Array(a.iter().map(plain).collect()),
        toml::Value::Table(t) => {
            toml::Value::Table(t.iter().map(|(k, v)| (k.clone(), plain(v))).collect())
        }
        other => other.clone(),
    }
}

/// The top-level keys of a file's front matter, as plain values.
fn read(text: &str) -> Result<toml::Table, String> {
    let doc = crate::content::front_matter::parse(std::path::Path::new("edited"), text)
        .map_err(|d| format!("the result does not parse: {}", d.message))?;
    Ok(doc
        .entries
        .into_iter()
        .map(|e| (e.key, plain(&e.value)))
        .collect())
}

/// Checks that `after` reads as `before` with exactly `sets` made in the entry of `file`
/// (a new entry holding only `file` and `sets`), and that the body is unchanged.
fn verify(
    parts: &Parts,
    before: &str,
    after: &str,
    file: &str,
    sets: &[Set],
) -> Result<(), String> {
    let (mut old, mut new) = (read(before)?, read(after)?);
    if !after.starts_with(&parts.head) || !after.ends_with(parts.tail) {
        return Err("the body would change".into());
    }
    let entries = |t: &mut toml::Table| match t.remove("photos") {
        Some(toml::Value::Array(a)) => a,
        _ => Vec::new(),
    };
    let (mut old_photos, new_photos) = (entries(&mut old), entries(&mut new));
    if old != new {
        return Err("keys other than `photos` would change".into());
    }
    let is_file =
        |v: &toml::Value| v.get("file").and_then(toml::Value::as_str).map(str::trim) == Some(file);
    let at = match old_photos.iter().position(is_file) {
        Some(i) => i,
        None => {
            let mut t = toml::Table::new();
            t.insert("file".into(), toml::Value::String(file.into()));
            old_photos.push(toml::Value::Table(t));
            old_photos.len() - 1
        }
    };
    if let Some(toml::Value::Table(entry)) = old_photos.get_mut(at) {
        for (key, value) in sets {
            match value {
                Some(v) => entry.insert((*key).into(), expected(v)),
                None => entry.remove(*key),
            };
        }
    }
    if old_photos != new_photos {
        return Err(format!(
            "the photographs would not read as asked: {}",
            toml::Value::Array(new_photos)
        ));
    }
    Ok(())
}

#[cfg(test)]
#[path = "photo_tests.rs"]
mod tests;
