//! The one build pipeline: `casebook build`, `check` and `serve` all run through it.
//!
//! A build is a sequence of plain data: configuration → content and theme → images →
//! pages → search index → whole-site files (sitemap, feeds, data export, search files) →
//! manifest. `Session` runs it and keeps what `serve` reuses between rebuilds: parsed
//! content files, each search document's terms, the manifest's file hashes, and the last
//! good build. A one-shot build is a session's first build; a rebuild is told which files
//! changed and redoes only what depends on them (`render::incremental` decides which
//! pages). A configuration change starts over. A failed rebuild leaves the previous site as
//! it was.
//!
//! A build has two steps, so an edited page can reload as soon as it is ready: `build`
//! renders the pages and their images; `finish` then redoes what is made from the whole
//! site. Both together give exactly what `casebook build` writes (the serve tests compare
//! rebuilt sites with fresh ones after every kind of edit).

mod deferred;
pub(crate) mod export;
mod feeds;
mod files;
mod hosting;
mod load;
mod manifest_files;
pub(crate) mod memory;
mod options;
mod publish;
mod release;
mod tokens;
pub(crate) mod up_to_date;
mod whole;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::content::{Corpus, ParseCache};
use crate::error::{Diagnostic, Error, Result};
use crate::images::{self, ImageSet};
use crate::integrity::manifest;
use crate::output::{self, Output, PathSet};
use crate::render::{
    self, HtmlPage, LinkCache, Prepared, RenderOptions, Renderer, Shared, incremental,
};
use crate::search::{SearchIndex, TermCache};
use crate::theme::Theme;
pub(crate) use crate::timing::Stopwatch;
pub(crate) use deferred::Deferred;
pub(crate) use files::Files;
use files::{Merge, Stale};
pub(crate) use load::derive_shard;
use load::load_content;
pub use options::{BuildOptions, Notice, Notices};
pub(crate) use publish::Publishing;
pub use release::Signing;

/// What one step of a build changed.
#[derive(Debug, Clone, Default)]
pub struct Update {
    /// Output paths whose bytes are new, added or removed, sorted.
    pub changed: Vec<String>,
    /// Page jobs rendered.
    pub rendered: usize,
    /// HTML pages of the site.
    pub pages: usize,
    /// Whether everything was rebuilt.
    pub full: bool,
    /// Wall time of the step.
    pub took: Duration,
    /// Wall time of each step, for `--timings`.
    pub timings: Vec<(&'static str, Duration)>,
    /// The step rendered the pages serve's first build left for later: none changed.
    pub deferred: bool,
}

impl Update {
    /// What a step that began at `started` changed: `changed` sorted, without repeats.
    fn of_step(mut changed: Vec<String>, started: Instant, watch: Stopwatch) -> Update {
        changed.sort();
        changed.dedup();
        Update {
            changed,
            took: started.elapsed(),
            timings: watch.laps,
            ..Update::default()
        }
    }
}

/// Builds a site and, for `serve`, rebuilds it after changes.
pub struct Session {
    options: BuildOptions,
    /// Keep what rebuilds reuse (`serve`); a one-shot build skips the bookkeeping.
    incremental: bool,
    /// Keep each page's HTML before link rewriting, for `check`.
    keep_html: bool,
    /// Render most pages of the first build in `finish`, and on request meanwhile (serve).
    defer_pages: bool,
    state: Option<State>,
    parsed: ParseCache,
    terms: TermCache,
    /// The image cache `serve` keeps open across rebuilds.
    kept_images: images::Kept,
    hashes: manifest::FileHashes,
    /// Files changed since the last good build: a failed build's changes count again.
    pending: Vec<PathBuf>,
    /// A one-shot build's link rewrites, read from the last build and saved for the next.
    links: Option<LinkCache>,
    /// Where a one-shot build is going to be written (`casebook build`).
    publishing: Option<Publishing>,
}

/// One successful build, held by `Arc`s so that a rebuild reuses what did not change and a
/// failed one drops nothing.
pub(crate) struct State {
    pub(crate) config: Arc<Config>,
    theme: Arc<Theme>,
    pub(crate) corpus: Arc<Corpus>,
    pub(crate) images: Arc<ImageSet>,
    prepared: Arc<Prepared>,
    search: Arc<SearchIndex>,
    shared: Arc<Shared>,
    pub(crate) files: Arc<Files>,
    /// Each page's HTML before link rewriting and minification, when `keep_html` was asked
    /// for (`check`).
    pub(crate) pages: Vec<HtmlPage>,
    /// Output paths by the step that makes them, to drop what a rebuild no longer makes.
    page_files: PathSet,
    asset_files: PathSet,
    theme_files: PathSet,
    site_files: PathSet,
    /// What `finish` has to bring up to date.
    stale: Stale,
    /// The pages not rendered yet, while `stale` is `Pages`.
    deferred: Option<Arc<Deferred>>,
}

impl State {
    fn renderer<'a>(&'a self, search: &'a SearchIndex, options: RenderOptions) -> Renderer<'a> {
        Renderer {
            config: &self.config,
            corpus: &self.corpus,
            theme: &self.theme,
            images: &self.images,
            prepared: &self.prepared,
            search,
            shared: &self.shared,
            options,
            // Only search pages are rendered after the first step, and never many.
            links: None,
            unchanged: None,
            stage: None,
        }
    }
}

impl Session {
    /// A preview session for the site at `root`; `base_url` replaces the configured one (the
    /// server's own address, so pages work at its root).
    pub fn new(root: &Path, base_url: Option<String>, drafts: bool) -> Session {
        Session {
            incremental: true,
            ..Session::with_options(BuildOptions {
                root: root.to_path_buf(),
                base_url,
                drafts,
                ..BuildOptions::default()
            })
        }
    }

    /// A session building with `options` (`casebook build` and `check`).
    pub fn with_options(options: BuildOptions) -> Session {
        Session {
            options,
            incremental: false,
            keep_html: false,
            defer_pages: false,
            state: None,
            parsed: ParseCache::default(),
            terms: TermCache::default(),
            kept_images: images::Kept::default(),
            hashes: manifest::FileHashes::default(),
            pending: Vec::new(),
            links: None,
            publishing: None,
        }
    }

    /// A one-shot build that will be written to `out`: unchanged files there are neither
    /// read nor written again.
    pub(crate) fn publishing_to(mut self, out: PathBuf) -> Session {
        self.publishing = Some(Publishing {
            out,
            ..Publishing::default()
        });
        self
    }

    /// The output folder as found, and the pages' fingerprints, once the build is done.
    pub(crate) fn take_publishing(&mut self) -> Option<Publishing> {
        self.publishing.take()
    }

    /// The last good build's files, if any.
    pub fn files(&self) -> Option<Arc<Files>> {
        self.state.as_ref().map(|s| s.files.clone())
    }

    /// Keeps each page's HTML before link rewriting and minification, for `check`.
    pub(crate) fn keeping_html(mut self) -> Session {
        self.keep_html = true;
        self
    }

    /// Renders only the home and "not found" pages in the first `build`, the rest in the
    /// next `finish` (and on request meanwhile, `deferred`).
    pub fn deferring_pages(mut self) -> Session {
        self.defer_pages = true;
        self
    }

    /// The last good build.
    /// Where `serve`'s workbench starts deriving a photograph it saved (`images::Warm`).
    pub(crate) fn warm_images(&self) -> Arc<crate::images::Warm> {
        self.kept_images.warm()
    }

    pub(crate) fn state(&self) -> Option<&State> {
        self.state.as_ref()
    }

    /// Whether `finish` has whole-site files to bring up to date.
    pub fn unfinished(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.stale != Stale::Fresh)
    }

    fn render_options(&self) -> RenderOptions {
        RenderOptions {
            portable: self.options.portable,
            // `check` reads every page of its one build; serve never keeps them.
            keep_html: self.keep_html,
        }
    }

    /// Both steps: what `casebook build` would produce, in memory.
    pub fn build_all(&mut self, changed: &[PathBuf]) -> Result<Update> {
        let mut update = self.build(changed)?;
        while self.unfinished() {
            let rest = self.finish()?;
            update.changed.extend(rest.changed);
            update.rendered += rest.rendered;
            update.pages = update.pages.max(rest.pages);
            update.took += rest.took;
            update.timings.extend(rest.timings);
        }
        update.changed.sort();
        update.changed.dedup();
        Ok(update)
    }

    /// Rebuilds the pages (and their images and the theme's files) after `changed` files
    /// (absolute paths) changed; everything on the first call, or when the configuration
    /// changed. Call `finish` for the whole-site files.
    pub fn build(&mut self, changed: &[PathBuf]) -> Result<Update> {
        self.pending.extend(changed.iter().cloned());
        self.pending.sort();
        self.pending.dedup();
        let changed = std::mem::take(&mut self.pending);
        let result = self.build_pages(&changed);
        if result.is_err() {
            self.pending = changed;
        }
        result
    }

    /// The configuration, with `--base-url` applied; refused before anything is built if
    /// the signing key cannot sign for it.
    fn load_config(&self) -> Result<Config> {
        let mut config = Config::load(&self.options.root)?;
        if let Some(url) = &self.options.base_url {
            config.set_base_url(url)?;
        }
        if let Some(signing) = &self.options.signing {
            release::check_key(&config, signing)?;
            config.release_label = signing.label.clone();
        }
        Ok(config)
    }

    fn build_pages(&mut self, changed: &[PathBuf]) -> Result<Update> {
        let started = Instant::now();
        let mut watch = Stopwatch::start();
        let root = self.options.root.clone();
        let content_dir = root.join("content");
        let config_file = root.join(crate::config::CONFIG_FILE);
        let old = match &self.state {
            Some(state) if !changed.contains(&config_file) => Some(state),
            _ => None,
        };
        if old.is_none() {
            self.parsed.clear();
            self.hashes.clear();
        }
        for path in changed {
            if let Ok(rel) = path.strip_prefix(&content_dir) {
                self.parsed.forget(rel);
            }
        }
        let content_changed = old.is_none() || changed.iter().any(|p| p.starts_with(&content_dir));
        let theme_changed = old.is_none()
            || changed
                .iter()
                .any(|p| !p.starts_with(&content_dir) && p != &config_file);

        let config = match old {
            Some(o) => o.config.clone(),
            None => Arc::new(self.load_config()?),
        };
        if old.is_none() && !self.incremental {
            let file = cache_file(&config, crate::render::LINK_CACHE_FILE);
            self.links = Some(LinkCache::parse(std::fs::read(file).unwrap_or_default()));
        }
        // The output folder is scanned on another thread while the content loads: the one
        // waits on the disk, the other mostly on the CPU.
        let scan = match (&mut self.publishing, old) {
            (Some(p), None) => Some(p.open(&config, self.options.notices.as_ref())?),
            _ => None,
        };
        // Content, link and theme problems are independent: report them all together.
        let mut diags: Vec<Diagnostic> = Vec::new();
        let corpus = match old {
            Some(o) if !content_changed => Some(o.corpus.clone()),
            _ => {
                // Only serve rebuilds again: a one-shot build need not stamp every file.
                let cache = self.incremental.then_some(&mut self.parsed);
                let listed = self
                    .publishing
                    .as_mut()
                    .and_then(|p| p.content_files.take());
                let (corpus, problems) = load_content(&config, self.options.drafts, cache, listed)?;
                diags.extend(problems);
                warn(self.options.notices.as_ref(), &corpus.warnings);
                Some(Arc::new(corpus))
            }
        };
        watch.lap("load content");
        let theme = match old {
            Some(o) if !theme_changed => Some(o.theme.clone()),
            _ => match Theme::load(&config) {
                Ok(theme) => {
                    warn(self.options.notices.as_ref(), &theme.warnings);
                    Some(Arc::new(theme))
                }
                Err(Error::Diagnostics(d)) => {
                    diags.extend(d);
                    None
                }
                Err(e) => return Err(e),
            },
        };
        watch.lap("load theme");
        let (corpus, theme) = match (corpus, theme) {
            (Some(corpus), Some(theme)) if diags.is_empty() => (corpus, theme),
            _ => {
                diags.sort();
                diags.dedup();
                return Err(Error::Diagnostics(diags));
            }
        };
        if let (Some(scan), Some(publishing)) = (scan, self.publishing.as_mut()) {
            let prior = scan
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
            // Pages are written beside the output as they are rendered.
            let prior = Arc::new(prior);
            publishing.stage = Some(match prior.exists {
                true => output::Stage::update(prior.clone())?,
                false => output::Stage::open(&publishing.out)?,
            });
            publishing.prior = Some(prior);
            watch.lap("scan output");
        }
        let images = match old {
            Some(o) if !content_changed => o.images.clone(),
            _ => {
                let prior = self.publishing.as_ref().and_then(|p| p.prior.as_deref());
                let kept = self.incremental.then_some(&mut self.kept_images);
                let last = old.map(|o| (o.images.as_ref(), changed));
                let images = load::images(&self.options, &config, &corpus, prior, kept, last)?;
                Arc::new(images)
            }
        };
        watch.lap("images");

        let changed_pages = old.and_then(|o| {
            if content_changed {
                incremental::changed_pages(&o.corpus, &corpus, &o.images, &images)
            } else {
                Some(vec![false; corpus.pages.len()])
            }
        });
        let prepared = match (old, &changed_pages) {
            (Some(o), Some(_)) if !content_changed => o.prepared.clone(),
            (Some(o), Some(pages)) => Arc::new(render::prepare(
                &config,
                &corpus,
                &images,
                Some(render::Reuse {
                    prepared: &o.prepared,
                    changed_pages: pages,
                }),
            )?),
            _ => {
                let publishing = self.publishing.as_mut().filter(|_| !self.incremental);
                Arc::new(whole::prepare_kept(&config, &corpus, &images, publishing)?)
            }
        };
        watch.lap("prepare");
        // A one-shot build makes the search index now, while what it is made from is fresh
        // in memory (measured: twice as fast as after the pages), and renders the search
        // pages with the others. serve answers with the pages first; until `finish` makes
        // the new index, it keeps the last one.
        let search_fresh = old.is_none() && !self.incremental;
        let search = match old {
            Some(o) => o.search.clone(),
            None if search_fresh => {
                let publishing = self.publishing.as_mut();
                let index = whole::search_index_kept(&config, &corpus, &prepared, publishing);
                watch.lap("search index");
                Arc::new(index)
            }
            None => Default::default(),
        };
        let shared = Arc::new(Shared::new(
            &config,
            &corpus,
            &theme,
            &prepared,
            old.map(|o| o.shared.as_ref()),
            self.options.publishes_proofs(),
        ));
        let unchanged = self
            .publishing
            .as_ref()
            .and_then(|p| p.prior.as_deref())
            .map(|prior| {
                let options = self.options.rendered_with();
                render::Unchanged::new(prior, &config, &theme, &shared, &options)
            });
        let renderer = Renderer {
            config: &config,
            corpus: &corpus,
            theme: &theme,
            images: &images,
            prepared: &prepared,
            search: &search,
            shared: &shared,
            options: self.render_options(),
            links: self.links.as_ref(),
            unchanged: unchanged.as_ref(),
            stage: self.publishing.as_ref().and_then(|p| p.stage.as_ref()),
        };
        let jobs = renderer.jobs();
        let url_paths: Vec<String> = jobs.iter().map(|j| renderer.url_path(j)).collect();
        let page_paths: Vec<String> = url_paths.iter().map(|p| output::file_for_url(p)).collect();
        let page_files: PathSet = page_paths.iter().cloned().collect();
        // Pages still deferred are rendered when the pages left for later are: not now.
        let deferring = match old {
            Some(o) => o.stale == Stale::Pages,
            None => self.defer_pages,
        };
        // The pages of the files saved, first (serve): the rest on request, then in `finish`.
        let own_pages = self.defer_pages.then(|| changed_pages.clone()).flatten();
        let to_render: Vec<&render::Job> = match (old, changed_pages) {
            (Some(o), Some(pages)) => {
                let delta = incremental::Delta::new(
                    incremental::Builds {
                        corpus: &o.corpus,
                        prepared: &o.prepared,
                        shared: &o.shared,
                        theme: &o.theme,
                    },
                    incremental::Builds {
                        corpus: &corpus,
                        prepared: &prepared,
                        shared: &shared,
                        theme: &theme,
                    },
                    pages,
                );
                jobs.iter()
                    .zip(&page_paths)
                    .filter(|(job, path)| match o.files.contains_key(*path) {
                        true => delta.dirty(&renderer, job),
                        false => !deferring,
                    })
                    .map(|(job, _)| job)
                    .collect()
            }
            _ if deferring => jobs
                .iter()
                .filter(|job| deferred::rendered_first(&renderer, job))
                .collect(),
            _ => jobs.iter().collect(),
        };
        let (to_render, later) = deferred::split(to_render, own_pages.as_deref());
        let deferring = deferring || !later.is_empty();
        watch.lap("choose pages");
        let rendered = renderer.render_pages(&to_render)?;
        watch.lap("render pages");
        // A rebuild puts only what changed: `serve` keeps most photographs as they were.
        let assets = match old {
            None => Some((None, renderer.page_assets()?)),
            Some(o) if content_changed && self.incremental => {
                let (gone, outputs) = renderer.page_assets_since(&o.corpus, &o.images)?;
                Some((Some(gone), outputs))
            }
            Some(_) if content_changed => Some((None, renderer.page_assets()?)),
            Some(_) => None,
        };
        let theme_outputs = (old.is_none() || theme_changed)
            .then(|| renderer.theme_outputs())
            .transpose()?;
        if old.is_none() {
            let outputs = assets.iter().flat_map(|(_, outputs)| outputs);
            let outputs = outputs.chain(theme_outputs.iter().flatten());
            let paths = page_paths.iter().map(String::as_str);
            whole::check_same_paths(&corpus, paths.chain(outputs.map(|o| o.path.as_str())))?;
        }

        let mut merge = Merge::from(old.map(|o| o.files.as_ref()), self.incremental);
        let empty = PathSet::default();
        merge.drop_missing(old.map_or(&empty, |o| &o.page_files), &page_files);
        for job in later {
            merge.remove(&output::file_for_url(&renderer.url_path(job)));
        }
        // Pages left as the last build published them were not rendered.
        let rendered_count = rendered.iter().filter(|r| r.rendered).count();
        let mut pages = Vec::new();
        let mut fingerprints = Vec::new();
        for page in rendered {
            pages.extend(page.html);
            let out = page.output;
            fingerprints.extend(page.fingerprint.map(|f| (out.path.clone(), f)));
            merge.put(out);
        }
        if let Some(publishing) = self.publishing.as_mut() {
            publishing.fingerprints.extend(fingerprints);
        }
        let before = old.map_or(&empty, |o| &o.asset_files);
        let asset_files = match assets {
            Some((Some(gone), outputs)) => merge.patch(before, gone, outputs),
            Some((None, outputs)) => merge.replace(before, outputs),
            None => before.clone(),
        };
        let theme_files = match theme_outputs {
            Some(outputs) => merge.replace(old.map_or(&empty, |o| &o.theme_files), outputs),
            None => old.map(|o| o.theme_files.clone()).unwrap_or_default(),
        };
        // Attachments are copied from their sources as they are: the output (a path) stays
        // the same when the source's bytes change.
        for asset in &corpus.assets {
            if changed.contains(&asset.source) {
                merge.note(&asset.output);
            }
        }
        watch.lap("merge");
        // The manifest, made by `finish`, hashes only files it has not seen.
        for path in &merge.changed {
            self.hashes.remove(path);
        }

        let update = Update {
            rendered: rendered_count,
            pages: url_paths.len(),
            full: old.is_none(),
            ..Update::of_step(merge.changed, started, watch)
        };
        let site_files = old.map(|o| o.site_files.clone()).unwrap_or_default();
        let before = old.and_then(|o| o.deferred.clone());
        let previous = old.map_or(Stale::Site, |o| o.stale);
        let stale = if deferring {
            Stale::Pages
        } else if search_fresh {
            Stale::SiteFiles
        } else if content_changed {
            Stale::Site
        } else if update.changed.is_empty() {
            previous
        } else {
            previous.max(Stale::Manifest)
        };
        self.state = Some(State {
            config,
            theme,
            corpus,
            images,
            prepared,
            search,
            shared,
            files: Arc::new(merge.files),
            pages,
            page_files,
            asset_files,
            theme_files,
            site_files,
            stale,
            deferred: None,
        });
        if deferring {
            let options = self.render_options();
            let state = self.state.as_mut().expect("just made");
            let deferred = Deferred::of(state, &url_paths, options, before.as_deref());
            state.deferred = Some(Arc::new(deferred));
        }
        Ok(update)
    }

    /// `out` written beside the output at once (`output::Stage`), when a build writes one.
    fn stage(&self, out: Output) -> Output {
        output::Stage::put_in(self.publishing.as_ref().and_then(|p| p.stage.as_ref()), out)
    }

    /// Brings the whole-site files up to date with the pages: the search index and search
    /// pages, sitemap, feeds and data export after a content change, and the manifest after
    /// any change.
    pub fn finish(&mut self) -> Result<Update> {
        if self.state.as_ref().is_some_and(|s| s.stale == Stale::Pages) {
            return self.render_deferred();
        }
        let started = Instant::now();
        let mut watch = Stopwatch::start();
        let options = self.render_options();
        if self.kept_images.save() {
            watch.lap("image cache index");
        }
        let search_files = whole::take_for_site_files(self.state.as_mut(), self.incremental);
        let Some(state) = self.state.as_ref().filter(|s| s.stale != Stale::Fresh) else {
            return Ok(Update::default());
        };
        let mut merge = Merge::from(Some(state.files.as_ref()), self.incremental);
        let mut page_files = state.page_files.clone();
        let mut site_files = state.site_files.clone();
        let mut search = state.search.clone();
        let mut rendered_count = 0;
        let mut kept_pages = Vec::new();
        watch.lap("file map");
        if state.stale >= Stale::SiteFiles {
            if state.stale >= Stale::Site {
                search = Arc::new(whole::search_index(
                    &state.config,
                    &state.corpus,
                    &state.prepared,
                    // A one-shot build has no next build to keep terms for.
                    self.incremental.then_some(&mut self.terms),
                ));
                watch.lap("search index");
            }
            let renderer = state.renderer(&search, options);
            let jobs = renderer.jobs();
            let url_paths: Vec<String> = jobs.iter().map(|j| renderer.url_path(j)).collect();
            let search_pages: Vec<&render::Job> = jobs
                .iter()
                .filter(|job| match job {
                    render::Job::Search { lang } => {
                        state.search.entries.get(*lang) != search.entries.get(*lang)
                            || !page_files.contains(&output::file_for_url(&renderer.url_path(job)))
                    }
                    _ => false,
                })
                .collect();
            let rendered = renderer.render_pages(&search_pages)?;
            watch.lap("search pages");
            let site_outputs = whole::outputs(
                &state.config,
                &state.corpus,
                &state.prepared,
                search_files.unwrap_or_else(|| search.outputs.clone()),
                &url_paths,
                self.publishing.as_mut(),
            )?;
            watch.lap("site files");
            // Every file of the site, once: pages (search pages included), attachments,
            // theme files and whole-site files. Two sources of one path would lose one.
            let page_paths: Vec<String> =
                url_paths.iter().map(|p| output::file_for_url(p)).collect();
            let all = page_paths
                .iter()
                .chain(&state.asset_files)
                .chain(&state.theme_files)
                .map(String::as_str)
                .chain(site_outputs.iter().map(|o| o.path.as_str()));
            whole::check_collisions(&state.corpus, all)?;
            rendered_count = rendered.len();
            for page in rendered {
                kept_pages.extend(page.html);
                page_files.insert(page.output.path.clone());
                merge.put(page.output);
            }
            let site_outputs = site_outputs.into_iter().map(|o| self.stage(o)).collect();
            site_files = merge.replace(&site_files, site_outputs);
            watch.lap("merge");
        }

        manifest_files::make(
            &self.options,
            self.publishing.as_mut(),
            self.incremental.then_some(&mut self.hashes),
            state,
            &mut merge,
            &mut watch,
        )?;

        let update = Update {
            rendered: rendered_count,
            pages: page_files.len(),
            ..Update::of_step(merge.changed, started, watch)
        };
        let state = self.state.as_mut().expect("checked above");
        state.search = search;
        state.files = Arc::new(merge.files);
        state.page_files = page_files;
        state.site_files = site_files;
        state.stale = Stale::Fresh;
        if let Some(links) = self.links.take() {
            // A cache: a build that cannot save it is only slower next time.
            let file = cache_file(&state.config, crate::render::LINK_CACHE_FILE);
            let _ = output::save_atomically(&file, &links.into_bytes());
        }
        state.pages.extend(kept_pages);
        Ok(update)
    }
}

fn warn(notices: Option<&Notices>, warnings: &[Diagnostic]) {
    for warning in warnings {
        Notices::tell(notices, Notice::Warning(warning.clone()));
    }
}

/// Where a one-shot build leaves its search index for the next.
const SEARCH_CACHE_FILE: &str = "search.bin";

/// A file a one-shot build keeps for the next (its link rewrites, the record of what it
/// published): in the image cache folder.
pub(crate) fn cache_file(config: &Config, name: &str) -> PathBuf {
    config.root.join(&config.images.cache_dir).join(name)
}
