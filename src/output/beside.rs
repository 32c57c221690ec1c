//! The folders casebook keeps beside an output folder (`public` has
//! `.public.casebook-staging`, `-pending`, `-trash` and `-lock` next to it), and putting the
//! output in order after a build that was stopped while writing it.

use std::path::{Path, PathBuf};

use super::journal::Journal;
use super::record;
use crate::error::{Diagnostic, Error, Result};
use crate::fault;

/// The folders casebook keeps beside `out` while writing it.
pub(super) struct Beside {
    /// A new site, before it is renamed into place.
    pub(super) staging: PathBuf,
    /// Changed files and the journal of an in-place update.
    pub(super) pending: PathBuf,
    /// A finished update's pending folder, while it is removed.
    trash: PathBuf,
    /// Locked by the build that may write the folder.
    lock: PathBuf,
    /// Left by casebook 0.1's swap, which kept the previous site in `staging`.
    swap: PathBuf,
}

impl Beside {
    pub(super) fn of(out: &Path) -> Beside {
        let parent = out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = out
            .file_name()
            .map_or("public".into(), |n| n.to_string_lossy().into_owned());
        let named = |what: &str| parent.join(format!(".{name}.casebook-{what}"));
        Beside {
            staging: named("staging"),
            pending: named("pending"),
            trash: named("trash"),
            lock: named("lock"),
            swap: named("swap"),
        }
    }

    /// Removes a pending folder whose update is done or dropped. It is renamed first, so
    /// that a stop while it is being removed never leaves a journal to apply again.
    pub(super) fn discard_pending(&self) {
        let _ = std::fs::remove_dir_all(&self.trash);
        let gone = fault::point("discard the pending folder")
            .and_then(|()| std::fs::rename(&self.pending, &self.trash));
        let _ = std::fs::remove_dir_all(if gone.is_ok() {
            &self.trash
        } else {
            &self.pending
        });
    }
}

/// Held by the one build that may write an output folder: a second build of the same
/// folder at the same time is refused, instead of mixing its update with the first one's.
/// The operating system lets go of it when the process ends, however it ends.
#[derive(Debug)]
pub(crate) struct Lock {
    _file: std::fs::File,
}

impl Lock {
    pub(crate) fn take(out: &Path) -> Result<Lock> {
        let path = Beside::of(out).lock;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: flock(2) on a descriptor that `file` owns for as long as it is used.
            let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if taken != 0 {
                return Err(Error::one(
                    Diagnostic::new(out, "another casebook build is writing this folder")
                        .hint("wait for it to finish, then build again"),
                ));
            }
        }
        Ok(Lock { _file: file })
    }
}

/// The folder a new output folder `out` is written in before it is renamed into place.
pub(super) fn staging_dir(out: &Path) -> PathBuf {
    Beside::of(out).staging
}

/// Makes `staging` an empty folder, removing what an interrupted build left there.
pub(super) fn new_staging(staging: &Path) -> Result<()> {
    if staging.exists() {
        remove_tree(staging)?;
    }
    std::fs::create_dir_all(staging).map_err(|e| Error::io(staging, e))
}

/// Puts `out` in order after a build that was stopped while writing it: an update stopped
/// after its commit is completed (or undone, if it cannot be completed), and what a build
/// stopped before its commit left beside the folder is removed. Returns a line for each
/// thing it did; an error only if an update can be neither completed nor undone.
pub(crate) fn recover(out: &Path, record_file: &Path) -> Result<Vec<Diagnostic>> {
    let beside = Beside::of(out);
    let mut done = Vec::new();
    let _ = std::fs::remove_dir_all(&beside.trash);
    if beside.swap.exists() {
        // Stopped in the middle of the old swap: the previous site is in `swap`.
        if out.exists() {
            remove_tree(&beside.swap)?;
        } else {
            std::fs::rename(&beside.swap, out).map_err(|e| Error::io(&beside.swap, e))?;
        }
    }
    if beside.pending.exists() {
        let note = match Journal::read(&beside.pending) {
            Err(_) => {
                "a build was stopped before it changed this folder; the files it had prepared were removed, the folder is as it was".to_string()
            }
            Ok(None) => {
                // Only a hand could damage a journal saved whole and renamed into place.
                record::forget(record_file);
                "a build was stopped while updating this folder and left a damaged journal; it was discarded, and this build compares every file with what it should hold".to_string()
            }
            Ok(Some(journal)) => match journal.apply(out, &beside.pending) {
                Ok(()) => {
                    record::drop_aside(record_file);
                    format!(
                        "a build was stopped while updating this folder; its update was completed ({} files written, {} removed)",
                        journal.written.len(),
                        journal.removed.len()
                    )
                }
                Err(cause) => match journal.undo(out, &beside.pending) {
                    Ok(()) => {
                        record::put_back(record_file);
                        format!(
                            "a build was stopped while updating this folder and its update could not be completed ({}); it was undone, the folder is as it was before that build",
                            cause.to_string().trim_end()
                        )
                    }
                    Err(undo) => {
                        return Err(Error::one(
                            Diagnostic::new(out, format!(
                                "a build was stopped while updating this folder, and its update can be neither completed ({}) nor undone ({})",
                                cause.to_string().trim_end(),
                                undo.to_string().trim_end()
                            ))
                            .hint("fix the cause (a full disk, a folder made read-only) and build again: the update is kept in the .casebook-pending folder beside it until then"),
                        ));
                    }
                },
            },
        };
        beside.discard_pending();
        done.push(Diagnostic::new(out, note));
    }
    if beside.staging.exists() {
        remove_tree(&beside.staging)?;
        done.push(Diagnostic::new(
            &beside.staging,
            "removed the unfinished new site a stopped build left here",
        ));
    }
    Ok(done)
}

pub(super) fn remove_tree(dir: &Path) -> Result<()> {
    std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))
}
