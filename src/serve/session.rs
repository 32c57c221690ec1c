//! Incremental builds in memory: the state `casebook serve` keeps between rebuilds.
//!
//! The first build is a full one. After it, a rebuild is told which files changed and
//! reuses everything else: content folders are listed and files parsed again only where
//! they changed; markdown, list items and search documents are redone only for changed
//! pages; and only the page jobs a change can affect are rendered (`render::incremental`).
//! A configuration change starts over. A failed rebuild leaves the previous site as it was.
//!
//! A rebuild has two steps, so the edited page reloads as soon as it is ready:
//! `build` renders the pages and their images; `finish` then redoes what is made from the
//! whole site (search index and page, sitemap, feeds, data export, manifest). Both together
//! give exactly what `casebook build` would (the serve tests compare them).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::content::{Corpus, ParseCache};
use crate::error::{Error, Result};
use crate::images::{self, ImageSet, manifest};
use crate::output::{self, Output};
use crate::render::{self, Prepared, Renderer, Shared, incremental};
use crate::search::{SearchIndex, TermCache};
use crate::theme::Theme;

/// The built site: output path (`cases/syn-0001/index.html`) -> file.
pub type Files = HashMap<String, Arc<Output>>;

/// What one step of a build changed.
#[derive(Debug, Clone, Default)]
pub struct Update {
    /// Output paths whose bytes are new, added or removed, sorted.
    pub changed: Vec<String>,
    /// Page jobs rendered.
    pub rendered: usize,
    pub pages: usize,
    /// Whether everything was rebuilt.
    pub full: bool,
    pub took: Duration,
    /// Wall time of each step, for `--timings`.
    pub timings: Vec<(&'static str, Duration)>,
}

pub struct Session {
    root: PathBuf,
    base_url: Option<String>,
    drafts: bool,
    state: Option<State>,
    parsed: ParseCache,
    terms: TermCache,
    hashes: manifest::FileHashes,
    /// Files changed since the last good build: a failed build's changes count again.
    pending: Vec<PathBuf>,
}

/// One successful build, held by `Arc`s so that a rebuild reuses what did not change and a
/// failed one drops nothing.
struct State {
    config: Arc<Config>,
    theme: Arc<Theme>,
    corpus: Arc<Corpus>,
    images: Arc<ImageSet>,
    prepared: Arc<Prepared>,
    search: Arc<SearchIndex>,
    shared: Arc<Shared>,
    files: Arc<Files>,
    /// Output paths by the step that makes them, to drop what a rebuild no longer makes.
    page_files: HashSet<String>,
    asset_files: HashSet<String>,
    theme_files: HashSet<String>,
    site_files: HashSet<String>,
    /// What `finish` has to bring up to date.
    stale: Stale,
}

/// Which whole-site files are older than the pages, in increasing order of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stale {
    Fresh,
    /// Some file changed: the manifest.
    Manifest,
    /// The content changed: the search index, sitemap, feeds, data export and manifest.
    Site,
}

impl State {
    fn renderer<'a>(&'a self, search: &'a SearchIndex) -> Renderer<'a> {
        Renderer::new(
            &self.config,
            &self.corpus,
            &self.theme,
            &self.images,
            &self.prepared,
            search,
            &self.shared,
            render::RenderOptions::default(),
        )
    }
}

/// A new file set: the old one with a step's outputs put in place, noting what changed.
struct Merge {
    files: Files,
    changed: Vec<String>,
}

impl Merge {
    fn put(&mut self, out: Output) {
        if self.files.get(&out.path).is_none_or(|prev| **prev != out) {
            self.changed.push(out.path.clone());
            self.files.insert(out.path.clone(), Arc::new(out));
        }
    }

    fn drop_missing(&mut self, before: &HashSet<String>, now: &HashSet<String>) {
        for path in before.difference(now) {
            self.files.remove(path);
            self.changed.push(path.clone());
        }
    }

    /// Replaces every output a step made last time with what it made now.
    fn replace(&mut self, before: &HashSet<String>, outputs: Vec<Output>) -> HashSet<String> {
        let now = outputs.iter().map(|o| o.path.clone()).collect();
        self.drop_missing(before, &now);
        for out in outputs {
            self.put(out);
        }
        now
    }
}

impl Session {
    /// A session for the site at `root`; `base_url` replaces the configured one (the
    /// server's own address, so pages work at its root).
    pub fn new(root: &Path, base_url: Option<String>, drafts: bool) -> Session {
        Session {
            root: root.to_path_buf(),
            base_url,
            drafts,
            state: None,
            parsed: ParseCache::default(),
            terms: TermCache::default(),
            hashes: manifest::FileHashes::default(),
            pending: Vec::new(),
        }
    }

    /// The last good build's files, if any.
    pub fn files(&self) -> Option<Arc<Files>> {
        self.state.as_ref().map(|s| s.files.clone())
    }

    /// Whether `finish` has whole-site files to bring up to date.
    pub fn unfinished(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.stale != Stale::Fresh)
    }

    /// Both steps: what `casebook build` would produce, in memory.
    pub fn build_all(&mut self, changed: &[PathBuf]) -> Result<Update> {
        let mut update = self.build(changed)?;
        let rest = self.finish()?;
        update.changed.extend(rest.changed);
        update.changed.sort();
        update.changed.dedup();
        update.rendered += rest.rendered;
        update.pages = update.pages.max(rest.pages);
        update.took += rest.took;
        update.timings.extend(rest.timings);
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

    fn build_pages(&mut self, changed: &[PathBuf]) -> Result<Update> {
        let started = Instant::now();
        let mut watch = crate::Stopwatch::start();
        let content_dir = self.root.join("content");
        let config_file = self.root.join("casebook.toml");
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
            None => {
                let mut config = Config::load(&self.root)?;
                if let Some(url) = &self.base_url {
                    config.set_base_url(url)?;
                }
                Arc::new(config)
            }
        };
        let theme = match old {
            Some(o) if !theme_changed => o.theme.clone(),
            _ => Arc::new(Theme::load(&config)?),
        };
        let (corpus, images) = match old {
            Some(o) if !content_changed => (o.corpus.clone(), o.images.clone()),
            _ => {
                let (corpus, mut diags) =
                    crate::load_content(&config, self.drafts, Some(&mut self.parsed))?;
                if !diags.is_empty() {
                    diags.sort();
                    diags.dedup();
                    return Err(Error::Diagnostics(diags));
                }
                let images = images::run(&config, &corpus, images::Progress::Quiet)?;
                (Arc::new(corpus), Arc::new(images))
            }
        };
        watch.lap("load content");

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
            _ => Arc::new(render::prepare(&config, &corpus, &images, None)?),
        };
        watch.lap("prepare");
        // The index of the last build until `finish` makes the new one.
        let search = old.map_or_else(Default::default, |o| o.search.clone());
        let shared = Arc::new(Shared::new(
            &config,
            &corpus,
            &theme,
            &prepared.facets,
            old.map(|o| o.shared.as_ref()),
        ));
        let renderer = Renderer::new(
            &config,
            &corpus,
            &theme,
            &images,
            &prepared,
            &search,
            &shared,
            render::RenderOptions::default(),
        );
        let jobs = renderer.jobs();
        let url_paths: Vec<String> = jobs.iter().map(|j| renderer.url_path(j)).collect();
        let page_files: HashSet<String> =
            url_paths.iter().map(|p| output::file_for_url(p)).collect();
        let to_render: Vec<&render::Job> = match (old, changed_pages) {
            (Some(o), Some(pages)) => {
                let delta = incremental::Delta::new(
                    &o.corpus,
                    &corpus,
                    &o.prepared,
                    &prepared,
                    &o.shared,
                    &shared,
                    &o.theme,
                    &theme,
                    pages,
                );
                jobs.iter()
                    .zip(&url_paths)
                    .filter(|(job, path)| {
                        !o.files.contains_key(&output::file_for_url(path))
                            || delta.dirty(&renderer, job)
                    })
                    .map(|(job, _)| job)
                    .collect()
            }
            _ => jobs.iter().collect(),
        };
        watch.lap("choose pages");
        let rendered = renderer.render_pages(&to_render)?;
        watch.lap("render pages");
        let assets = (old.is_none() || content_changed).then(|| renderer.page_assets());
        let theme_outputs = (old.is_none() || theme_changed).then(|| renderer.theme_outputs());
        if old.is_none() {
            let paths = rendered.iter().map(|(_, o)| o);
            let paths = paths.chain(assets.iter().flatten());
            let paths = paths.chain(theme_outputs.iter().flatten());
            render::check_collisions(&corpus, paths.map(|o| o.path.as_str()))?;
        }

        let mut merge = Merge {
            files: old.map(|o| (*o.files).clone()).unwrap_or_default(),
            changed: Vec::new(),
        };
        let empty = HashSet::new();
        merge.drop_missing(old.map_or(&empty, |o| &o.page_files), &page_files);
        let rendered_count = rendered.len();
        for (_, out) in rendered {
            merge.put(out);
        }
        let asset_files = match assets {
            Some(outputs) => merge.replace(old.map_or(&empty, |o| &o.asset_files), outputs),
            None => old.map(|o| o.asset_files.clone()).unwrap_or_default(),
        };
        let theme_files = match theme_outputs {
            Some(outputs) => merge.replace(old.map_or(&empty, |o| &o.theme_files), outputs),
            None => old.map(|o| o.theme_files.clone()).unwrap_or_default(),
        };
        // Attachments are copied from their sources as they are: the output (a path) stays
        // the same when the source's bytes change.
        for asset in &corpus.assets {
            if changed.contains(&asset.source) {
                merge.changed.push(asset.output.clone());
            }
        }
        watch.lap("merge");
        // The manifest, made by `finish`, hashes only files it has not seen.
        for path in &merge.changed {
            self.hashes.remove(path);
        }

        merge.changed.sort();
        merge.changed.dedup();
        let update = Update {
            changed: merge.changed,
            rendered: rendered_count,
            pages: url_paths.len(),
            full: old.is_none(),
            took: started.elapsed(),
            timings: watch.laps,
        };
        let site_files = old.map(|o| o.site_files.clone()).unwrap_or_default();
        let previous = old.map_or(Stale::Site, |o| o.stale);
        let stale = if content_changed {
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
            page_files,
            asset_files,
            theme_files,
            site_files,
            stale,
        });
        Ok(update)
    }

    /// Brings the whole-site files up to date with the pages: the search index and search
    /// pages, sitemap, feeds and data export after a content change, and the manifest after
    /// any change.
    pub fn finish(&mut self) -> Result<Update> {
        let started = Instant::now();
        let mut watch = crate::Stopwatch::start();
        let Some(state) = self.state.as_ref().filter(|s| s.stale != Stale::Fresh) else {
            return Ok(Update::default());
        };
        let mut merge = Merge {
            files: (*state.files).clone(),
            changed: Vec::new(),
        };
        let mut page_files = state.page_files.clone();
        let mut site_files = state.site_files.clone();
        let mut search = state.search.clone();
        let mut rendered_count = 0;
        if state.stale == Stale::Site {
            search = Arc::new(render::search_index(
                &state.config,
                &state.corpus,
                &state.prepared,
                &mut self.terms,
            ));
            watch.lap("search index");
            let renderer = state.renderer(&search);
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
            let site_outputs = renderer.site_files(&url_paths)?;
            // Nothing else may claim a whole-site file's path (a page, an attachment, a
            // static file): the build would lose one of them.
            if let Some(clash) = site_outputs
                .iter()
                .find(|o| state.files.contains_key(&o.path) && !site_files.contains(&o.path))
            {
                return Err(Error::one(
                    crate::Diagnostic::new("static", format!("two outputs would be written to `{}`", clash.path))
                        .hint("a static file, a bundle attachment or a page produces the same path; rename one"),
                ));
            }
            rendered_count = rendered.len();
            for (url, out) in rendered {
                page_files.insert(output::file_for_url(&url));
                merge.put(out);
            }
            site_files = merge.replace(&site_files, site_outputs);
            watch.lap("site files");
        }

        // The manifest hashes only the files that changed since the last manifest.
        for path in &merge.changed {
            self.hashes.remove(path);
        }
        merge.files.remove(manifest::MANIFEST);
        let mut listed: Vec<&Output> = merge.files.values().map(Arc::as_ref).collect();
        listed.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let manifest = manifest::build_cached(&listed, &state.images, &mut self.hashes)?;
        match state.files.get(manifest::MANIFEST) {
            Some(prev) if **prev == manifest => {
                merge.files.insert(manifest.path.clone(), prev.clone());
            }
            _ => merge.put(manifest),
        }
        watch.lap("manifest");

        merge.changed.sort();
        merge.changed.dedup();
        let update = Update {
            changed: merge.changed,
            rendered: rendered_count,
            pages: page_files.len(),
            full: false,
            took: started.elapsed(),
            timings: watch.laps,
        };
        let state = self.state.as_mut().expect("checked above");
        state.search = search;
        state.files = Arc::new(merge.files);
        state.page_files = page_files;
        state.site_files = site_files;
        state.stale = Stale::Fresh;
        Ok(update)
    }
}
