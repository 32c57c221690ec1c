//! Listing `content/`: which files there are, and the parse cache `serve` keeps between
//! rebuilds so only changed files are read again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::Parsed;
use crate::error::{Diagnostic, Error, Result};

/// What parsing one content file gave, kept between rebuilds.
pub(super) type ParseResult = std::result::Result<Parsed, Vec<Diagnostic>>;

/// Content files parsed by earlier loads (`casebook serve`), so a rebuild re-parses only the
/// files that changed and lists only the folders that changed. An entry is reused while the
/// file's size and modification time are unchanged; the watcher also reports every path it
/// saw change (`forget`), whatever the timestamps say. Parsing depends on the
/// configuration: clear the cache when it changes.
#[derive(Default)]
pub(crate) struct ParseCache {
    pub(super) files: HashMap<PathBuf, (FileStamp, ParseResult)>,
    pub(super) listing: Option<Listing>,
    /// What the names of `listing` were found to break (`unportable_sources`): checked
    /// again only when a name is added or removed.
    pub(super) unportable: Option<Vec<Diagnostic>>,
    /// Paths (relative to `content/`) reported changed since the listing was made.
    pub(super) touched: Vec<PathBuf>,
    /// The corpus the last load assembled, when it found no problem: a rebuild after an
    /// edit patches it (`patch`).
    pub(super) last: Option<std::sync::Arc<super::Corpus>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FileStamp {
    pub(super) len: u64,
    pub(super) modified: Option<std::time::SystemTime>,
}

/// The files below `content/`, in the walk's order (by path, component by component).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Listing {
    pub(super) markdown: Vec<(PathBuf, Option<FileStamp>)>,
    pub(super) other: Vec<PathBuf>,
    /// Symbolic links: never followed (one could lead anywhere on the publisher's
    /// machine), and named in a warning so that the publisher knows they were left out.
    pub(super) links: Vec<PathBuf>,
}

impl ParseCache {
    /// Forgets a changed, added or removed file or folder (relative to `content/`).
    pub(crate) fn forget(&mut self, rel: &Path) {
        self.files.retain(|path, _| !path.starts_with(rel));
        self.touched.push(rel.to_path_buf());
    }

    pub(crate) fn clear(&mut self) {
        *self = ParseCache::default();
    }
}

/// Lists the files below `content_dir/under`, skipping hidden ones, with timestamps of
/// markdown files when asked.
pub(super) fn list(
    content_dir: &Path,
    under: &Path,
    stamps: bool,
    into: &mut Listing,
) -> Result<()> {
    let start = content_dir.join(under);
    for entry in walkdir::WalkDir::new(&start)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !e.file_name().to_string_lossy().starts_with('.'))
    {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(&start).to_path_buf();
            Error::io(&path, e.into())
        })?;
        let rel = entry
            .path()
            .strip_prefix(content_dir)
            .expect("walkdir stays below its root")
            .to_path_buf();
        if entry.path_is_symlink() {
            into.links.push(rel);
            continue;
        }
        if !entry.file_type().is_file() {
            continue;
        }
        if rel.extension().is_some_and(|e| e == "md") {
            // Only a cache needs the timestamps; a plain build spares the extra stat calls.
            let stamp = stamps
                .then(|| entry.metadata().ok())
                .flatten()
                .map(|m| FileStamp {
                    len: m.len(),
                    modified: m.modified().ok(),
                });
            into.markdown.push((rel, stamp));
        } else {
            into.other.push(rel);
        }
    }
    Ok(())
}

impl Listing {
    /// The listing `list` makes of `content/`, from its plain files' paths (relative to it,
    /// `/`-separated, in any order, none of them a link): names starting with a dot left
    /// out, with whatever is below them, in the walk's order (component by component). Each
    /// path comes with what the walk knows of it (a stamp), given back beside the markdown
    /// files in the same order.
    pub(super) fn of_files<T>(files: Vec<(String, T)>) -> (Listing, Vec<T>) {
        let mut paths: Vec<(PathBuf, T)> = (files.into_iter())
            .filter(|(f, _)| !f.split('/').any(|name| name.starts_with('.')))
            .map(|(f, t)| (PathBuf::from(f), t))
            .collect();
        paths.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let (markdown, other) = paths
            .into_iter()
            .partition::<Vec<_>, _>(|(rel, _)| rel.extension().is_some_and(|e| e == "md"));
        let (markdown, stamps): (Vec<_>, Vec<_>) = markdown
            .into_iter()
            .map(|(rel, t)| ((rel, None), t))
            .unzip();
        let listing = Listing {
            markdown,
            other: other.into_iter().map(|(rel, _)| rel).collect(),
            links: Vec::new(),
        };
        (listing, stamps)
    }

    /// Brings the listing up to date with changed paths, listing only those again; returns
    /// whether any name was added or removed (rather than only changed files).
    pub(super) fn refresh(&mut self, content_dir: &Path, touched: &[PathBuf]) -> Result<bool> {
        // Most edits change files the listing already holds: their stamps are updated in
        // place, without sorting 66,000 paths again (archive scale).
        let touched: Vec<&PathBuf> = touched
            .iter()
            .filter(|rel| !self.restamped(content_dir, rel))
            .collect();
        if touched.is_empty() {
            return Ok(false);
        }
        let mut relisted = Listing::default();
        let mut dropped: Vec<PathBuf> = Vec::new();
        for &rel in &touched {
            let mut drop = |p: &PathBuf| {
                let under = p.starts_with(rel);
                if under {
                    dropped.push(p.clone());
                }
                !under
            };
            self.markdown.retain(|(p, _)| drop(p));
            self.other.retain(|p| drop(p));
            self.links.retain(|p| drop(p));
            let hidden = rel
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
            if !hidden && content_dir.join(rel).exists() {
                list(content_dir, rel, true, &mut relisted)?;
            }
        }
        let mut listed: Vec<&PathBuf> = (relisted.markdown.iter().map(|(p, _)| p))
            .chain(&relisted.other)
            .chain(&relisted.links)
            .collect();
        listed.sort();
        listed.dedup();
        dropped.sort();
        dropped.dedup();
        let renamed =
            listed.len() != dropped.len() || listed.iter().zip(&dropped).any(|(a, b)| *a != b);
        self.markdown.extend(relisted.markdown);
        self.other.extend(relisted.other);
        self.links.extend(relisted.links);
        self.links.sort();
        self.markdown.sort_by(|a, b| a.0.cmp(&b.0));
        self.markdown.dedup_by(|a, b| a.0 == b.0);
        self.other.sort();
        self.other.dedup();
        Ok(renamed)
    }

    /// Whether `rel` is a file the listing holds and still a plain file: then only its
    /// stamp (for a markdown file) is brought up to date.
    fn restamped(&mut self, content_dir: &Path, rel: &Path) -> bool {
        let Ok(meta) = std::fs::symlink_metadata(content_dir.join(rel)) else {
            return false;
        };
        if !meta.file_type().is_file() {
            return false;
        }
        if let Ok(at) = self
            .markdown
            .binary_search_by(|(p, _)| p.as_path().cmp(rel))
        {
            self.markdown[at].1 = Some(FileStamp {
                len: meta.len(),
                modified: meta.modified().ok(),
            });
            return true;
        }
        self.other
            .binary_search_by(|p| p.as_path().cmp(rel))
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(dir: &Path) -> Listing {
        let mut listing = Listing::default();
        list(dir, Path::new(""), true, &mut listing).unwrap();
        listing
    }

    #[test]
    fn a_listing_made_from_a_walks_files_is_the_one_list_makes() {
        let tmp = tempfile::tempdir().unwrap();
        // Not the temporary folder itself: its name starts with a dot.
        let dir = tmp.path().join("content");
        let files = [
            "_index.md",
            "a/b.md",
            "a-b/x.md",
            "a-b/z.txt",
            "a.b/y.md",
            "a/c/d.md",
            "a/c/photo.jpg",
            "A/upper.md",
            ".hidden/x.md",
            "x/.draft.md",
            "x/readme.markdown",
            "x/notes.MD",
            "cases/syn-000010/index.md",
            "cases/syn-000002/index.ar.md",
            "cases/syn-000002/index.md",
        ];
        for f in files {
            let path = dir.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        std::fs::create_dir_all(dir.join("empty/folder")).unwrap();
        let mut by_list = Listing::default();
        list(&dir, Path::new(""), false, &mut by_list).unwrap();
        // The walk's order is no order: reversed here.
        let walked = files
            .iter()
            .rev()
            .map(|f| (f.to_string(), f.len()))
            .collect();
        let (by_walk, carried) = Listing::of_files(walked);
        assert_eq!(by_walk, by_list);
        // What came with each markdown file stays with it.
        let lengths: Vec<usize> = (by_walk.markdown.iter())
            .map(|(rel, _)| rel.to_str().unwrap().len())
            .collect();
        assert_eq!(carried, lengths);
        assert_eq!(by_walk.markdown.len(), 9, "{by_walk:?}");
        assert_eq!(by_walk.other.len(), 4, "{by_walk:?}");
    }

    #[test]
    fn a_refresh_restamps_changed_files_and_relists_added_and_removed_ones() {
        let dir = tempfile::tempdir().unwrap();
        // Not the temporary folder itself: its name starts with a dot, and hidden names
        // are skipped.
        let content = &dir.path().join("content");
        std::fs::create_dir_all(content.join("cases/a")).unwrap();
        std::fs::write(content.join("_index.md"), "x").unwrap();
        std::fs::write(content.join("cases/a/index.md"), "x").unwrap();
        std::fs::write(content.join("cases/a/p.jpg"), "x").unwrap();
        let mut listing = listed(content);

        // A file edited: no name changes, its stamp follows the file.
        std::fs::write(content.join("cases/a/index.md"), "longer").unwrap();
        let edited = [
            PathBuf::from("cases/a/index.md"),
            PathBuf::from("cases/a/p.jpg"),
        ];
        assert!(!listing.refresh(content, &edited).unwrap());
        let stamp = |l: &Listing| {
            let at = l
                .markdown
                .iter()
                .position(|(p, _)| p.ends_with("a/index.md"));
            l.markdown[at.unwrap()].1.unwrap().len
        };
        assert_eq!(stamp(&listing), 6);

        // Added and removed: listed again, in the walk's order, and told apart.
        std::fs::write(content.join("cases/a/b.md"), "x").unwrap();
        std::fs::remove_file(content.join("cases/a/p.jpg")).unwrap();
        let touched = [
            PathBuf::from("cases/a/b.md"),
            PathBuf::from("cases/a/p.jpg"),
        ];
        assert!(listing.refresh(content, &touched).unwrap());
        let fresh = listed(content);
        let names = |l: &Listing| -> Vec<PathBuf> {
            (l.markdown.iter().map(|(p, _)| p.clone()))
                .chain(l.other.iter().cloned())
                .collect()
        };
        assert_eq!(names(&listing), names(&fresh));
        assert_eq!(stamp(&listing), 6);
    }
}
