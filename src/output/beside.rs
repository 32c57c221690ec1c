//! The folders casebook keeps beside an output folder (`public` has
//! `.public.casebook-staging`, `-pending`, `-trash` and `-lock` next to it), and putting the
//! output in order after a build that was stopped while writing it.

use std::path::{Path, PathBuf};

use super::journal::Journal;
use super::record;
use super::seal::Key;
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
    /// The secret that seals this output's journals (`seal.rs`).
    pub(super) key_file: PathBuf,
    /// Left by casebook 0.1's swap, which kept the previous site in `staging`.
    swap: PathBuf,
}

impl Beside {
    /// The neighbours of `out` as the file system resolves it (through links and `..`):
    /// `public/cases/..` has the neighbours of `public`, never folders inside the output.
    pub(super) fn of(out: &Path) -> Beside {
        let real = crate::paths::resolved(out);
        let parent = real
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = real
            .file_name()
            .map_or("public".into(), |n| n.to_string_lossy().into_owned());
        let named = |what: &str| parent.join(format!(".{name}.casebook-{what}"));
        Beside {
            staging: named("staging"),
            pending: named("pending"),
            trash: named("trash"),
            lock: named("lock"),
            key_file: named("key"),
            swap: named("swap"),
        }
    }

    /// Every one of them, for leaving them out where the site's files are listed.
    pub(super) fn all(&self) -> [&Path; 6] {
        [
            &self.staging,
            &self.pending,
            &self.trash,
            &self.lock,
            &self.key_file,
            &self.swap,
        ]
    }

    /// The key that seals journals of `out`, made if there is none.
    pub(super) fn key(&self, out: &Path) -> Option<Key> {
        Key::of(&self.key_file, out)
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
        // Never through a link: one planted here would create a file wherever it points.
        let open = || {
            let mut options = std::fs::OpenOptions::new();
            options.create(true).truncate(false).write(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
            options.open(&path)
        };
        let file = match open() {
            Err(_) if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink()) => {
                std::fs::remove_file(&path).and_then(|()| open())
            }
            r => r,
        }
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

/// What recovery did, or refused to do, before a build.
#[derive(Debug)]
pub(crate) enum Recovery {
    /// A stopped build's update was completed or undone, or its leftovers removed.
    Done(Diagnostic),
    /// Something beside the output that casebook did not make here (a journal brought in
    /// with the site, a link) was discarded without being followed.
    Refused(Diagnostic),
}

impl Recovery {
    /// The line that says what was done or refused.
    #[cfg(test)]
    pub(crate) fn diagnostic(&self) -> &Diagnostic {
        match self {
            Recovery::Done(d) | Recovery::Refused(d) => d,
        }
    }
}

/// Whether a real folder, not a link to one, is at `path`.
fn is_real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// Whether anything, even a dangling link, is at `path`.
fn is_there(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Puts `out` in order after a build that was stopped while writing it: an update stopped
/// after its commit is completed (or undone, if it cannot be completed), and what a build
/// stopped before its commit left beside the folder is removed. Nothing beside the output
/// is trusted: a journal is carried out only if this machine sealed it for this very
/// folder and every entry stays inside it, and a link in place of a neighbour folder is
/// removed, never followed. Returns a line for each thing it did or refused; an error only
/// if an update can be neither completed nor undone.
pub(crate) fn recover(out: &Path, record_file: &Path) -> Result<Vec<Recovery>> {
    let beside = Beside::of(out);
    let mut done = Vec::new();
    let _ = std::fs::remove_dir_all(&beside.trash);
    for (path, what) in [
        (&beside.swap, "swap"),
        (&beside.pending, "pending"),
        (&beside.staging, "staging"),
    ] {
        if is_there(path) && !is_real_dir(path) {
            // remove_file takes a link itself away, whatever it points to.
            std::fs::remove_file(path).map_err(|e| Error::io(path, e))?;
            done.push(Recovery::Refused(
                Diagnostic::new(path, format!("casebook's {what} folder was not a folder (a link or a file); it was removed without being followed"))
                    .hint("nothing outside the output folder was read or changed"),
            ));
        }
    }
    if is_real_dir(&beside.swap) {
        // Stopped in the middle of the old swap: the previous site is in `swap`.
        if is_there(out) {
            remove_tree(&beside.swap)?;
        } else {
            std::fs::rename(&beside.swap, out).map_err(|e| Error::io(&beside.swap, e))?;
        }
    }
    if is_real_dir(&beside.pending) {
        let key = beside.key(out);
        let journal_file = beside.pending.join(super::journal::FILE);
        let note = match Journal::read(&beside.pending, key.as_ref()) {
            Err(_) => Recovery::Done(Diagnostic::new(
                out,
                "a build was stopped before it changed this folder; the files it had prepared were removed, the folder is as it was",
            )),
            Ok(None) => {
                record::forget(record_file);
                Recovery::Refused(Diagnostic::new(&journal_file,
                    "a journal of an unfinished update was found beside the output, but it is damaged or was not written by a build of this folder on this machine (it may have come with the site); it was discarded without being carried out")
                    .hint("this build compares every file of the output with what it should hold, so the result is the same as a clean build"))
            }
            Ok(Some(journal)) => match journal.refusal(out) {
                Some(why) => {
                    record::forget(record_file);
                    Recovery::Refused(Diagnostic::new(&journal_file, format!(
                        "a journal of an unfinished update was not carried out: {why}; it was discarded, and nothing outside the output folder was touched"))
                        .hint("this build compares every file of the output with what it should hold, so the result is the same as a clean build"))
                }
                None => Recovery::Done(carry_out(&journal, out, &beside, record_file)?),
            },
        };
        beside.discard_pending();
        done.push(note);
    }
    if is_real_dir(&beside.staging) {
        remove_tree(&beside.staging)?;
        done.push(Recovery::Done(Diagnostic::new(
            &beside.staging,
            "removed the unfinished new site a stopped build left here",
        )));
    }
    Ok(done)
}

/// Completes a checked journal's update, or undoes it if it cannot be completed (or an
/// undo had already begun). Returns what was done.
fn carry_out(
    journal: &Journal,
    out: &Path,
    beside: &Beside,
    record_file: &Path,
) -> Result<Diagnostic> {
    let applied = if Journal::undoing(&beside.pending) {
        Err(Error::one(Diagnostic::new(
            out,
            "an earlier build had begun to undo it",
        )))
    } else {
        journal.apply(out, &beside.pending)
    };
    let cause = match applied {
        Ok(()) => {
            record::drop_aside(record_file);
            return Ok(Diagnostic::new(
                out,
                format!(
                    "a build was stopped while updating this folder; its update was completed ({} files written, {} removed)",
                    journal.written.len(),
                    journal.removed.len()
                ),
            ));
        }
        Err(cause) => cause,
    };
    match Journal::begin_undo(&beside.pending).and_then(|()| journal.undo(out, &beside.pending)) {
        Ok(()) => {
            record::put_back(record_file);
            Ok(Diagnostic::new(out, format!(
                "a build was stopped while updating this folder and its update could not be completed ({}); it was undone, the folder is as it was before that build",
                cause.to_string().trim_end()
            )))
        }
        Err(undo) => Err(Error::one(
            Diagnostic::new(out, format!(
                "a build was stopped while updating this folder, and its update can be neither completed ({}) nor undone ({})",
                cause.to_string().trim_end(),
                undo.to_string().trim_end()
            ))
            .hint("fix the cause (a full disk, a folder made read-only) and build again: the update is kept in the .casebook-pending folder beside it until then"),
        )),
    }
}

pub(super) fn remove_tree(dir: &Path) -> Result<()> {
    std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))
}
