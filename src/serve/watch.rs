//! Watching the site's sources: what the build reads, and nothing the build ignores.
//!
//! The build reads `casebook.toml` and the files below the source folders. It skips
//! symlinks inside them (a link out of the site is never published), hidden files, and
//! below `content/` hidden folders too; it never reads the output or the image cache. The
//! watcher follows the same rules: it does not follow a symlinked folder (which could
//! point at a home directory and exhaust the inotify watches), and changes to files the
//! build ignores do not start a rebuild. Events are batched (`DEBOUNCE`): editors that
//! save by renaming a temporary file, or write twice, cause one rebuild.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify_debouncer_full::notify::{self, EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, NoCache};

use super::Message;
use crate::error::{Diagnostic, Error, Result};

/// How long the watcher waits for a burst of file events to end before rebuilding (checked
/// every quarter of it). An editor's save (a temporary file renamed, or two writes) takes a
/// few milliseconds; a save spread wider rebuilds twice at worst, and a half-saved file that
/// fails to build is read again before its failure shows (`rebuild::SETTLE`).
const DEBOUNCE: Duration = Duration::from_millis(12);

/// The folders of a site whose files are sources.
const SOURCE_FOLDERS: &[&str] = &["content", "themes", "templates", "static", "i18n"];

/// Without a file-ID cache: only the changed paths matter here, and the cache would walk
/// (and follow symlinks in) every watched folder.
pub(super) type Watcher = Debouncer<notify::RecommendedWatcher, NoCache>;

/// Watches the site's sources and sends each debounced batch of changed paths. `ignored`
/// are folders whose changes never matter (the image cache, wherever it is configured).
pub(super) fn watch_sources(
    root: &Path,
    ignored: Vec<PathBuf>,
    changes: mpsc::Sender<Message>,
) -> Result<Watcher> {
    let filter_root = root.to_path_buf();
    let mut debouncer = notify_debouncer_full::new_debouncer_opt(
        DEBOUNCE,
        None,
        move |result: DebounceEventResult| {
            let Ok(events) = result else { return };
            let mut paths: Vec<PathBuf> = events
                .iter()
                .filter(|e| !matches!(e.kind, EventKind::Access(_)))
                .flat_map(|e| e.paths.iter())
                .filter(|p| is_source(&filter_root, &ignored, p))
                .cloned()
                .collect();
            paths.sort();
            paths.dedup();
            if !paths.is_empty() {
                let _ = changes.send(Message::Changed(paths));
            }
        },
        NoCache,
        notify::Config::default().with_follow_symlinks(false),
    )
    .map_err(|e| watch_error(root, e))?;
    // The root itself only for casebook.toml (watched through its folder, so editors that
    // replace the file keep being seen); the source folders recursively. A source folder
    // that is itself a symlink is followed, as the build follows it.
    debouncer
        .watch(root, RecursiveMode::NonRecursive)
        .map_err(|e| watch_error(root, e))?;
    for dir in SOURCE_FOLDERS {
        let path = root.join(dir);
        if path.is_dir() {
            debouncer
                .watch(&path, RecursiveMode::Recursive)
                .map_err(|e| watch_error(&path, e))?;
        }
    }
    Ok(debouncer)
}

fn watch_error(path: &Path, e: notify::Error) -> Error {
    Error::one(
        Diagnostic::new(path, format!("cannot watch for changes: {e}"))
            .hint("on Linux, raise the inotify limit: sysctl fs.inotify.max_user_watches=524288"),
    )
}

/// A source folder created after the start (`templates/`, say) is watched from now on.
pub(super) fn watch_new_folders(watcher: &mut Watcher, root: &Path, changed: &[PathBuf]) {
    for path in changed {
        let top = path.strip_prefix(root).ok().and_then(|rel| rel.to_str());
        if top.is_some_and(|top| SOURCE_FOLDERS.contains(&top)) && path.is_dir() {
            let _ = watcher.watch(path, RecursiveMode::Recursive);
        }
    }
}

/// Whether a changed path is one the build reads: not an editor's backup or swap file,
/// nothing hidden that the build skips, not a symlink inside a source folder, not the
/// output or the image cache.
pub(super) fn is_source(root: &Path, ignored: &[PathBuf], path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    if ignored.iter().any(|dir| path.starts_with(dir)) {
        return false;
    }
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let scratch = name.starts_with('.')
        || name.starts_with('#')
        || name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".tmp");
    let parts: Vec<&str> = rel
        .components()
        .map(|c| c.as_os_str().to_str().unwrap_or("."))
        .collect();
    let read = match parts.as_slice() {
        ["casebook.toml"] => true,
        // `content/`'s listing skips hidden folders too (a `.git` of its own, say).
        ["content", rest @ ..] => !rest.iter().any(|part| part.starts_with('.')),
        [folder, ..] => SOURCE_FOLDERS.contains(folder),
        [] => false,
    };
    // A symlink below a source folder is never read (the source folder itself may be
    // one: it is followed).
    let link = parts.len() > 1
        && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    read && !scratch && !link
}

#[cfg(test)]
mod tests {
    use super::is_source;
    use std::path::{Path, PathBuf};

    #[test]
    fn only_sources_trigger_rebuilds() {
        let root = Path::new("/site");
        let ignored = [PathBuf::from("/site/static/cache")];
        let source = |p: &str| is_source(root, &ignored, Path::new(p));
        assert!(source("/site/casebook.toml"));
        assert!(source("/site/content/cases/x/index.md"));
        assert!(source("/site/themes/t/templates/base.html"));
        assert!(source("/site/static/.well-known/security.txt"), "published");
        assert!(!source("/site/public/index.html"));
        assert!(!source("/site/.casebook-cache/ab/cd.jpg"));
        assert!(
            !source("/site/static/cache/ab/cd.jpg"),
            "a configured cache"
        );
        assert!(!source("/site/content/cases/x/.index.md.swp"));
        // The workbench's own atomic save: only the rename onto the case file counts.
        assert!(!source(
            "/site/content/cases/x/.index.md.casebook-save-41-0.tmp"
        ));
        assert!(!source("/site/content/cases/x/index.md~"));
        assert!(!source("/site/content/.git/objects/ab/cdef"));
        assert!(!source("/site/content/cases/.drafts/x.md"));
        assert!(!source("/site/notes.txt"));
        assert!(!source("/site/casebook.toml/x"));
        assert!(!source("/elsewhere/casebook.toml"));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_below_source_folders_are_not_sources() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("content")).unwrap();
        std::fs::write(root.join("secret.md"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("secret.md"), root.join("content/leak.md")).unwrap();
        std::fs::write(root.join("content/real.md"), "x").unwrap();
        assert!(!is_source(root, &[], &root.join("content/leak.md")));
        assert!(is_source(root, &[], &root.join("content/real.md")));
    }
}
