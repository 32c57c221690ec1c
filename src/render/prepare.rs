//! What every page job is rendered from, computed once per build: each page's markdown, its
//! list entry and search document, and the facets. A rebuild reuses what it has for pages
//! that did not change.

use std::sync::{Arc, OnceLock};

use rayon::prelude::*;
use tera::Value;

use super::views::ViewContext;
use super::{Facet, facets, search_docs};
use crate::config::Config;
use crate::content::{Corpus, Meta};
use crate::error::{Diagnostic, Diagnostics, Result};
use crate::images::ImageSet;
use crate::markdown::{self, Rendered};

/// Everything the page jobs are rendered from, computed once per build. `serve` keeps it
/// between rebuilds so that an edit recomputes only what depends on the changed files.
pub(crate) struct Prepared {
    pub(super) section_md: Vec<Rendered>,
    /// Shared, so a rebuild reuses unchanged pages' markdown without copying it.
    pub(super) page_md: Vec<Arc<Rendered>>,
    /// Each page's list item, made when a list first shows it: a one-shot build after an
    /// edit renders a few of the lists, and making 11,000 items for them took 40 ms.
    items: Vec<OnceLock<Value>>,
    /// Each list item's hash, made on first use by a fingerprinting build: a case is in
    /// several lists, and hashing its item once spares walking it on every list page.
    item_keys: OnceLock<Vec<u128>>,
    pub(super) section_items: Vec<Value>,
    pub(super) synthetic: Vec<bool>,
    pub(crate) facets: Vec<Facet>,
    /// What the search index is built from, per page (reused for unchanged pages).
    pub(super) search_docs: Vec<Arc<crate::search::Doc>>,
    /// The release's date (`cite::released`).
    pub(super) released: Option<crate::content::Date>,
}

/// What an earlier preparation of the same site structure lends a new one: its data for
/// every page not marked as changed.
pub(crate) struct Reuse<'a> {
    pub(crate) prepared: &'a Prepared,
    pub(crate) changed_pages: &'a [bool],
}

impl Reuse<'_> {
    fn unchanged(&self, page: usize) -> bool {
        !self.changed_pages[page]
    }
}

/// Markdown, list items, facets and the search index of the whole site.
pub(crate) fn prepare(
    config: &Config,
    corpus: &Corpus,
    images: &ImageSet,
    reuse: Option<Reuse>,
) -> Result<Prepared> {
    let (section_md, page_md) = render_markdown(config, corpus, reuse.as_ref())?;
    let released = super::cite::released(corpus);
    let views = ViewContext {
        config,
        corpus,
        images,
        released,
        hashing: false,
    };
    let items: Vec<OnceLock<Value>> = (0..corpus.pages.len())
        .map(|i| match &reuse {
            Some(reuse) if reuse.unchanged(i) => reuse.prepared.items[i].clone(),
            _ => OnceLock::new(),
        })
        .collect();
    let section_items: Vec<Value> = corpus
        .sections
        .iter()
        .zip(&section_md)
        .map(|(s, r)| Value::from_serializable(&views.item(&s.meta, r, None)))
        .collect();
    let synthetic: Vec<bool> = corpus
        .pages
        .iter()
        .map(|p| match (&config.cases, &p.case) {
            (Some(_), Some(case)) => case.is_synthetic(),
            _ => false,
        })
        .collect();
    let facets = facets::compute(config, corpus);
    let search_docs = search_docs::page_docs(
        config,
        corpus,
        images,
        &page_md,
        reuse
            .as_ref()
            .map(|r| (r.prepared.search_docs.as_slice(), r.changed_pages)),
    );
    Ok(Prepared {
        section_md,
        page_md,
        items,
        item_keys: Default::default(),
        section_items,
        synthetic,
        facets,
        search_docs,
        released,
    })
}

impl Prepared {
    /// Page `i`'s list item, made on first use with `views` (not hashing).
    pub(super) fn item(&self, i: usize, views: &ViewContext) -> Value {
        let page = &views.corpus.pages[i];
        self.items[i]
            .get_or_init(|| {
                let item = views.item(&page.meta, &self.page_md[i], Some(page));
                Value::from_serializable(&item)
            })
            .clone()
    }

    /// Forgets the list items made for the pages, tens of megabytes at archive scale, once
    /// the lists are rendered: a list rendered after this makes its items again. Returns
    /// how many there were.
    pub(crate) fn forget_list_items(&mut self) -> usize {
        self.items.iter_mut().filter_map(OnceLock::take).count()
    }

    /// How many list items are made and kept.
    #[cfg(test)]
    pub(crate) fn list_items_kept(&self) -> usize {
        self.items.iter().filter(|i| i.get().is_some()).count()
    }

    /// What a list page's fingerprint hashes in place of each item: a hash of what the item
    /// is made from (`views` hashing: a case's values, not their labels).
    pub(super) fn item_keys(&self, views: &ViewContext) -> &[u128] {
        let views = ViewContext {
            hashing: true,
            ..*views
        };
        self.item_keys.get_or_init(|| {
            (views.corpus.pages.par_iter())
                .zip(&self.page_md)
                .map(|(page, md)| {
                    let mut h = crate::hashing::Hasher::default();
                    h.serialized(&views.item(&page.meta, md, Some(page)));
                    h.digest()
                })
                .collect()
        })
    }

    /// Each language's search documents and facet tables.
    pub(crate) fn search_inputs(
        &self,
        config: &Config,
        corpus: &Corpus,
    ) -> Vec<crate::search::LangInput> {
        search_docs::inputs(
            config,
            corpus,
            &self.section_md,
            &self.search_docs,
            &self.facets,
        )
    }

    /// Every page's rendered markdown, in corpus order.
    pub(crate) fn page_markdown(&self) -> &[Arc<Rendered>] {
        &self.page_md
    }
}

/// Every broken `@/` link of the corpus; used when loading failed, so link errors are
/// reported together with the content errors.
pub(crate) fn markdown_link_errors(config: &Config, corpus: &Corpus) -> Vec<Diagnostic> {
    match render_markdown(config, corpus, None) {
        Ok(_) => Vec::new(),
        Err(e) => e.diagnostics().to_vec(),
    }
}

/// Markdown of every section and page, in parallel, with all broken links collected; pages
/// that `reuse` knows unchanged are taken from it.
fn render_markdown(
    config: &Config,
    corpus: &Corpus,
    reuse: Option<&Reuse>,
) -> Result<(Vec<Rendered>, Vec<Arc<Rendered>>)> {
    let one = |meta: &Meta| {
        let mut diags = Vec::new();
        let resolve = |target: &str| {
            corpus
                .resolve(target, &meta.lang, &config.default_language)
                .map(str::to_string)
                .or_else(|| corpus.failed_keys.contains(target).then(|| "#".to_string()))
        };
        let rendered = markdown::render(
            &meta.body,
            &markdown::Source {
                path: &meta.source,
                first_line: meta.body_line,
            },
            &resolve,
            &mut diags,
        );
        (rendered, diags)
    };
    let sections: Vec<_> = corpus.sections.par_iter().map(|s| one(&s.meta)).collect();
    let pages: Vec<_> = corpus
        .pages
        .par_iter()
        .enumerate()
        .map(|(i, p)| match reuse {
            Some(reuse) if reuse.unchanged(i) => (reuse.prepared.page_md[i].clone(), Vec::new()),
            _ => {
                let (rendered, diags) = one(&p.meta);
                (Arc::new(rendered), diags)
            }
        })
        .collect();
    let mut diags = Diagnostics::default();
    fn split<R>(v: Vec<(R, Vec<Diagnostic>)>, diags: &mut Diagnostics) -> Vec<R> {
        v.into_iter()
            .map(|(r, d)| {
                diags.extend(d);
                r
            })
            .collect::<Vec<_>>()
    }
    let sections = split(sections, &mut diags);
    let pages = split(pages, &mut diags);
    diags.finish((sections, pages))
}
