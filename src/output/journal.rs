//! The journal of an in-place update, and the steps that carry it out or undo it.
//!
//! An update first writes its new files into the pending folder beside the output, then
//! saves this journal there (the commit), then changes the output:
//!
//! 1. entries in the way of a new file or folder are moved aside into `pending/old/`;
//! 2. the new folders are made;
//! 3. each new file replaces its path with one rename (pages after what they use); an old
//!    file there is first linked into `pending/old/`, so that readers never miss it and it
//!    can be put back;
//! 4. the other removed entries are moved aside;
//! 5. folders left empty are removed.
//!
//! Nothing is deleted until every step has succeeded: the pending folder, with what was
//! moved aside, is then renamed to the trash and removed. Each step looks at the file
//! system to see whether it was already done, so after a stop at any point the update
//! can be carried out again from the start ([`Journal::apply`]) or undone
//! ([`Journal::undo`]) from whatever state it was left in.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::write::{create_folder, folders_of};
use crate::cache_file::{Reader, Writer};
use crate::error::{Error, Result};
use crate::fault;

const MAGIC: &[u8] = b"casebook-journal-3\n";

/// Where the journal is kept in the pending folder.
pub(super) const FILE: &str = "journal";
/// Where replaced and removed entries wait until the update is complete.
const OLD: &str = "old";

/// What an in-place update does, saved before it starts so that it can be completed.
#[derive(Debug, PartialEq)]
pub(super) struct Journal {
    /// Files, stray entries and folders to remove, relative to the output folder.
    pub(super) removed: Vec<PathBuf>,
    /// Pending file name -> output path.
    pub(super) written: Vec<(String, String)>,
    /// Folders the update makes, parents first.
    pub(super) created: Vec<String>,
}

impl Journal {
    /// Saves the journal in `pending`: once this returns, the update is committed.
    pub(super) fn commit(&self, pending: &Path) -> Result<()> {
        use std::io::Write as _;
        let file = pending.join(FILE);
        let draft = pending.join("journal.draft");
        fault::point("commit the journal")
            .and_then(|()| std::fs::File::create(&draft))
            .and_then(|mut f| f.write_all(&self.to_bytes()).and_then(|()| f.sync_all()))
            .and_then(|()| fault::point("rename the journal"))
            .and_then(|()| std::fs::rename(&draft, &file))
            .map_err(|e| Error::io(&file, e))
    }

    /// Reads a saved journal; `None` when it is damaged or not one.
    pub(super) fn read(pending: &Path) -> std::io::Result<Option<Journal>> {
        std::fs::read(pending.join(FILE)).map(|bytes| Journal::parse(&bytes))
    }

    /// Carries the update out; every step may be repeated after an interruption.
    pub(super) fn apply(&self, out: &Path, pending: &Path) -> Result<()> {
        let old = pending.join(OLD);
        create_folder(&old)?;
        let in_the_way = self.in_the_way();
        let removed = self.topmost_removed();
        move_aside(out, &old, removed.iter().filter(|(_, p)| in_the_way(p)))?;
        for folder in &self.created {
            let path = out.join(folder);
            fault::point("make a folder").map_err(|e| Error::io(&path, e))?;
            create_folder(&path)?;
        }
        // What pages use (photographs, scripts, styles) before the pages, and old entries
        // last, so that a server reading the folder meanwhile finds what a new page links to.
        for pages in [false, true] {
            self.written
                .par_iter()
                .enumerate()
                .filter(|(_, (_, path))| path.ends_with(".html") == pages)
                .try_for_each(|(i, (name, path))| {
                    put_in_place(
                        &pending.join(name),
                        &out.join(path),
                        &old.join(format!("w{i}")),
                    )
                })?;
        }
        move_aside(out, &old, removed.iter().filter(|(_, p)| !in_the_way(p)))?;
        // Folders left empty go, deepest first; the error for a non-empty one is expected.
        let mut emptied: Vec<&Path> = self
            .removed
            .iter()
            .flat_map(|p| p.ancestors().skip(1))
            .filter(|a| !a.as_os_str().is_empty())
            .collect();
        emptied.sort_unstable_by_key(|p| (std::cmp::Reverse(p.components().count()), *p));
        emptied.dedup();
        for dir in emptied {
            let _ = std::fs::remove_dir(out.join(dir));
        }
        Ok(())
    }

    /// Puts the output back as it was before the update began, from whatever state an
    /// interrupted or failed `apply` left it in.
    pub(super) fn undo(&self, out: &Path, pending: &Path) -> Result<()> {
        let old = pending.join(OLD);
        self.written
            .par_iter()
            .enumerate()
            .try_for_each(|(i, (name, path))| {
                take_back(
                    &pending.join(name),
                    &out.join(path),
                    &old.join(format!("w{i}")),
                )
            })?;
        for folder in self.created.iter().rev() {
            let path = out.join(folder);
            match fault::point("remove a made folder").and_then(|()| std::fs::remove_dir(&path)) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                r => r.map_err(|e| Error::io(&path, e))?,
            }
        }
        // Parents before what was inside them.
        let mut removed = self.topmost_removed();
        removed.sort_by_key(|(_, p)| p.components().count());
        for level in removed.chunk_by(|a, b| a.1.components().count() == b.1.components().count()) {
            level.par_iter().try_for_each(|(i, rel)| {
                let (kept, path) = (old.join(format!("r{i}")), out.join(rel));
                if !exists(&kept) {
                    return Ok(());
                }
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
                }
                fault::point("put back a removed entry")
                    .and_then(|()| std::fs::rename(&kept, &path))
                    .map_err(|e| Error::io(&path, e))
            })?;
        }
        Ok(())
    }

    /// Whether a removed entry stands where a new file or folder goes.
    fn in_the_way(&self) -> impl Fn(&Path) -> bool + Sync {
        let mut taken: rustc_hash::FxHashSet<&Path> =
            self.written.iter().map(|(_, p)| Path::new(p)).collect();
        taken.extend(self.created.iter().map(Path::new));
        move |p| taken.contains(p)
    }

    /// The removed entries not inside another removed entry, with their journal index:
    /// moving a folder aside moves what is in it.
    fn topmost_removed(&self) -> Vec<(usize, &Path)> {
        let all: rustc_hash::FxHashSet<&Path> = self.removed.iter().map(PathBuf::as_path).collect();
        self.removed
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.ancestors().skip(1).any(|a| all.contains(a)))
            .map(|(i, p)| (i, p.as_path()))
            .collect()
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(MAGIC);
        for path in &self.removed {
            w.raw(b"R");
            w.bytes(path.as_os_str().as_encoded_bytes());
        }
        for (name, path) in &self.written {
            w.raw(b"W");
            w.bytes(name.as_bytes());
            w.bytes(path.as_bytes());
        }
        for folder in &self.created {
            w.raw(b"D");
            w.bytes(folder.as_bytes());
        }
        // The checksum last: a journal cut short is not applied.
        w.finish()
    }

    fn parse(bytes: &[u8]) -> Option<Journal> {
        let mut r = Reader::open(bytes, MAGIC)?;
        let mut journal = Journal {
            removed: Vec::new(),
            written: Vec::new(),
            created: Vec::new(),
        };
        while !r.is_empty() {
            match r.raw(1)? {
                b"R" => journal.removed.push(PathBuf::from(os_string(r.bytes()?)?)),
                b"W" => journal.written.push((r.string()?, r.string()?)),
                b"D" => journal.created.push(r.string()?),
                _ => return None,
            }
        }
        Some(journal)
    }
}

/// The folders `written` needs that the output does not have as folders, parents first.
pub(super) fn folders_to_make<'a>(
    written: impl Iterator<Item = &'a str>,
    existing: &super::PathSet,
) -> Vec<String> {
    folders_of(written, &Default::default())
        .into_iter()
        .filter(|f| !existing.contains(f))
        .collect()
}

/// Whether anything, even a dangling link, is at `path`.
fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Moves each removed entry `(i, rel)` from the output into `old/r<i>`, unless done before.
fn move_aside<'a>(
    out: &Path,
    old: &Path,
    removed: impl Iterator<Item = &'a (usize, &'a Path)>,
) -> Result<()> {
    let removed: Vec<_> = removed.collect();
    removed.par_iter().try_for_each(|(i, rel)| {
        let (path, kept) = (out.join(rel), old.join(format!("r{i}")));
        if exists(&kept) || !exists(&path) {
            return Ok(());
        }
        match fault::point("move a removed entry aside")
            .and_then(|()| std::fs::rename(&path, &kept))
        {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            r => r.map_err(|e| Error::io(&path, e)),
        }
    })
}

/// Moves a new file from the pending folder to its place; an old file there is linked to
/// `kept` first (moved there where links are not supported).
fn put_in_place(new: &Path, target: &Path, kept: &Path) -> Result<()> {
    if !exists(new) {
        return Ok(());
    }
    let old_file = std::fs::symlink_metadata(target).is_ok_and(|m| !m.is_dir());
    if old_file && !exists(kept) {
        fault::point("keep a replaced file")
            .and_then(|()| match std::fs::hard_link(target, kept) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                    std::fs::rename(target, kept)
                }
                r => r,
            })
            .map_err(|e| Error::io(target, e))?;
    }
    fault::point("move a new file into place")
        .and_then(|()| std::fs::rename(new, target))
        .map_err(|e| Error::io(target, e))
}

/// Undoes `put_in_place`: the kept old file goes back, or a file that was new goes.
fn take_back(new: &Path, target: &Path, kept: &Path) -> Result<()> {
    let moved_in = !exists(new);
    let outcome = if exists(kept) {
        if moved_in || !exists(target) {
            fault::point("put back a replaced file").and_then(|()| std::fs::rename(kept, target))
        } else {
            Ok(())
        }
    } else if moved_in {
        match fault::point("remove a new file").and_then(|()| std::fs::remove_file(target)) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            r => r,
        }
    } else {
        Ok(())
    };
    outcome.map_err(|e| Error::io(target, e))
}

/// An OS string from bytes written by `OsStr::as_encoded_bytes` on this platform.
fn os_string(bytes: &[u8]) -> Option<std::ffi::OsString> {
    #[cfg(unix)]
    {
        Some(std::os::unix::ffi::OsStringExt::from_vec(bytes.to_vec()))
    }
    #[cfg(not(unix))]
    {
        String::from_utf8(bytes.to_vec()).ok().map(Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_reads_back_and_a_cut_one_is_refused() {
        let journal = Journal {
            removed: vec![PathBuf::from("gone.txt"), PathBuf::from("a/x")],
            written: vec![
                ("0".into(), "index.html".into()),
                ("1".into(), "b/y".into()),
            ],
            created: vec!["b".into()],
        };
        let bytes = journal.to_bytes();
        assert_eq!(Journal::parse(&bytes).as_ref(), Some(&journal));
        assert_eq!(Journal::parse(&bytes[..bytes.len() - 1]), None);
    }

    #[test]
    fn only_the_topmost_removed_entries_are_moved() {
        let journal = Journal {
            removed: vec!["a/x".into(), "b".into(), "a".into(), "c/d".into()],
            written: vec![],
            created: vec![],
        };
        let top: Vec<_> = journal
            .topmost_removed()
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        assert_eq!(top, [1, 2, 3]);
    }
}
