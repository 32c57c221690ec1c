//! What every page job is rendered from, computed once per build: each page's markdown, its
//! list entry and search document, and the facets. A rebuild reuses what it has for pages
//! that did not change.

use std::sync::{Arc, OnceLock};

use rayon::prelude::*;
use tera::Value;

use super::kept_pages::{self, KeptPages, LinkLog};
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
    /// Shared, so a rebuild reuses unchanged pages' markdown without copying it. A page
    /// kept from the last one-shot build has a stand-in here (`kept_pages`).
    page_md: Vec<Arc<Rendered>>,
    /// The whole markdown of a page with a stand-in, made when the page is rendered.
    whole_md: Vec<OnceLock<Rendered>>,
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
    let earlier = match &reuse {
        Some(reuse) => Earlier::Reuse(reuse),
        None => Earlier::Nothing,
    };
    prepare_from(config, corpus, images, earlier).map(|(prepared, _)| prepared)
}

/// `prepare` for a one-shot build, taking what it can from the pages the last build kept
/// (`kept`, made under `key`: `kept_pages`). Also gives the pages to keep for the next
/// build, unless the kept ones will still do.
pub(crate) fn prepare_keeping(
    config: &Config,
    corpus: &Corpus,
    images: &ImageSet,
    kept: &KeptPages,
    key: u128,
) -> Result<(Prepared, Option<Vec<u8>>)> {
    prepare_from(config, corpus, images, Earlier::Kept(kept, key))
}

/// What a preparation may take pages' markdown and search documents from.
enum Earlier<'a> {
    Nothing,
    /// serve: its last preparation.
    Reuse(&'a Reuse<'a>),
    /// A one-shot build: what the last build kept, and this build's key for it.
    Kept(&'a KeptPages<'a>, u128),
}

fn prepare_from(
    config: &Config,
    corpus: &Corpus,
    images: &ImageSet,
    earlier: Earlier,
) -> Result<(Prepared, Option<Vec<u8>>)> {
    let reuse = match earlier {
        Earlier::Reuse(reuse) => Some(reuse),
        _ => None,
    };
    // The facets are counted on one core: beside the markdown, not after it.
    let (markdown, facets) = rayon::join(
        || render_markdown(config, corpus, &earlier),
        || facets::compute(config, corpus),
    );
    let (section_md, pages) = markdown?;
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
    let page_md: Vec<Arc<Rendered>> = pages.iter().map(|p| p.markdown.clone()).collect();
    let search_docs = search_docs::page_docs(config, corpus, images, &page_md, |i| {
        match (&pages[i].doc, reuse) {
            (Some(doc), _) => Some(doc.clone()),
            (None, Some(reuse)) if reuse.unchanged(i) => {
                Some(reuse.prepared.search_docs[i].clone())
            }
            _ => None,
        }
    });
    let to_keep = match earlier {
        Earlier::Kept(kept, key) => next_kept(corpus, kept, key, &pages, &search_docs),
        _ => None,
    };
    drop(pages);
    let prepared = Prepared {
        section_md,
        whole_md: (0..page_md.len()).map(|_| OnceLock::new()).collect(),
        page_md,
        items,
        item_keys: Default::default(),
        section_items,
        synthetic,
        facets,
        search_docs,
        released,
    };
    Ok((prepared, to_keep))
}

/// The pages to keep for the next build, unless the kept ones will still do: a few pages
/// changed since they were kept are cheaper to make again next time than the whole file
/// is to write again (tens of megabytes at archive scale).
fn next_kept(
    corpus: &Corpus,
    kept: &KeptPages,
    key: u128,
    pages: &[PageMarkdown],
    docs: &[Arc<crate::search::Doc>],
) -> Option<Vec<u8>> {
    let reused = pages.iter().filter(|p| p.kept_record().is_some()).count();
    let made = pages.iter().filter(|p| p.links.is_some()).count();
    let stale = made + (kept.len() - reused);
    // Nothing new to keep; or a few pages changed since a file that holds the rest.
    if stale == 0 || (stale * 32 <= pages.len() && !kept.is_empty()) {
        return None;
    }
    let room = pages.len() * 2048;
    let entries = pages.iter().enumerate().filter_map(|(i, p)| {
        let (page_key, _) = p.keep?;
        let entry = match (p.kept_record(), &p.links) {
            (Some(record), _) => std::borrow::Cow::Borrowed(record),
            (None, Some(links)) => kept_pages::entry(links, &p.markdown, &docs[i]).into(),
            (None, None) => return None,
        };
        Some((corpus.pages[i].meta.path.as_str(), page_key, entry))
    });
    Some(kept_pages::file(key, reused + made, room, entries))
}

/// A page's markdown as `render_markdown` found or made it.
struct PageMarkdown<'a> {
    markdown: Arc<Rendered>,
    /// Its search document, when kept from the last build.
    doc: Option<Arc<crate::search::Doc>>,
    /// The page's key, and its entry as kept, when it may be kept for the next build.
    keep: Option<(u128, Option<&'a [u8]>)>,
    /// The links its markdown resolved, when made now and it may be kept.
    links: Option<kept_pages::Links>,
}

impl<'a> PageMarkdown<'a> {
    fn kept_record(&self) -> Option<&'a [u8]> {
        self.keep.and_then(|(_, record)| record)
    }
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

    /// Every page's rendered markdown, in corpus order: a page kept from the last build
    /// has a stand-in (its summary, table of contents and word count, without its HTML).
    pub(crate) fn page_markdown(&self) -> &[Arc<Rendered>] {
        &self.page_md
    }

    /// Page `i`'s markdown, made whole when `whole` (to render the page) and the page has a
    /// stand-in kept from the last build.
    pub(super) fn markdown_of(
        &self,
        i: usize,
        whole: bool,
        config: &Config,
        corpus: &Corpus,
    ) -> &Rendered {
        let md = &self.page_md[i];
        if !whole || md.is_whole() {
            return md;
        }
        // Its links resolved as they did when it was kept: it renders as it did.
        self.whole_md[i].get_or_init(|| render_one(config, corpus, &corpus.pages[i].meta, None).0)
    }
}

/// Every broken `@/` link of the corpus; used when loading failed, so link errors are
/// reported together with the content errors.
pub(crate) fn markdown_link_errors(config: &Config, corpus: &Corpus) -> Vec<Diagnostic> {
    match render_markdown(config, corpus, &Earlier::Nothing) {
        Ok(_) => Vec::new(),
        Err(e) => e.diagnostics().to_vec(),
    }
}

/// One section's or page's markdown, and its problems; `log` notes the links it resolves.
fn render_one(
    config: &Config,
    corpus: &Corpus,
    meta: &Meta,
    log: Option<&LinkLog>,
) -> (Rendered, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let resolve = |target: &str| {
        let to = resolve_link(config, corpus, meta, target);
        match log {
            Some(log) => log.note(target, to),
            None => to,
        }
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
}

/// Where an `@/` link of `meta`'s markdown goes: `#` for a file that failed to load.
fn resolve_link(config: &Config, corpus: &Corpus, meta: &Meta, target: &str) -> Option<String> {
    corpus
        .resolve(target, &meta.lang, &config.default_language)
        .map(str::to_string)
        .or_else(|| corpus.failed_keys.contains(target).then(|| "#".to_string()))
}

/// Markdown of every section and page, in parallel, with all broken links collected; pages
/// that `earlier` has unchanged are taken from it.
fn render_markdown<'a>(
    config: &Config,
    corpus: &Corpus,
    earlier: &Earlier<'a>,
) -> Result<(Vec<Rendered>, Vec<PageMarkdown<'a>>)> {
    let sections: Vec<_> = (corpus.sections.par_iter())
        .map(|s| render_one(config, corpus, &s.meta, None))
        .collect();
    let pages: Vec<_> = corpus
        .pages
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let (kept, key) = match earlier {
                Earlier::Reuse(reuse) if reuse.unchanged(i) => {
                    let markdown = reuse.prepared.page_md[i].clone();
                    let page = PageMarkdown {
                        markdown,
                        doc: None,
                        keep: None,
                        links: None,
                    };
                    return (page, Vec::new());
                }
                Earlier::Kept(kept, _) => {
                    (Some(kept), p.key(&corpus.sections[p.section].meta.path))
                }
                _ => (None, None),
            };
            let resolve = |target: &str| resolve_link(config, corpus, &p.meta, target);
            if let Some(page) = (kept.zip(key)).and_then(|(kept, key)| {
                let page = kept.get(&p.meta.path, key, resolve)?;
                Some(PageMarkdown {
                    markdown: Arc::new(page.markdown),
                    doc: Some(Arc::new(page.doc)),
                    keep: Some((key, Some(page.record))),
                    links: None,
                })
            }) {
                return (page, Vec::new());
            }
            let log = key.map(|_| LinkLog::default());
            let (rendered, diags) = render_one(config, corpus, &p.meta, log.as_ref());
            let keep = key.filter(|_| diags.is_empty()).map(|key| (key, None));
            let page = PageMarkdown {
                markdown: Arc::new(rendered),
                doc: None,
                links: keep.and(log).map(LinkLog::into_links),
                keep,
            };
            (page, diags)
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
