//! A build's files by output path, and how one step's outputs are merged into them.

use std::sync::Arc;

use crate::output::{Output, PathMap, PathSet};

/// The built site: output path (`cases/syn-0001/index.html`) -> file.
pub(crate) type Files = PathMap<Arc<Output>>;

/// Which whole-site files are older than the pages, in increasing order of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Stale {
    Fresh,
    /// Some file changed: the manifest.
    Manifest,
    /// The sitemap, feeds, data export and manifest (the search index is already made).
    SiteFiles,
    /// The content changed: the search index, sitemap, feeds, data export and manifest.
    Site,
    /// Pages of serve's first build are still to render (`deferred`), then all of `Site`.
    Pages,
}

/// A new file set: the old one with a step's outputs put in place, noting what changed.
pub(super) struct Merge {
    pub(super) files: Files,
    pub(super) changed: Vec<String>,
    /// Whether to list what changed: only rebuilds (`serve`) are told. A one-shot build
    /// would list, and sort, every path of the site (192,000 at archive scale) for nobody.
    track: bool,
}

impl Merge {
    /// Starts from the previous build's files (shared, not copied: only the map is new);
    /// `track` lists what changed.
    pub(super) fn from(previous: Option<&Files>, track: bool) -> Merge {
        Merge {
            files: previous.cloned().unwrap_or_default(),
            changed: Vec::new(),
            track,
        }
    }

    pub(super) fn put(&mut self, out: Output) {
        if self.files.get(&out.path).is_none_or(|prev| **prev != out) {
            self.note(&out.path);
            self.files.insert(out.path.clone(), Arc::new(out));
        }
    }

    /// Takes `path` out (it is made again later), listing it as changed.
    pub(super) fn remove(&mut self, path: &str) {
        if self.files.remove(path).is_some() {
            self.note(path);
        }
    }

    /// Lists `path` as changed, when changes are listed.
    pub(super) fn note(&mut self, path: &str) {
        if self.track {
            self.changed.push(path.to_string());
        }
    }

    pub(super) fn drop_missing(&mut self, before: &PathSet, now: &PathSet) {
        for path in before.difference(now) {
            self.files.remove(path);
            self.note(path);
        }
    }

    /// Replaces every output a step made last time with what it made now.
    pub(super) fn replace(&mut self, before: &PathSet, outputs: Vec<Output>) -> PathSet {
        let now = outputs.iter().map(|o| o.path.clone()).collect();
        self.drop_missing(before, &now);
        for out in outputs {
            self.put(out);
        }
        now
    }

    /// Brings a step's outputs up to date from what changed since `before` (its paths last
    /// time): drops each `gone` path it does not make again and puts `outputs`; returns its
    /// paths now.
    pub(super) fn patch(
        &mut self,
        before: &PathSet,
        gone: Vec<String>,
        outputs: Vec<Output>,
    ) -> PathSet {
        let mut now = before.clone();
        let made: PathSet = outputs.iter().map(|o| o.path.clone()).collect();
        for path in gone {
            if !made.contains(&path) && now.remove(&path) {
                self.files.remove(&path);
                self.note(&path);
            }
        }
        now.extend(made);
        for out in outputs {
            self.put(out);
        }
        now
    }
}
