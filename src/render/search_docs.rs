//! What the search index is built from: every section and page of each language as a
//! `search::Doc`, and the schema facets as document tables.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::facets::Facet;
use super::views::{case_view, format_date};
use crate::config::{Config, FieldType, Sensitivity};
use crate::content::{Corpus, FieldValue, Meta, Page};
use crate::images::ImageSet;
use crate::markdown::Rendered;
use crate::search::{Doc, FacetEntry, FacetTable, LangInput};

/// Every page as a search document; a page's document that `earlier` has (made by an
/// earlier build for the same page) is taken from it.
pub(super) fn page_docs(
    config: &Config,
    corpus: &Corpus,
    images: &ImageSet,
    page_md: &[Arc<Rendered>],
    earlier: impl Fn(usize) -> Option<Arc<Doc>> + Sync,
) -> Vec<Arc<Doc>> {
    corpus
        .pages
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            earlier(i).unwrap_or_else(|| {
                Arc::new(doc(config, corpus, images, &p.meta, &page_md[i], Some(p)))
            })
        })
        .collect()
}

/// Each language's documents (its sections, then its pages) and facet tables.
pub(super) fn inputs(
    config: &Config,
    corpus: &Corpus,
    section_md: &[Rendered],
    page_docs: &[Arc<Doc>],
    facets: &[Facet],
) -> Vec<LangInput> {
    config
        .languages
        .iter()
        .map(|lang| {
            let lang = &lang.code;
            let no_images = ImageSet::default();
            let mut docs: Vec<Arc<Doc>> = corpus
                .sections
                .iter()
                .zip(section_md)
                .filter(|(s, _)| &s.meta.lang == lang)
                .map(|(s, r)| Arc::new(doc(config, corpus, &no_images, &s.meta, r, None)))
                .collect();
            let offset = docs.len();
            let pages: Vec<usize> = (0..corpus.pages.len())
                .filter(|&i| &corpus.pages[i].meta.lang == lang)
                .collect();
            docs.par_extend(pages.par_iter().map(|&i| page_docs[i].clone()));
            let doc_of_page: HashMap<usize, usize> = pages
                .iter()
                .enumerate()
                .map(|(d, i)| (*i, offset + d))
                .collect();
            let tables = facets
                .iter()
                .filter(|f| &f.lang == lang)
                .map(|f| FacetTable {
                    name: f.name.clone(),
                    label: f.label.clone(),
                    multi: config
                        .cases
                        .as_ref()
                        .and_then(|s| s.field(&f.field))
                        .is_some_and(|field| field.kind == FieldType::List),
                    values: f
                        .values
                        .iter()
                        .map(|v| FacetEntry {
                            value: v.value.clone(),
                            label: v.label.clone(),
                            docs: v
                                .pages
                                .iter()
                                .filter_map(|p| doc_of_page.get(p).copied())
                                .collect(),
                        })
                        .collect(),
                })
                .collect();
            LangInput {
                lang: lang.clone(),
                docs,
                facets: tables,
            }
        })
        .collect()
}

/// One section (without photographs: sections have none) or page as a search document.
fn doc(
    config: &Config,
    corpus: &Corpus,
    images: &ImageSet,
    meta: &Meta,
    rendered: &Rendered,
    page: Option<&Page>,
) -> Doc {
    let mut doc = Doc {
        path: meta.path.clone(),
        title: meta.title.clone(),
        summary: meta
            .description
            .clone()
            .unwrap_or_else(|| rendered.text.chars().take(400).collect()),
        info: meta
            .date
            .as_ref()
            .map(|d| format_date(d, &meta.lang))
            .unwrap_or_default(),
        date: meta.date.as_ref().map(|d| d.date_naive()),
        text: rendered.text.clone(),
        ..Doc::default()
    };
    if let Some(description) = &meta.description {
        doc.text = format!("{description} {}", doc.text);
    }
    // Never the photograph itself: only the blurred placeholder of a graphic one.
    doc.thumb = meta.photos.first().and_then(|spec| {
        (spec.sensitivity == Sensitivity::Graphic)
            .then(|| images.get(spec))
            .flatten()
            .map(|out| out.placeholder.path.clone())
    });
    if let Some(page) = page {
        doc.title_lang = page.title_lang.clone().unwrap_or_default();
        doc.summary_lang = page.summary_lang().unwrap_or_default().to_string();
    }
    let (Some(schema), Some(page)) = (&config.cases, page) else {
        return doc;
    };
    let Some(case) = &page.case else {
        return doc;
    };
    let section_path = &corpus.sections[page.section].meta.path;
    let view = case_view(schema, case, section_path, &meta.lang);
    doc.synthetic = view.synthetic;
    doc.info = view
        .columns
        .iter()
        .filter(|c| !c.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(" · ");
    if doc.date.is_none() {
        doc.date = schema
            .fields
            .iter()
            .find_map(|f| match case.values.get(&f.name) {
                Some(FieldValue::Date(d)) if f.kind == FieldType::Date => Some(*d),
                _ => None,
            });
    }
    doc.identifiers.push(case.id.clone());
    for parts in &config.search.identifiers {
        let values: Option<Vec<String>> = parts
            .iter()
            .map(|p| case.values.get(p).map(FieldValue::to_text))
            .collect();
        if let Some(values) = values {
            let joined = values.join("/");
            if !doc.identifiers.contains(&joined) {
                doc.identifiers.push(joined);
            }
        }
    }
    for name in &config.search.names {
        let (Some(value), Some(def)) = (case.values.get(name), schema.field(name)) else {
            continue;
        };
        // An enum of places is found by its label in this language as well as its value.
        let items = match value {
            FieldValue::List(items) => items.clone(),
            other => vec![other.to_text()],
        };
        for item in items {
            let label = def.value_label_in(&item, &meta.lang);
            if label != item {
                doc.names.push(label.to_string());
            }
            doc.names.push(item);
        }
    }
    for field in &view.fields {
        for item in &field.items {
            doc.fields.push(item.label.clone());
            if item.value != item.label {
                doc.fields.push(item.value.clone());
            }
        }
    }
    doc
}
