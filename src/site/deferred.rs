//! `serve` answers before every page is rendered. Its first build renders only the home
//! and "not found" pages of each language; the builder thread renders the rest next,
//! before the whole-site files. Until it has, a page asked for is rendered on request from
//! that same build (`Deferred`), so every address answers from the start, with the very
//! bytes the full render gives it.

use std::sync::Arc;
use std::time::Instant;

use super::files::{Merge, Stale};
use super::{Session, State, Stopwatch, Update};
use crate::config::Config;
use crate::content::Corpus;
use crate::error::{Diagnostic, Result};
use crate::images::ImageSet;
use crate::output::{self, Output, PathMap};
use crate::render::{Job, Prepared, RenderOptions, Renderer, Shared};
use crate::search::SearchIndex;
use crate::theme::Theme;

/// The pages of a build not rendered yet, and what renders any one of them.
pub(crate) struct Deferred {
    config: Arc<Config>,
    corpus: Arc<Corpus>,
    theme: Arc<Theme>,
    images: Arc<ImageSet>,
    prepared: Arc<Prepared>,
    search: Arc<SearchIndex>,
    shared: Arc<Shared>,
    options: RenderOptions,
    /// Output path of each page not rendered yet -> its place in `Renderer::jobs`.
    pending: PathMap<usize>,
    /// When the first build left pages for later, and how many.
    since: Instant,
    first: usize,
}

/// How many pages a step of `render_deferred` renders: a change saved meanwhile waits for
/// one step (about a tenth of a second), not for the whole site.
const STEP: usize = if cfg!(test) { 3 } else { 1024 };

/// Whether serve's first build renders `job` at once: a visitor's first page is most often
/// a home page, and a "not found" page answers every address that has none.
pub(super) fn rendered_first(renderer: &Renderer, job: &Job) -> bool {
    match job {
        Job::Section { index, page: 1 } => renderer.corpus.sections[*index].dir.is_empty(),
        Job::NotFound { .. } => true,
        _ => false,
    }
}

/// A rebuild with more pages to render than this renders the pages of the files saved
/// first, and the others (lists, facet pages, pages showing counts) after.
const MOST_AT_ONCE: usize = if cfg!(test) { 2 } else { 32 };

/// `to_render` split into what a rebuild renders now, the pages of the files saved
/// (`own_pages`, by page index) and the "not found" pages, and what it leaves for later; all
/// now when there are few, or when no page's own file changed (a template: no page comes
/// first).
pub(super) fn split<'j>(
    to_render: Vec<&'j Job<'j>>,
    own_pages: Option<&[bool]>,
) -> (Vec<&'j Job<'j>>, Vec<&'j Job<'j>>) {
    let Some(own) = own_pages.filter(|_| to_render.len() > MOST_AT_ONCE) else {
        return (to_render, Vec::new());
    };
    let (now, later): (Vec<&Job>, Vec<&Job>) = (to_render.iter()).partition(|job| match job {
        Job::Page(i) => own[*i],
        // Every address that has no page is answered with one of these.
        Job::NotFound { .. } => true,
        _ => false,
    });
    if !now.iter().any(|job| matches!(job, Job::Page(_))) {
        return (to_render, Vec::new());
    }
    (now, later)
}

impl Deferred {
    /// What `state` has not rendered of the pages at `url_paths` (one per job, in order);
    /// `before`, what the last build had not.
    pub(super) fn of(
        state: &State,
        url_paths: &[String],
        options: RenderOptions,
        before: Option<&Deferred>,
    ) -> Deferred {
        let pending: PathMap<usize> = url_paths
            .iter()
            .enumerate()
            .map(|(at, url)| (output::file_for_url(url), at))
            .filter(|(file, _)| !state.files.contains_key(file))
            .collect();
        Deferred {
            config: state.config.clone(),
            corpus: state.corpus.clone(),
            theme: state.theme.clone(),
            images: state.images.clone(),
            prepared: state.prepared.clone(),
            search: state.search.clone(),
            shared: state.shared.clone(),
            options,
            since: before.map_or_else(Instant::now, |d| d.since),
            first: before.map_or(pending.len(), |d| d.first),
            pending,
        }
    }

    /// The same build with only `pending` left to render (the build's parts are shared, the
    /// map of what was pending is not copied).
    fn with_pending(&self, pending: PathMap<usize>) -> Deferred {
        Deferred {
            config: self.config.clone(),
            corpus: self.corpus.clone(),
            theme: self.theme.clone(),
            images: self.images.clone(),
            prepared: self.prepared.clone(),
            search: self.search.clone(),
            shared: self.shared.clone(),
            options: self.options,
            pending,
            since: self.since,
            first: self.first,
        }
    }

    fn renderer(&self) -> Renderer<'_> {
        Renderer {
            config: &self.config,
            corpus: &self.corpus,
            theme: &self.theme,
            images: &self.images,
            prepared: &self.prepared,
            search: &self.search,
            shared: &self.shared,
            options: self.options,
            links: None,
            unchanged: None,
            stage: None,
        }
    }

    /// Whether the page at output path `path` is one not rendered yet.
    pub(crate) fn holds(&self, path: &str) -> bool {
        self.pending.contains_key(path)
    }

    /// Renders the page at output path `path` on this thread, if it is one not rendered
    /// yet.
    pub(crate) fn render(&self, path: &str) -> Option<std::result::Result<Output, Diagnostic>> {
        let at = *self.pending.get(path)?;
        let renderer = self.renderer();
        let jobs = renderer.jobs();
        Some(renderer.render_alone(&jobs[at]))
    }
}

impl Session {
    /// Renders the next `STEP` pages serve's first build left for later; after the last,
    /// leaves the whole-site files to the next `finish`.
    pub(super) fn render_deferred(&mut self) -> Result<Update> {
        let started = Instant::now();
        let mut watch = Stopwatch::start();
        let options = self.render_options();
        let state = self.state.as_ref().expect("only a build defers pages");
        let Some(deferred) = state.deferred.clone() else {
            unreachable!("a state with pages to render holds them");
        };
        let renderer = state.renderer(&state.search, options);
        let jobs = renderer.jobs();
        let mut todo: Vec<usize> = deferred.pending.values().copied().collect();
        todo.sort_unstable();
        todo.truncate(STEP);
        let todo: Vec<&Job> = todo.iter().map(|&at| &jobs[at]).collect();
        let rendered = renderer.render_pages(&todo)?;
        watch.lap("render pages");
        let mut merge = Merge::from(Some(state.files.as_ref()), self.incremental);
        for page in rendered {
            merge.put(page.output);
        }
        watch.lap("merge");
        let mut update = Update {
            rendered: todo.len(),
            pages: state.page_files.len(),
            deferred: true,
            ..Update::of_step(merge.changed, started, watch)
        };
        let rest = deferred.with_pending(
            (deferred.pending.iter())
                .filter(|(path, _)| !merge.files.contains_key(*path))
                .map(|(path, at)| (path.clone(), *at))
                .collect(),
        );
        let state = self.state.as_mut().expect("checked above");
        state.files = Arc::new(merge.files);
        if rest.pending.is_empty() {
            // The last step tells about them all.
            (update.rendered, update.took) = (rest.first, rest.since.elapsed());
            state.deferred = None;
            // Whatever a rebuild meanwhile left stale, the whole-site files are made anew.
            state.stale = Stale::Site;
        } else {
            state.deferred = Some(Arc::new(rest));
        }
        Ok(update)
    }

    /// The pages of the last good build not rendered yet, while there are any.
    pub(crate) fn deferred(&self) -> Option<Arc<Deferred>> {
        self.state.as_ref().and_then(|s| s.deferred.clone())
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    const BASE: &str = "http://127.0.0.1:1111/";

    fn bilingual_site() -> (tempfile::TempDir, PathBuf) {
        crate::paths::fixture_copy("i18n")
    }

    fn finish_all(session: &mut Session) {
        while session.unfinished() {
            session.finish().unwrap();
        }
    }

    fn site_of(session: &Session) -> Vec<(String, Output)> {
        let mut files: Vec<(String, Output)> = (session.files().unwrap().iter())
            .map(|(path, file)| (path.clone(), Output::clone(file)))
            .collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        files
    }

    fn full_build(root: &Path) -> Vec<(String, Output)> {
        let mut session = Session::new(root, Some(BASE.into()), false);
        session.build_all(&[]).unwrap();
        site_of(&session)
    }

    #[test]
    fn a_page_rendered_on_request_is_the_page_the_full_render_gives() {
        let (_dir, root) = bilingual_site();
        let mut session = Session::new(&root, Some(BASE.into()), false).deferring_pages();
        session.build(&[]).unwrap();
        let first = session.files().unwrap();
        for home in ["index.html", "ar/index.html", "404.html", "ar/404.html"] {
            assert!(first.contains_key(home), "{home} is rendered first");
        }
        let deferred = session.deferred().expect("pages left for later");
        assert!(!first.contains_key("cases/c-1/index.html"));
        assert!(
            deferred.holds("cases/c-1/index.html") && deferred.holds("ar/cases/c-1/index.html")
        );
        assert!(!deferred.holds("index.html") && deferred.render("index.html").is_none());
        let on_request: Vec<(String, Output)> = (deferred.pending.keys())
            .map(|path| (path.clone(), deferred.render(path).unwrap().unwrap()))
            .collect();
        assert!(on_request.len() > 2 * STEP, "rendered over several steps");

        let mut steps = 0;
        while session.deferred().is_some() {
            let update = session.finish().unwrap();
            assert!(update.deferred && update.rendered <= on_request.len());
            steps += 1;
        }
        assert!(steps > 2, "{steps} steps");
        finish_all(&mut session);
        let site = session.files().unwrap();
        for (path, page) in &on_request {
            assert_eq!(site.get(path).map(|f| f.as_ref()), Some(page), "{path}");
        }
        assert!(
            site_of(&session) == full_build(&root),
            "the same site as a full render"
        );
    }

    #[test]
    fn an_edit_while_pages_are_left_for_later_gives_the_full_builds_site() {
        let (_dir, root) = bilingual_site();
        let mut session = Session::new(&root, Some(BASE.into()), false).deferring_pages();
        session.build(&[]).unwrap();
        session.finish().unwrap();
        let rendered = session.files().unwrap();
        let case = root.join("content/cases/c-1/index.md");
        let text = std::fs::read_to_string(&case).unwrap();
        std::fs::write(&case, format!("{text}\nAn edit made while pages wait.\n")).unwrap();
        session.build(std::slice::from_ref(&case)).unwrap();
        let deferred = session.deferred().expect("still left for later");
        // An edited page not rendered yet is rendered, on request or later, as it is now.
        if let Some(Ok(page)) = deferred.render("cases/c-1/index.html") {
            let html = String::from_utf8(page.read().unwrap().into_owned()).unwrap();
            assert!(html.contains("An edit made while pages wait."));
        } else {
            let page = &session.files().unwrap()["cases/c-1/index.html"];
            assert!(!Arc::ptr_eq(page, &rendered["cases/c-1/index.html"]));
        }
        finish_all(&mut session);
        assert!(session.deferred().is_none());
        assert!(
            site_of(&session) == full_build(&root),
            "the same site as a full build"
        );
    }

    #[test]
    fn a_rebuild_renders_the_saved_cases_pages_first_and_the_lists_after() {
        let (_dir, root) = bilingual_site();
        let mut session = Session::new(&root, Some(BASE.into()), false).deferring_pages();
        session.build(&[]).unwrap();
        finish_all(&mut session);
        let case = root.join("content/cases/c-2/index.md");
        let text = std::fs::read_to_string(&case).unwrap();
        std::fs::write(&case, text.replace("\"227\"", "\"215\"")).unwrap();
        let update = session.build(std::slice::from_ref(&case)).unwrap();
        let files = session.files().unwrap();
        let deferred = session.deferred().expect("the lists left for later");
        for own in ["cases/c-2/index.html", "ar/cases/c-2/index.html"] {
            let html = String::from_utf8(files[own].read().unwrap().into_owned()).unwrap();
            assert!(
                html.contains("Branch 215") || html.contains("الفرع 215"),
                "{own}"
            );
            assert!(!deferred.holds(own));
        }
        // A list left for later is out of the site, named changed (open pages reload), and
        // rendered on request meanwhile.
        let list = "cases/index.html";
        assert!(deferred.holds(list) && !files.contains_key(list));
        assert!(
            update.changed.iter().any(|p| p == list),
            "{:?}",
            update.changed
        );
        let on_request = deferred.render(list).unwrap().unwrap();
        finish_all(&mut session);
        assert_eq!(session.files().unwrap()[list].as_ref(), &on_request);
        assert!(
            site_of(&session) == full_build(&root),
            "the same site as a full build"
        );
    }

    #[test]
    fn a_rebuild_renders_the_saved_pages_and_the_not_found_pages_first() {
        let jobs = [
            Job::Page(0),
            Job::Page(1),
            Job::Section { index: 0, page: 1 },
            Job::NotFound { lang: "en" },
        ];
        let all: Vec<&Job> = jobs.iter().collect();
        let (now, later) = split(all.clone(), Some(&[false, true]));
        assert!(
            matches!(now[..], [Job::Page(1), Job::NotFound { .. }]),
            "{now:?}"
        );
        assert!(
            matches!(later[..], [Job::Page(0), Job::Section { .. }]),
            "{later:?}"
        );
        // A template saved: no page's own file changed, so none comes first.
        assert_eq!(split(all.clone(), Some(&[false, false])).0.len(), 4);
        // Few pages, or a build that defers nothing: all at once.
        assert_eq!(split(all[..2].to_vec(), Some(&[false, true])).0.len(), 2);
        assert_eq!(split(all, None).0.len(), 4);
    }
}
