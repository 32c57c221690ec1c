//! Facets: for every schema field marked as a facet, which cases carry which value.
//!
//! Enum and list facets list every declared value (zero counts included, so an index shows
//! what could be there); dates facet by year; other fields by their distinct values.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::views::facet_value_path;
use crate::config::{Config, FieldType};
use crate::content::Corpus;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Facet {
    /// The URL segment (`branch`).
    pub name: String,
    pub field: String,
    pub label: String,
    /// The field's description from the schema, if any.
    pub description: Option<String>,
    pub lang: String,
    /// `/cases/branch/`
    pub path: String,
    pub values: Vec<FacetValue>,
    #[serde(skip)]
    pub source: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FacetValue {
    pub value: String,
    pub label: String,
    pub path: String,
    pub count: usize,
    /// Indices into `Corpus::pages`, in the case section's order.
    #[serde(skip)]
    pub pages: Vec<usize>,
}

pub fn compute(config: &Config, corpus: &Corpus) -> Vec<Facet> {
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
                    FacetValue {
                        label: field.value_label_in(&key, &lang.code).to_string(),
                        path: facet_value_path(&section.meta.path, facet_name, &key),
                        count: pages.len(),
                        value: key,
                        pages,
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
