//! Facets: for every schema field marked as a facet, which cases carry which value.
//!
//! Enum and list facets list every declared value (zero counts included, so an index shows
//! what could be there); dates facet by year, and each year by its months (so a chart's
//! month bar has a page to lead to); other fields by their distinct values.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use chrono::Datelike;

use super::views::facet_value_path;
use crate::config::{Config, FieldType};
use crate::content::{Corpus, FieldValue};
use crate::locale::format_month;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Facet {
    /// The URL segment (`branch`).
    pub(crate) name: String,
    pub(crate) field: String,
    pub(crate) label: String,
    /// The field's description from the schema, if any.
    pub(crate) description: Option<String>,
    pub(crate) lang: String,
    /// `/cases/branch/`
    pub(crate) path: String,
    pub(crate) values: Vec<FacetValue>,
    #[serde(skip)]
    pub(crate) source: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct FacetValue {
    pub(crate) value: String,
    pub(crate) label: String,
    pub(crate) path: String,
    pub(crate) count: usize,
    /// Indices into `Corpus::pages`, in the case section's order.
    #[serde(skip)]
    pub(crate) pages: Vec<usize>,
    /// A date facet's year: its months that have cases, in order, each with its own page.
    pub(crate) months: Vec<FacetValue>,
    /// A month: the year it belongs to.
    pub(crate) parent: Option<ParentValue>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ParentValue {
    pub(crate) label: String,
    pub(crate) path: String,
}

impl Facet {
    /// Every value with its own page: the values, each followed by its months (a date
    /// facet's years).
    pub(crate) fn values_and_months(&self) -> impl Iterator<Item = &FacetValue> {
        self.values
            .iter()
            .flat_map(|v| std::iter::once(v).chain(&v.months))
    }

    /// A value of the facet by key: a year's months (`2013-05`) included.
    pub(crate) fn value(&self, key: &str) -> Option<&FacetValue> {
        self.values_and_months().find(|v| v.value == key)
    }
}

pub(super) fn compute(config: &Config, corpus: &Corpus) -> Vec<Facet> {
    let Some(schema) = &config.cases else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for lang in &config.languages {
        let Some(section_index) = corpus.case_section(&lang.code) else {
            continue;
        };
        let section = &corpus.sections[section_index];
        for (field, facet_name) in schema.facets() {
            let mut by_key: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for &p in &section.pages {
                let Some(value) = corpus.pages[p]
                    .case
                    .as_ref()
                    .and_then(|c| c.values.get(&field.name))
                else {
                    continue;
                };
                for key in value.facet_keys() {
                    by_key.entry(key).or_default().push(p);
                }
            }
            let keys: Vec<String> = match field.kind {
                FieldType::Enum | FieldType::List => field.values.clone(),
                _ => by_key.keys().cloned().collect(),
            };
            let path = format!("{}{facet_name}/", section.meta.path);
            let values = keys
                .into_iter()
                .map(|key| {
                    let pages = by_key.remove(&key).unwrap_or_default();
                    let path = facet_value_path(&section.meta.path, facet_name, &key);
                    let label = field.value_label_in(&key, &lang.code).to_string();
                    let months = if field.kind == FieldType::Date {
                        months_of(
                            corpus,
                            &field.name,
                            &pages,
                            (&key, &label, &path),
                            &lang.code,
                        )
                    } else {
                        Vec::new()
                    };
                    FacetValue {
                        label,
                        path,
                        count: pages.len(),
                        value: key,
                        pages,
                        months,
                        parent: None,
                    }
                })
                .collect();
            out.push(Facet {
                name: facet_name.to_string(),
                field: field.name.clone(),
                label: field.facet_label_in(&lang.code).to_string(),
                description: field.description_in(&lang.code).map(str::to_string),
                lang: lang.code.clone(),
                path,
                values,
                source: PathBuf::from("casebook.toml"),
            });
        }
    }
    out
}

/// The months of one year's cases (`pages`, in section order), each a value of its own at
/// `<year path>MM/`.
fn months_of(
    corpus: &Corpus,
    field: &str,
    pages: &[usize],
    (year, year_label, year_path): (&str, &str, &str),
    lang: &str,
) -> Vec<FacetValue> {
    let year: i32 = year.parse().unwrap_or_default();
    let mut by_month: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for &p in pages {
        let date = corpus.pages[p]
            .case
            .as_ref()
            .and_then(|c| c.values.get(field));
        if let Some(FieldValue::Date(d)) = date {
            by_month.entry(d.month()).or_default().push(p);
        }
    }
    by_month
        .into_iter()
        .map(|(month, pages)| FacetValue {
            value: format!("{year:04}-{month:02}"),
            label: format_month(year, month, lang),
            path: format!("{year_path}{month:02}/"),
            count: pages.len(),
            pages,
            months: Vec::new(),
            parent: Some(ParentValue {
                label: year_label.to_string(),
                path: year_path.to_string(),
            }),
        })
        .collect()
}
