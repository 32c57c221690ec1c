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

use std::path::Component;

use super::disk::{create_folder, folders_of};
use super::seal::Key;
use crate::cache_file::{Reader, Writer};
use crate::error::{Error, Result};
use crate::fault;

const MAGIC: &[u8] = b"casebook-journal-4\n";

/// Where the journal is kept in the pending folder.
pub(super) const FILE: &str = "journal";
/// Where replaced and removed entries wait until the update is complete.
const OLD: &str = "old";
/// Present once an undo has begun: from then on the update is only ever undone, since
/// undoing puts old files back over new ones that cannot be had again.
const UNDOING: &str = "undoing";

/// A new file of an update.
#[derive(Debug, PartialEq)]
pub(super) struct NewFile {
    /// Its name in the pending folder.
    pub(super) pending: String,
    /// Its path in the output folder.
    pub(super) path: String,
    /// Whether a file was at `path` before the update: an undo never removes such a path,
    /// whatever state it finds it in.
    pub(super) replaces: bool,
}

/// What an in-place update does, saved before it starts so that it can be completed.
#[derive(Debug, PartialEq)]
pub(super) struct Journal {
    /// Files, stray entries and folders to remove, relative to the output folder.
    pub(super) removed: Vec<PathBuf>,
    /// The new files.
    pub(super) written: Vec<NewFile>,
    /// Folders the update makes, parents first.
    pub(super) created: Vec<String>,
}

impl Journal {
    /// Saves the journal in `pending`, sealed with `key`: once this returns, the update is
    /// committed.
    pub(super) fn commit(&self, pending: &Path, key: &Key) -> Result<()> {
        use std::io::Write as _;
        let file = pending.join(FILE);
        let draft = pending.join("journal.draft");
        let mut bytes = self.to_bytes();
        let seal = key.seal(&bytes);
        bytes.extend_from_slice(&seal);
        fault::point("commit the journal")
            .and_then(|()| std::fs::File::create(&draft))
            .and_then(|mut f| f.write_all(&bytes).and_then(|()| f.sync_all()))
            .and_then(|()| fault::point("rename the journal"))
            .and_then(|()| std::fs::rename(&draft, &file))
            .map_err(|e| Error::io(&file, e))
    }

    /// Reads a saved journal; `None` when it is damaged, not one, or not sealed with `key`
    /// (it was not written by a build of this output on this machine).
    pub(super) fn read(pending: &Path, key: Option<&Key>) -> std::io::Result<Option<Journal>> {
        use std::io::Read as _;
        let mut bytes = Vec::new();
        super::seal::open_no_follow(&pending.join(FILE))?.read_to_end(&mut bytes)?;
        Ok(key.and_then(|k| k.open(&bytes)).and_then(Journal::parse))
    }

    /// Why this journal must not be applied to or undone in `out`, if it must not: an entry
    /// that is not a plain relative path, or whose way passes through a symbolic link, could
    /// make recovery move or delete files outside the output. Checked before anything moves.
    pub(super) fn refusal(&self, out: &Path) -> Option<String> {
        if !std::fs::symlink_metadata(out).is_ok_and(|m| m.is_dir()) {
            return Some(format!(
                "the output folder {} is not a folder",
                out.display()
            ));
        }
        let paths = self
            .removed
            .iter()
            .map(|p| (p.as_path(), false))
            .chain(self.written.iter().map(|w| (Path::new(&w.path), false)))
            .chain(self.created.iter().map(|c| (Path::new(c), true)));
        for (path, itself) in paths {
            if !is_plain(path) {
                return Some(format!(
                    "it names `{}`, which is not a path inside the output folder",
                    path.display()
                ));
            }
            if let Some(link) = link_on_the_way(out, path, itself) {
                return Some(format!(
                    "it names `{}`, whose way passes through the symbolic link `{}`",
                    path.display(),
                    link.display()
                ));
            }
        }
        for w in &self.written {
            if !is_plain(Path::new(&w.pending)) || Path::new(&w.pending).components().count() != 1 {
                return Some(format!(
                    "it names the pending file `{}`, which is not a plain name",
                    w.pending
                ));
            }
        }
        None
    }

    /// Whether an undo of this update has begun.
    pub(super) fn undoing(pending: &Path) -> bool {
        exists(&pending.join(UNDOING))
    }

    /// Notes, durably, that this update is being undone; without the note no undo starts.
    pub(super) fn begin_undo(pending: &Path) -> Result<()> {
        let marker = pending.join(UNDOING);
        fault::point("mark the update as undone")
            .and_then(|()| std::fs::File::create(&marker))
            .and_then(|f| f.sync_all())
            .and_then(|()| std::fs::File::open(pending))
            .and_then(|dir| dir.sync_all())
            .map_err(|e| Error::io(&marker, e))
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
                .filter(|(_, w)| w.path.ends_with(".html") == pages)
                .try_for_each(|(i, w)| {
                    put_in_place(
                        &pending.join(&w.pending),
                        &out.join(&w.path),
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
        self.written.par_iter().enumerate().try_for_each(|(i, w)| {
            take_back(
                &pending.join(&w.pending),
                &out.join(&w.path),
                &old.join(format!("w{i}")),
                w.replaces,
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
            self.written.iter().map(|w| Path::new(&w.path)).collect();
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
        for new in &self.written {
            w.raw(if new.replaces { b"V" } else { b"W" });
            w.bytes(new.pending.as_bytes());
            w.bytes(new.path.as_bytes());
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
                tag @ (b"W" | b"V") => journal.written.push(NewFile {
                    pending: r.string()?,
                    path: r.string()?,
                    replaces: tag == b"V",
                }),
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

/// Whether `path` is relative and made of names only: no root, prefix, `.` or `..`.
fn is_plain(path: &Path) -> bool {
    path.components().next().is_some()
        && path.components().all(|c| matches!(c, Component::Normal(_)))
        && !path.as_os_str().as_encoded_bytes().contains(&b'\\')
}

/// The first symbolic link on the way from `out` to `rel` (its parents, and `rel` itself
/// when `itself`), as the folder is now.
fn link_on_the_way(out: &Path, rel: &Path, itself: bool) -> Option<PathBuf> {
    let mut at = out.to_path_buf();
    let count = rel.components().count();
    for (i, part) in rel.components().enumerate() {
        if i + 1 == count && !itself {
            break;
        }
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_symlink() => return Some(at),
            Ok(m) if m.is_dir() => {}
            // Missing, or a file: nothing below it can be reached through a link.
            _ => break,
        }
    }
    None
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

/// Undoes `put_in_place`: the kept old file goes back, or a file that was new goes. A path
/// that held a file before the update is never removed: when neither the new file nor the
/// kept copy is left, an earlier undo has already put the old file back.
fn take_back(new: &Path, target: &Path, kept: &Path, replaces: bool) -> Result<()> {
    let moved_in = !exists(new);
    let outcome = if exists(kept) {
        if moved_in || !exists(target) {
            fault::point("put back a replaced file").and_then(|()| std::fs::rename(kept, target))
        } else {
            Ok(())
        }
    } else if moved_in && !replaces {
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
                NewFile {
                    pending: "0".into(),
                    path: "index.html".into(),
                    replaces: true,
                },
                NewFile {
                    pending: "1".into(),
                    path: "b/y".into(),
                    replaces: false,
                },
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
