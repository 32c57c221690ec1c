//! Rendering: `Corpus` + `Theme` -> every HTML page of the site, in memory.
//!
//! Work is planned as a list of jobs (one per HTML page: pages, paginated lists, facet
//! pages) and rendered in parallel; each job builds a small context from views that were
//! serialised once. Whole-site files (feeds, export, search index) are `site`'s; nothing
//! here touches the filesystem.

pub(crate) mod chart_data;
pub(crate) mod cite;
mod context;
mod facets;
pub(crate) mod fingerprint;
pub(crate) mod incremental;
pub(crate) mod kept_pages;
mod link_cache;
mod paginator;
mod prepare;
mod search_docs;
pub(crate) mod views;

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use tera::{Context, Value};

use crate::config::Config;
use crate::content::Corpus;
use crate::error::{Diagnostic, Diagnostics, Error, Result};
use crate::html::{self, LinkMode};
use crate::images::ImageSet;
use crate::output::{self, Copied, Data, Fingerprint, Output};
use crate::theme::{StaticFile, Theme, error_chain};
use context::PageContext;
pub(crate) use context::{Shared, verify_page_path};
pub(crate) use facets::{Facet, FacetValue};
pub(crate) use fingerprint::Unchanged;
pub(crate) use link_cache::{FILE as LINK_CACHE_FILE, LinkCache};
pub(crate) use paginator::paginated_path;
pub(crate) use prepare::{Prepared, Reuse, markdown_link_errors, prepare, prepare_keeping};
use views::ViewContext;

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RenderOptions {
    /// Links name `index.html` so the site works from `file://`.
    pub(crate) portable: bool,
    /// Keep each page's HTML before link rewriting and minification, for `check`.
    pub(crate) keep_html: bool,
}

/// What a template is rendered for: enough to name the output and report errors.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Job<'a> {
    Page(usize),
    /// A section, or one page of its paginated list (1-based).
    Section {
        index: usize,
        page: usize,
    },
    FacetIndex {
        facet: &'a Facet,
    },
    FacetValue {
        facet: &'a Facet,
        value: &'a FacetValue,
        page: usize,
    },
    /// The "not found" page of a language: `/404.html` for the default one, `/ar/404.html`
    /// for the others (hosts that allow a 404 page per folder can serve it there).
    NotFound {
        lang: &'a str,
    },
    /// The search page of a language.
    Search {
        lang: &'a str,
    },
    /// The tombstone of a withdrawn case (index into `Corpus::withdrawn`).
    Withdrawn(usize),
    /// The `/verify/` page of a language that has no page of its own there.
    Verify {
        lang: &'a str,
    },
}

/// A page of HTML before link rewriting and minification, kept for checks.
#[derive(Debug, Clone)]
pub(crate) struct HtmlPage {
    pub(crate) url_path: String,
    pub(crate) source: PathBuf,
    pub(crate) html: String,
}

/// A page job's result: its HTML before link rewriting (when `keep_html` was asked for), its
/// finished file, and its fingerprint (when the build reuses unchanged pages).
pub(crate) struct RenderedPage {
    pub(crate) html: Option<HtmlPage>,
    pub(crate) output: Output,
    pub(crate) fingerprint: Option<Fingerprint>,
    /// False when the page was taken as the last build published it, unrendered.
    pub(crate) rendered: bool,
}

/// Renders page jobs from prepared data: everything it reads.
pub(crate) struct Renderer<'a> {
    pub(crate) config: &'a Config,
    pub(crate) corpus: &'a Corpus,
    pub(crate) theme: &'a Theme,
    pub(crate) images: &'a ImageSet,
    pub(crate) prepared: &'a Prepared,
    pub(crate) search: &'a crate::search::SearchIndex,
    pub(crate) shared: &'a Shared,
    pub(crate) options: RenderOptions,
    /// The last build's link rewrites (one-shot builds).
    pub(crate) links: Option<&'a LinkCache>,
    /// What the last build published (one-shot builds): unchanged pages are not rendered.
    pub(crate) unchanged: Option<&'a Unchanged<'a>>,
    /// Where a one-shot build writes each finished page at once instead of holding it in
    /// memory: a new output folder's staging folder, or an update's pending folder.
    pub(crate) stage: Option<&'a output::Stage>,
}

impl<'a> Renderer<'a> {
    fn views(&self) -> ViewContext<'a> {
        ViewContext {
            config: self.config,
            corpus: self.corpus,
            images: self.images,
            released: self.prepared.released,
            hashing: false,
        }
    }

    /// Every HTML page of the site, as a job.
    pub(crate) fn jobs(&self) -> Vec<Job<'a>> {
        let (config, corpus) = (self.config, self.corpus);
        let mut jobs = Vec::new();
        for i in 0..corpus.pages.len() {
            jobs.push(Job::Page(i));
        }
        for (index, s) in corpus.sections.iter().enumerate() {
            let per_page = s.paginate_by.unwrap_or(config.paginate_by);
            let pages = s.pages.len().div_ceil(per_page).max(1);
            for page in 1..=pages {
                jobs.push(Job::Section { index, page });
            }
        }
        for facet in self.prepared.facets.iter() {
            jobs.push(Job::FacetIndex { facet });
            for value in facet.values_and_months().filter(|v| !v.pages.is_empty()) {
                let pages = value.pages.len().div_ceil(config.paginate_by);
                for page in 1..=pages {
                    jobs.push(Job::FacetValue { facet, value, page });
                }
            }
        }
        for lang in &config.languages {
            jobs.push(Job::NotFound { lang: &lang.code });
        }
        for lang in self.search.entries.keys() {
            jobs.push(Job::Search { lang });
        }
        for i in 0..corpus.withdrawn.len() {
            jobs.push(Job::Withdrawn(i));
        }
        for lang in &config.languages {
            if corpus
                .source_of(&verify_page_path(config, &lang.code))
                .is_none()
            {
                jobs.push(Job::Verify { lang: &lang.code });
            }
        }
        jobs
    }

    /// The template a job renders with.
    pub(crate) fn template(&self, job: &Job) -> &'a str {
        match job {
            Job::Page(i) => {
                let p = &self.corpus.pages[*i];
                let default = if p.case.is_some() {
                    "case.html"
                } else if p.meta.path.ends_with("/verify/")
                    && p.meta.path == verify_page_path(self.config, &p.meta.lang)
                {
                    "verify.html"
                } else {
                    "page.html"
                };
                p.meta.template.as_deref().unwrap_or(default)
            }
            Job::Section { index, .. } => {
                let s = &self.corpus.sections[*index];
                let default = if s.dir.is_empty() {
                    "index.html"
                } else {
                    "section.html"
                };
                s.meta.template.as_deref().unwrap_or(default)
            }
            Job::FacetIndex { .. } => "facet_index.html",
            Job::FacetValue { .. } => "facet_value.html",
            Job::NotFound { .. } => "404.html",
            Job::Search { .. } => "search.html",
            Job::Withdrawn(_) => "withdrawn.html",
            Job::Verify { .. } => "verify.html",
        }
    }

    /// The language a job's page is in.
    pub(crate) fn lang(&self, job: &Job<'a>) -> &'a str {
        match job {
            Job::Page(i) => &self.corpus.pages[*i].meta.lang,
            Job::Section { index, .. } => &self.corpus.sections[*index].meta.lang,
            Job::FacetIndex { facet } | Job::FacetValue { facet, .. } => &facet.lang,
            Job::NotFound { lang } | Job::Search { lang } | Job::Verify { lang } => lang,
            Job::Withdrawn(i) => &self.corpus.withdrawn[*i].meta.lang,
        }
    }

    /// The root-relative URL path a job's page is published at.
    pub(crate) fn url_path(&self, job: &Job) -> String {
        match job {
            Job::Page(i) => self.corpus.pages[*i].meta.path.clone(),
            Job::Section { index, page } => {
                paginated_path(&self.corpus.sections[*index].meta.path, *page)
            }
            Job::FacetIndex { facet } => facet.path.clone(),
            Job::FacetValue { value, page, .. } => paginated_path(&value.path, *page),
            Job::NotFound { lang } => format!("{}404.html", self.config.language_prefix(lang)),
            Job::Search { lang } => format!("{}search/", self.config.language_prefix(lang)),
            Job::Withdrawn(i) => self.corpus.withdrawn[*i].meta.path.clone(),
            Job::Verify { lang } => verify_page_path(self.config, lang),
        }
    }

    /// Renders jobs in parallel; fails with every job's error.
    fn render<'j>(
        &self,
        jobs: impl IntoParallelIterator<Item = &'j Job<'j>>,
    ) -> Result<Vec<RenderedPage>>
    where
        'a: 'j,
    {
        let results: Vec<std::result::Result<RenderedPage, Diagnostic>> = jobs
            .into_par_iter()
            .map(|job| self.render_one(job))
            .collect();
        let mut diags = Diagnostics::default();
        let mut finished = Vec::with_capacity(results.len());
        for r in results {
            match r {
                Ok(f) => finished.push(f),
                Err(d) => diags.push(d),
            }
        }
        diags.finish(finished)
    }

    /// Renders the given jobs, or takes them as the last build published them when
    /// nothing they are made from changed.
    pub(crate) fn render_pages<'j>(&self, jobs: &[&'j Job<'j>]) -> Result<Vec<RenderedPage>>
    where
        'a: 'j,
    {
        self.render(jobs.par_iter().copied())
    }

    /// A job's source file and context, or (`hashing`) only a hash of its own values: an
    /// unchanged page's values are never turned into template values.
    fn context(&self, job: &Job, url_path: &str, hashing: bool) -> (PathBuf, PageContext) {
        let views = ViewContext {
            hashing,
            ..self.views()
        };
        let (config, corpus, prepared) = (self.config, self.corpus, self.prepared);
        let shared = self.shared;
        let (template, lang) = (self.template(job), self.lang(job));
        // A list's `paginator`; for a fingerprint, only what it is made from, with each
        // listed item's hash (made once for all lists) for the item.
        let paginate = |ctx: &mut PageContext, base: &str, pages: &[usize], per_page, current| {
            let list = paginator::List {
                base,
                page_indices: pages,
                synthetic: &prepared.synthetic,
                per_page,
                current,
            };
            match ctx {
                PageContext::Hash(h) => {
                    h.text("paginator");
                    list.hash_into(h, prepared.item_keys(&views));
                }
                PageContext::Context(_) => {
                    ctx.insert_value("paginator", list.value(&|i| prepared.item(i, &views)));
                }
            }
        };
        let mut made = match job {
            Job::Page(i) => {
                let p = &corpus.pages[*i];
                let mut ctx = shared.context(lang, url_path, &views.translations(&p.meta), hashing);
                let markdown = prepared.markdown_of(*i, !hashing, config, corpus);
                ctx.insert("page", &views.page(&p.meta, markdown, Some(p)));
                let s = &corpus.sections[p.section];
                ctx.insert(
                    "section",
                    &views.item(&s.meta, &prepared.section_md[p.section], None),
                );
                (p.meta.source.clone(), ctx)
            }
            Job::Section { index, page } => {
                let s = &corpus.sections[*index];
                let translations = if *page == 1 {
                    views.translations(&s.meta)
                } else {
                    Vec::new()
                };
                let mut ctx = shared.context(lang, url_path, &translations, hashing);
                let mut view = Value::from_serializable(&views.page(
                    &s.meta,
                    &prepared.section_md[*index],
                    None,
                ));
                let subsections: Vec<Value> = s
                    .subsections
                    .iter()
                    .map(|&i| prepared.section_items[i].clone())
                    .collect();
                if let Some(map) = view.as_map().cloned() {
                    let mut map = map;
                    map.insert("subsections".into(), Value::from(subsections));
                    map.insert(
                        "is_case_collection".into(),
                        Value::from(s.is_case_collection),
                    );
                    map.insert("page_count".into(), Value::from(s.pages.len()));
                    view = Value::from(map);
                }
                ctx.insert_value("section", view);
                let per_page = s.paginate_by.unwrap_or(config.paginate_by);
                paginate(&mut ctx, &s.meta.path, &s.pages, per_page, *page);
                (s.meta.source.clone(), ctx)
            }
            Job::FacetIndex { facet } => {
                let translations = facet_translations(config, &prepared.facets, facet, &facet.path);
                let mut ctx = shared.context(lang, url_path, &translations, hashing);
                ctx.insert("facet", facet);
                (facet.source.clone(), ctx)
            }
            Job::FacetValue { facet, value, page } => {
                let translations = facet_translations(config, &prepared.facets, facet, url_path);
                let mut ctx = shared.context(lang, url_path, &translations, hashing);
                ctx.insert("facet", facet);
                ctx.insert("value", value);
                paginate(
                    &mut ctx,
                    &value.path,
                    &value.pages,
                    config.paginate_by,
                    *page,
                );
                (facet.source.clone(), ctx)
            }
            Job::NotFound { .. } => (
                PathBuf::from("404.html"),
                shared.context(lang, url_path, &[], hashing),
            ),
            Job::Search { lang } => {
                let translations: Vec<views::Link> = self
                    .search
                    .entries
                    .keys()
                    .filter(|l| l != lang)
                    .map(|l| {
                        views::Link::new(
                            config,
                            l,
                            &format!("{}search/", config.language_prefix(l)),
                        )
                    })
                    .collect();
                let mut ctx = shared.context(lang, url_path, &translations, hashing);
                // Only the search page names the index: every other page links the search
                // page alone, so a new index does not change them.
                ctx.insert(
                    "search",
                    &serde_json::json!({
                        "path": url_path,
                        "index": self.search.entries[*lang],
                    }),
                );
                ctx.insert("portable", &self.options.portable);
                (PathBuf::from("search.html"), ctx)
            }
            Job::Withdrawn(i) => {
                let p = &corpus.withdrawn[*i];
                let mut ctx = shared.context(lang, url_path, &views.translations(&p.meta), hashing);
                ctx.insert("tombstone", &views.tombstone(p));
                (p.meta.source.clone(), ctx)
            }
            Job::Verify { lang } => {
                let translations: Vec<views::Link> = config
                    .languages
                    .iter()
                    .filter(|l| l.code != *lang)
                    .map(|l| views::Link::new(config, &l.code, &verify_page_path(config, &l.code)))
                    .collect();
                let ctx = shared.context(lang, url_path, &translations, hashing);
                (PathBuf::from("verify.html"), ctx)
            }
        };
        made.1.insert("template", template);
        made
    }

    /// One page's finished file, rendered on this thread (`serve` answering a request
    /// while its pool renders the rest of the site).
    pub(crate) fn render_alone(&self, job: &Job) -> std::result::Result<Output, Diagnostic> {
        self.render_one(job).map(|finished| finished.output)
    }

    /// Renders one job, then rewrites its links and minifies it, so only the finished bytes
    /// of each page stay in memory.
    fn render_one(&self, job: &Job) -> std::result::Result<RenderedPage, Diagnostic> {
        let (config, shared) = (self.config, self.shared);
        let template = self.template(job);
        let url_path = self.url_path(job);
        let lang = self.lang(job);
        let fingerprint = self.unchanged.and_then(|u| {
            let own = self.context(job, &url_path, true).1.into_hash()?;
            u.fingerprint(template, lang, &url_path, own)
        });
        if let (Some(unchanged), Some(fingerprint)) = (self.unchanged, fingerprint) {
            if let Some(output) = unchanged
                .prior
                .published(&output::file_for_url(&url_path), fingerprint)
            {
                return Ok(RenderedPage {
                    output,
                    html: None,
                    fingerprint: Some(fingerprint),
                    rendered: false,
                });
            }
        }
        let (source, ctx) = self.context(job, &url_path, false);
        let Some(ctx) = ctx.into_context() else {
            unreachable!("a context made for rendering");
        };
        let page = render_template(self.theme, template, &ctx, &source, &url_path)?;
        let mode = if self.options.portable {
            // Opened from disk there is no server to show 404.html at other paths.
            LinkMode::Portable
        } else if page.url_path.ends_with("/404.html") {
            LinkMode::Absolute(&shared.base_path)
        } else {
            LinkMode::Relative
        };
        // Minified first: the link rewriter then reads a page a fraction of the size. Only
        // link values change, in the quoting the minifier chose, so the bytes are the same as
        // rewriting first.
        let minified = config
            .minify
            .then(|| String::from_utf8(html::minify(page.html.as_bytes())).ok())
            .flatten();
        let finished = minified.as_deref().unwrap_or(&page.html);
        let bytes = match self.links {
            Some(links) => links.rewrite(finished, &page.url_path, mode),
            None => html::rewrite_links(finished, &page.url_path, mode),
        }
        .into_bytes();
        let output = Output::bytes(output::file_for_url(&page.url_path), bytes);
        Ok(RenderedPage {
            output: output::Stage::put_in(self.stage, output),
            html: self.options.keep_html.then_some(page),
            fingerprint,
            rendered: true,
        })
    }

    /// What pages show or link besides themselves: derived images and copied attachments
    /// (hashed now, read beneath the site's folder).
    pub(crate) fn page_assets(&self) -> Result<Vec<Output>> {
        let mut outputs = self.images.outputs();
        outputs.extend(self.attachments()?);
        Ok(outputs)
    }

    /// What `page_assets` changed since a build of `old_corpus` with `old_images` (from which
    /// this build's images were made, `serve`): the paths no longer made, and the outputs
    /// of the photographs not kept as they were and of every attachment.
    pub(crate) fn page_assets_since(
        &self,
        old_corpus: &Corpus,
        old_images: &ImageSet,
    ) -> Result<(Vec<String>, Vec<Output>)> {
        let (mut gone, mut outputs) = self.images.outputs_since(old_images);
        let attachments = self.attachments()?;
        let now: std::collections::HashSet<&str> =
            attachments.iter().map(|o| o.path.as_str()).collect();
        gone.extend(
            (old_corpus.assets.iter())
                .filter(|a| !now.contains(a.output.as_str()))
                .map(|a| a.output.clone()),
        );
        outputs.extend(attachments);
        Ok((gone, outputs))
    }

    /// The pages' attachments, copied as they are.
    fn attachments(&self) -> Result<Vec<Output>> {
        self.corpus
            .assets
            .par_iter()
            .map(|asset| {
                Ok(Output {
                    path: asset.output.clone(),
                    data: Data::Copy(Copied::of(&self.config.root, &asset.source)?),
                })
            })
            .collect()
    }

    /// The theme's and site's static files, scripts minified. Files of the site's or a
    /// theme's folder are copied from disk, never held whole (a script to minify is read).
    pub(crate) fn theme_outputs(&self) -> Result<Vec<Output>> {
        self.theme
            .static_files
            .par_iter()
            .map(|(path, file)| {
                let minify = self.config.minify && path.ends_with(".js");
                let data = match file {
                    StaticFile::Bytes(bytes) if minify => Data::Bytes(html::minify_js(bytes)),
                    StaticFile::Bytes(bytes) => Data::Bytes(bytes.clone()),
                    StaticFile::Disk(c) if minify => {
                        let bytes = crate::beneath::read(&c.root, &c.file, c.size)
                            .map_err(|e| Error::io(&c.file, e))?;
                        Data::Bytes(html::minify_js(&bytes))
                    }
                    StaticFile::Disk(c) => Data::Copy(c.clone()),
                };
                Ok(Output {
                    path: path.clone(),
                    data,
                })
            })
            .collect()
    }
}

/// The same facet page in the other languages that have a case section.
fn facet_translations(
    config: &Config,
    facets: &[Facet],
    facet: &Facet,
    path: &str,
) -> Vec<views::Link> {
    let own_prefix = config.language_prefix(&facet.lang);
    let rest = path.strip_prefix(own_prefix.as_str()).unwrap_or(path);
    facets
        .iter()
        .filter(|f| f.name == facet.name && f.lang != facet.lang)
        .map(|f| {
            let other = format!("{}{rest}", config.language_prefix(&f.lang));
            views::Link::new(config, &f.lang, &other)
        })
        .collect()
}

fn render_template(
    theme: &Theme,
    template: &str,
    ctx: &Context,
    source: &Path,
    url_path: &str,
) -> std::result::Result<HtmlPage, Diagnostic> {
    if !theme.tera.contains_template(template) {
        return Err(
            Diagnostic::new(source, format!("template `{template}` does not exist"))
                .field("template")
                .hint("templates live in templates/ (site) or themes/<theme>/templates/"),
        );
    }
    theme
        .tera
        .render(template, ctx)
        .map(|html| HtmlPage {
            url_path: url_path.to_string(),
            source: source.to_path_buf(),
            html,
        })
        .map_err(|e| {
            let message = error_chain(&e);
            let hint = if message.contains("chart(): ") {
                "fix the chart's arguments (in the page's front matter or the template); docs/charts.md lists them"
            } else {
                "the template uses a variable or filter that is not available here"
            };
            Diagnostic::new(source, format!("rendering `{template}` failed: {message}"))
                .hint(hint)
        })
}
