//! The builder thread: rebuilds on every batch of changes and publishes each result to the
//! server and the open pages.
//!
//! Two rules keep a page from seeing a state that never really existed:
//! - a failed rebuild is not shown at once: some editors and sync tools save in pieces
//!   (truncate, then write the rest a few hundred milliseconds later), and the half-saved
//!   file fails to parse. The files are read again once no change has arrived for
//!   `SETTLE`, and only a failure that remains is shown. A real mistake shows just as
//!   well, `SETTLE` later.
//! - the search index's files have hashed names, and a rebuild replaces them. A search
//!   that started before it still asks for the old ones, so the files a rebuild replaced
//!   stay served until the next rebuild replaces files again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use super::http::{self, App, Snapshot};
use super::watch::{Watcher, watch_new_folders};
use super::{Message, Report, diagnostics_of};
use crate::error::Result;
use crate::site::{Files, Session, Update};

/// How long a failing file must stay unchanged before its failure is shown. A save in
/// pieces spreads over up to half a second.
const SETTLE: Duration = Duration::from_millis(600);

/// What the builder thread works with.
pub(super) struct Builder<R> {
    pub(super) session: Session,
    pub(super) incoming: mpsc::Receiver<Message>,
    pub(super) watcher: Watcher,
    pub(super) root: PathBuf,
    pub(super) app: Arc<App>,
    pub(super) report: R,
    /// What the rebuilds have read of each path reported changed.
    pub(super) read: Read,
}

/// The workbench's saves as the rebuilds read them: each file saved or reported changed,
/// with its stamp when its report was taken (before the rebuild that reads it), and when
/// the workbench saved it, if it did. A save and the watcher's reports of it within
/// `SAVE_REPORTED` are one change, whichever comes first: the watcher may report the
/// write before the workbench announces it, after, or in two batches. Other reports are
/// always rebuilt.
#[derive(Default)]
pub(super) struct Read(HashMap<PathBuf, (Option<Stamp>, Option<Instant>)>);

/// How long after a save the watcher's reports of it are taken as that save. Later, a
/// report of the file with the same stamp is rebuilt: an edit in place of the same size
/// within one tick of the file system's clock would look the same.
const SAVE_REPORTED: Duration = Duration::from_secs(2);

impl Read {
    /// `paths` (`saved` by the workbench, or reported by the watcher) without those still
    /// as they were when taken for a rebuild, if that or this report is a save (the
    /// watcher's within `SAVE_REPORTED` of it); the others are recorded as taken now.
    fn fresh(&mut self, paths: Vec<PathBuf>, saved: bool) -> Vec<PathBuf> {
        paths
            .into_iter()
            .filter(|path| {
                let now = stamp(path);
                let recent = |at: Instant| at.elapsed() < SAVE_REPORTED;
                let (same, saved_at) = match self.0.get(path) {
                    Some(&(then, at)) if then == now && saved => {
                        (true, at.or(Some(Instant::now())))
                    }
                    Some(&(then, Some(at))) if then == now && recent(at) => (true, Some(at)),
                    _ => (false, saved.then(Instant::now)),
                };
                self.0.insert(path.clone(), (now, saved_at));
                !same
            })
            .collect()
    }
}

/// A file's size, modification time and inode: a save by renaming a new file into place
/// (the workbench's, most editors') always changes the inode.
type Stamp = (u64, Option<SystemTime>, u64);

fn stamp(path: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok(), meta.ino()))
}

impl<R: Fn(Report)> Builder<R> {
    /// Rebuilds until told to stop. The pages come first; the whole-site files follow when
    /// no newer change is waiting.
    pub(super) fn run(mut self) {
        let mut failing = self.app.site.read().expect("site lock").errors.is_some();
        loop {
            let unfinished = self.session.unfinished();
            self.app
                .settled
                .store(failing || !unfinished, Ordering::SeqCst);
            let message = if unfinished && !failing {
                match self.incoming.try_recv() {
                    Ok(message) => message,
                    Err(mpsc::TryRecvError::Empty) => {
                        let result = self.session.finish();
                        failing = self.publish(result, failing, |update| match update.deferred {
                            true => Report::Rendered(update),
                            false => Report::Finished(update),
                        });
                        continue;
                    }
                    Err(mpsc::TryRecvError::Disconnected) => return,
                }
            } else {
                match self.incoming.recv() {
                    Ok(message) => message,
                    Err(_) => return,
                }
            };
            self.app.settled.store(false, Ordering::SeqCst);
            // Take every batch already waiting: one rebuild serves them all.
            let mut changed = Vec::new();
            let mut next = Some(message);
            while let Some(message) = next.take().or_else(|| self.incoming.try_recv().ok()) {
                match message {
                    Message::Changed(paths) => changed.extend(self.read.fresh(paths, false)),
                    Message::Saved(paths) => changed.extend(self.read.fresh(paths, true)),
                    Message::Stop => return,
                }
            }
            if changed.is_empty() {
                continue;
            }
            watch_new_folders(&mut self.watcher, &self.root, &changed);
            let mut result = self.session.build(&changed);
            if result.is_err() {
                // Perhaps a save in pieces: look again once the files are quiet.
                let Some(later) = settle(&self.incoming, &mut self.read) else {
                    return;
                };
                if !later.is_empty() {
                    watch_new_folders(&mut self.watcher, &self.root, &later);
                    result = self.session.build(&later);
                }
            }
            failing = self.publish(result, failing, Report::Rebuilt);
        }
    }

    /// Serves a build step's result and tells the open pages; returns whether it failed.
    fn publish(&self, result: Result<Update>, failing: bool, done: fn(Update) -> Report) -> bool {
        let app = &self.app;
        match result {
            Ok(update) => {
                let files = self.session.files().unwrap_or_default();
                let before = app.site.read().expect("site lock").clone();
                let replaced = replaced_search_files(&before.files, &files, &update.changed);
                let retired = if replaced.is_empty() {
                    before.retired
                } else {
                    Arc::new(replaced)
                };
                *app.site.write().expect("site lock") = Snapshot {
                    files,
                    retired,
                    errors: None,
                    deferred: self.session.deferred(),
                };
                app.workbench.refresh(&self.session);
                // After a failure every page shows the overlay: all of them reload. Pages
                // rendered after the first build are what was served for them already.
                if failing || (!update.changed.is_empty() && !update.deferred) {
                    let message = http::reload_message(&update.changed, failing || update.full);
                    let _ = app.events.send(("reload", message));
                }
                // Pages rendered after the first build are told about once, all together.
                if !update.deferred || self.session.deferred().is_none() {
                    (self.report)(done(update));
                }
                false
            }
            Err(e) => {
                let diagnostics = diagnostics_of(e);
                app.site.write().expect("site lock").errors = Some(Arc::new(diagnostics.clone()));
                let _ = app.events.send(("failed", "{}".into()));
                (self.report)(Report::Failed(diagnostics));
                true
            }
        }
    }
}

/// Waits until no change has arrived for `SETTLE`; returns the changes that did arrive
/// (`Read::fresh`), or `None` when the server stops meanwhile.
fn settle(incoming: &mpsc::Receiver<Message>, read: &mut Read) -> Option<Vec<PathBuf>> {
    let mut later = Vec::new();
    loop {
        match incoming.recv_timeout(SETTLE) {
            Ok(Message::Changed(paths)) => later.extend(read.fresh(paths, false)),
            Ok(Message::Saved(paths)) => later.extend(read.fresh(paths, true)),
            Ok(Message::Stop) | Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(mpsc::RecvTimeoutError::Timeout) => return Some(later),
        }
    }
}

/// The hashed search files of `before` that a rebuild to `now` replaced (among the paths
/// it `changed`).
fn replaced_search_files(before: &Files, now: &Files, changed: &[String]) -> Files {
    changed
        .iter()
        .filter(|path| is_hashed_search_file(path) && !now.contains_key(*path))
        .filter_map(|path| before.get(path).map(|file| (path.clone(), file.clone())))
        .collect()
}

/// `search/en/t3.1a2b3c4d5e.js`: a search file named by its content's hash.
fn is_hashed_search_file(path: &str) -> bool {
    let Some(stem) = path
        .strip_prefix("search/")
        .and_then(|p| p.strip_suffix(".js"))
    else {
        return false;
    };
    let hash = Path::new(stem)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    hash.len() == 10 && hash.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Output;

    fn files(paths: &[&str]) -> Files {
        paths
            .iter()
            .map(|p| (p.to_string(), Arc::new(Output::bytes(*p, p.as_bytes()))))
            .collect()
    }

    #[test]
    fn a_save_and_the_watchers_reports_of_it_are_rebuilt_once() {
        let tmp = tempfile::tempdir().unwrap();
        let (case, other) = (tmp.path().join("case.md"), tmp.path().join("other.md"));
        let save = |path: &Path, text: &str| {
            let draft = path.with_extension("draft");
            std::fs::write(&draft, text).unwrap();
            std::fs::rename(&draft, path).unwrap();
        };
        let mut read = Read::default();
        // How many of `paths`, reported in one batch (`saved` by the workbench), are rebuilt.
        let mut rebuilt = |paths: &[&PathBuf], saved: bool| {
            let paths = paths.iter().map(|p| p.to_path_buf()).collect();
            read.fresh(paths, saved).len()
        };
        save(&case, "one");
        // Reported by the watcher first, announced by the workbench next, reported again.
        assert_eq!(rebuilt(&[&case], false), 1);
        assert_eq!(rebuilt(&[&case], true), 0);
        assert_eq!(rebuilt(&[&case], false), 0);
        // Announced first, then reported in two batches.
        save(&case, "two");
        assert_eq!(rebuilt(&[&case], true), 1);
        assert_eq!(rebuilt(&[&case, &case], false), 0);
        // The same size again: the new file is another inode.
        save(&case, "six");
        assert_eq!(rebuilt(&[&case], true), 1);
        // Removed, then written again by hand.
        std::fs::remove_file(&case).unwrap();
        assert_eq!(rebuilt(&[&case], false), 1);
        std::fs::write(&case, "by hand").unwrap();
        assert_eq!(rebuilt(&[&case], false), 1);
        save(&case, "ten");
        assert_eq!(rebuilt(&[&case], true), 1);
        // A file the workbench never saved is rebuilt at each report.
        std::fs::write(&other, "x").unwrap();
        assert_eq!(rebuilt(&[&other], false), 1);
        assert_eq!(rebuilt(&[&other], false), 1);
        // Long after a save, a report of the file as it was is rebuilt.
        let (stamped, _) = read.0[&case];
        let long_ago = Instant::now() - SAVE_REPORTED;
        read.0.insert(case.clone(), (stamped, Some(long_ago)));
        assert_eq!(read.fresh(vec![case.clone()], false), [case]);
    }

    #[test]
    fn only_replaced_hashed_search_files_are_kept() {
        let before = files(&[
            "search/en/t1.0123456789.js",
            "search/en/meta.abcdef0123.js",
            "search/index.html",
            "cases/old/index.html",
        ]);
        let now = files(&["search/en/t1.9999999999.js", "search/en/meta.abcdef0123.js"]);
        let changed: Vec<String> = [
            "cases/old/index.html",
            "search/en/t1.0123456789.js",
            "search/en/t1.9999999999.js",
            "search/index.html",
        ]
        .map(String::from)
        .to_vec();
        let kept = replaced_search_files(&before, &now, &changed);
        let mut kept: Vec<&String> = kept.keys().collect();
        kept.sort();
        assert_eq!(kept, ["search/en/t1.0123456789.js"]);
    }

    #[test]
    fn hashed_search_files_are_told_by_name() {
        assert!(is_hashed_search_file("search/en/t3.1a2b3c4d5e.js"));
        assert!(is_hashed_search_file("search/ar/d0.0000000000.js"));
        assert!(!is_hashed_search_file("search/en/t3.js"));
        assert!(!is_hashed_search_file("search/en/t3.1a2b3c4d5.js"));
        assert!(!is_hashed_search_file("search/en/t3.1a2b3c4d5g.js"));
        assert!(!is_hashed_search_file("casebook.1a2b3c4d5e.js"));
        assert!(!is_hashed_search_file("search/index.html"));
    }
}
