//! Writing a build into its output folder: all of it or none of it, touching only what
//! changed.
//!
//! - A new folder is written beside the output (`.public.casebook-staging`) and renamed into
//!   place when complete.
//! - An existing folder is updated in place. The files that changed are first written
//!   beside it (`.public.casebook-pending/`, one flat folder), then a journal listing every
//!   rename and removal is committed with one rename, then applied (`journal.rs`). A build
//!   that fails before the commit leaves the folder untouched; one that fails after it puts
//!   back what it had changed. One stopped after the commit (killed, a power cut) is
//!   completed by the next casebook run, or undone if it cannot be completed.
//!
//! So a build never keeps a second copy of the site, and an unchanged file is neither
//! read nor written: the record (`record.rs`) vouches for it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::beside::{Beside, new_staging, remove_tree};
use super::copy::copy_cached;
use super::disk::{create_folder, folders_of, write_file};
use super::journal::{self, Journal};
use super::record::{self, Entry, Fingerprint, Prior, Stamp};
use super::stage::Staged;
use super::{Data, Output, PathMap, in_io_pool};
use crate::error::{Diagnostic, Error, Result};
use crate::fault;
use crate::timing::Stopwatch;

/// What writing did: how many files it wrote or removed, and how long each part took.
pub(crate) struct Written {
    pub(crate) changed: usize,
    /// A digest of the files now in the output, as recorded (`up_to_date::files_digest`).
    pub(crate) files: super::up_to_date::Digest32,
    pub(crate) timings: Vec<(&'static str, std::time::Duration)>,
}

/// Makes `prior.out` hold exactly `outputs`, and records them in `record_file`. `staged`
/// holds the pages already written into a new folder's staging folder, or into an
/// update's pending folder.
pub(crate) fn write(
    outputs: &[&Output],
    prior: &Prior,
    fingerprints: &PathMap<Fingerprint>,
    digests: &Digests,
    record_file: &Path,
    staged: Option<Staged>,
) -> Result<Written> {
    in_io_pool(|| {
        let mut watch = Stopwatch::start();
        let (mut entries, changed) = if prior.exists {
            update(
                outputs,
                prior,
                fingerprints,
                digests,
                record_file,
                staged,
                &mut watch,
            )?
        } else {
            let entries = create(
                outputs,
                &prior.out,
                fingerprints,
                digests,
                record_file,
                staged,
                &mut watch,
            )?;
            let count = entries.len();
            (entries, count)
        };
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        // A build that changed nothing has nothing new to record.
        let recorded = entries.len() == prior.trusted.len()
            && entries
                .iter()
                .all(|(p, e)| prior.trusted.get(*p) == Some(e));
        if !recorded {
            record::save(record_file, &prior.out, &entries);
        }
        let files = super::up_to_date::files_digest(entries.iter().map(|(p, e)| (*p, e.stamp)));
        watch.lap("write: record");
        Ok(Written {
            changed,
            files,
            timings: watch.laps,
        })
    })
}

/// Writes a new output folder through the staging folder, where `staged` pages already are.
fn create<'a>(
    outputs: &[&'a Output],
    out: &Path,
    fingerprints: &PathMap<Fingerprint>,
    digests: &Digests,
    record_file: &Path,
    staged: Option<Staged>,
    watch: &mut Stopwatch,
) -> Result<Vec<(&'a str, Entry)>> {
    let beside = Beside::of(out);
    let mut staged = match staged {
        Some(staged) => staged,
        None => {
            new_staging(&beside.staging)?;
            Staged::nothing_in(beside.staging.clone())
        }
    };
    debug_assert_eq!(staged.dir, beside.staging);
    record::forget(record_file);
    let paths = outputs.iter().map(|o| o.path.as_str());
    make_dirs(&beside.staging, folders_of(paths, &staged.folders))?;
    let entries = outputs
        .par_iter()
        .map(|o| {
            let (target, sha256) = (beside.staging.join(&o.path), digest(o, digests)?);
            let stamp = match &o.data {
                Data::Staged { .. } => *staged.stamps.get(&o.path).ok_or_else(|| {
                    Error::io(
                        &target,
                        std::io::Error::other("a staged page was not written"),
                    )
                })?,
                _ => put(o, &target)?,
            };
            let entry = Entry {
                sha256,
                stamp,
                fingerprint: fingerprints.get(&o.path).copied().unwrap_or(0),
            };
            Ok((o.path.as_str(), entry))
        })
        .collect::<Result<Vec<_>>>()?;
    watch.lap("write: files");
    fault::point("rename the new site into place")
        .and_then(|()| std::fs::rename(&beside.staging, out))
        .map_err(|e| Error::io(out, e))?;
    staged.published = true;
    watch.lap("write: commit");
    Ok(entries)
}

/// What an in-place update does to one output.
enum Step {
    Keep(Stamp),
    Write,
}

/// Updates an existing output folder: only changed files are written. `staged` holds those
/// already in the pending folder.
fn update<'a>(
    outputs: &[&'a Output],
    prior: &Prior,
    fingerprints: &PathMap<Fingerprint>,
    digests: &Digests,
    record_file: &Path,
    mut staged: Option<Staged>,
    watch: &mut Stopwatch,
) -> Result<(Vec<(&'a str, Entry)>, usize)> {
    let beside = Beside::of(&prior.out);
    debug_assert!(staged.as_ref().is_none_or(|s| s.dir == beside.pending));
    let planned: Vec<(Step, [u8; 32])> = outputs
        .par_iter()
        .map(|o| plan(o, prior, digests))
        .collect::<Result<_>>()?;
    watch.lap("write: compare");
    let wanted: rustc_hash::FxHashSet<&str> = outputs.iter().map(|o| o.path.as_str()).collect();
    let mut removed: Vec<String> = prior
        .files
        .keys()
        .filter(|p| !wanted.contains(p.as_str()))
        .cloned()
        .collect();
    removed.sort_unstable();
    let written: Vec<usize> = planned
        .iter()
        .enumerate()
        .filter(|(_, (step, _))| matches!(step, Step::Write))
        .map(|(i, _)| i)
        .collect();
    let changed = written.len() + removed.len() + prior.strays.len();
    let mut stamps: HashMap<usize, Stamp> = HashMap::new();
    if !written.is_empty() || !removed.is_empty() || !prior.strays.is_empty() {
        let written_paths = written.iter().map(|&i| outputs[i].path.as_str());
        let journal = Journal {
            removed: removed
                .iter()
                .map(PathBuf::from)
                .chain(stray_dirs(outputs, prior))
                .chain(prior.strays.iter().cloned())
                .collect(),
            written: written
                .iter()
                .map(|&i| journal::NewFile {
                    pending: pending_name(i, outputs[i]),
                    path: outputs[i].path.clone(),
                    replaces: prior.files.contains_key(&outputs[i].path),
                })
                .collect(),
            created: journal::folders_to_make(written_paths, &prior.dirs),
        };
        stamps = prepare(outputs, &written, &beside, staged.as_ref())
            .inspect_err(|_| beside.discard_pending())?;
        watch.lap("write: files");
        // From here the journal's steps keep or remove the pending folder.
        if let Some(staged) = staged.as_mut() {
            staged.published = true;
        }
        commit_and_apply(&journal, &prior.out, &beside, record_file)?;
        watch.lap("write: commit");
    }
    let entries = outputs
        .iter()
        .zip(planned)
        .enumerate()
        .map(|(i, (o, (step, sha256)))| {
            let stamp = match step {
                Step::Keep(stamp) => stamp,
                Step::Write => stamps[&i],
            };
            let fingerprint = fingerprints.get(&o.path).copied().unwrap_or(0);
            let entry = Entry {
                sha256,
                stamp,
                fingerprint,
            };
            (o.path.as_str(), entry)
        })
        .collect();
    Ok((entries, changed))
}

/// Writes the files an update changes into the pending folder, where `staged` pages
/// already are; returns their stamps.
fn prepare(
    outputs: &[&Output],
    written: &[usize],
    beside: &Beside,
    staged: Option<&Staged>,
) -> Result<HashMap<usize, Stamp>> {
    if staged.is_none() {
        if beside.pending.exists() {
            remove_tree(&beside.pending)?;
        }
        fault::point("make the pending folder")
            .and_then(|()| std::fs::create_dir_all(&beside.pending))
            .map_err(|e| Error::io(&beside.pending, e))?;
    }
    written
        .par_iter()
        .map(|&i| {
            let o = outputs[i];
            let stamp = match (&o.data, staged) {
                (Data::Staged { file, .. }, Some(staged)) => {
                    *staged.stamps.get(&o.path).ok_or_else(|| {
                        Error::io(file, std::io::Error::other("a staged page was not written"))
                    })?
                }
                _ => put(o, &beside.pending.join(pending_name(i, o)))?,
            };
            Ok((i, stamp))
        })
        .collect()
}

/// The name of output `i`'s new file in an update's pending folder: a staged page's own,
/// else its index.
fn pending_name(i: usize, o: &Output) -> String {
    match &o.data {
        Data::Staged { file, .. } => file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| i.to_string()),
        _ => i.to_string(),
    }
}

/// Commits the journal and changes the output. An update that fails half-way is undone,
/// so the output is as it was; one that can be neither completed nor undone is left for
/// the next run's `recover`.
fn commit_and_apply(
    journal: &Journal,
    out: &Path,
    beside: &Beside,
    record_file: &Path,
) -> Result<()> {
    // No entry of the record may vouch for a file it no longer describes; if the update
    // is undone, the record is true again and is put back.
    record::set_aside(record_file);
    let committed = match beside.key(out) {
        Some(key) => journal.commit(&beside.pending, &key),
        None => Err(Error::io(
            &beside.key_file,
            std::io::Error::other("cannot keep the key that seals this folder's journal"),
        )),
    };
    if let Err(e) = committed {
        record::put_back(record_file);
        beside.discard_pending();
        return Err(e);
    }
    match journal.apply(out, &beside.pending) {
        Ok(()) => {
            record::drop_aside(record_file);
            beside.discard_pending();
            Ok(())
        }
        Err(cause) => match Journal::begin_undo(&beside.pending)
            .and_then(|()| journal.undo(out, &beside.pending))
        {
            Ok(()) => {
                record::put_back(record_file);
                beside.discard_pending();
                Err(cause)
            }
            Err(undo) => Err(Error::one(
                Diagnostic::new(
                    out,
                    format!(
                        "the update of this folder failed ({}) and could not be undone ({})",
                        cause.to_string().trim_end(),
                        undo.to_string().trim_end()
                    ),
                )
                .hint("fix the cause (a full disk, a folder made read-only) and build again: the next build completes or undoes the update first"),
            )),
        },
    }
}

/// Whether an output's published copy is already right, and its SHA-256.
fn plan(o: &Output, prior: &Prior, digests: &Digests) -> Result<(Step, [u8; 32])> {
    let trusted = prior.trusted.get(&o.path);
    let on_disk = prior.files.get(&o.path);
    if let Data::Published { .. } = &o.data {
        // Only trusted entries are ever published as they are.
        let entry = trusted.ok_or_else(|| {
            let path = prior.out.join(&o.path);
            Error::io(
                &path,
                std::io::Error::other("published page without a record"),
            )
        })?;
        return Ok((Step::Keep(entry.stamp), entry.sha256));
    }
    let sha256 = digest(o, digests)?;
    if let Some(entry) = trusted {
        // The record vouches for the published bytes: nothing to read to tell.
        let step = match entry.sha256 == sha256 {
            true => Step::Keep(entry.stamp),
            false => Step::Write,
        };
        return Ok((step, sha256));
    }
    let Some(&stamp) = on_disk else {
        return Ok((Step::Write, sha256));
    };
    // No record for it (a first build, a deleted cache): compare with what is there.
    let same = match &o.data {
        Data::Cached { file, size, .. } => {
            // A cache copy takes the cache file's modification time.
            let cache = std::fs::metadata(file).map_err(|e| Error::io(file, e))?;
            stamp.size == *size && Stamp::of(&cache) == stamp
        }
        Data::Copy(c) => {
            stamp.size == c.size
                && super::copy::sha256_of(&prior.out.join(&o.path)).is_ok_and(|h| h == sha256)
        }
        _ => {
            let bytes = read(o)?;
            stamp.size == bytes.len() as u64
                && std::fs::read(prior.out.join(&o.path)).is_ok_and(|old| *bytes == old[..])
        }
    };
    Ok((if same { Step::Keep(stamp) } else { Step::Write }, sha256))
}

/// The SHA-256 of bytes this build has already hashed (for the manifest), with their size,
/// by output path: a site's files are not hashed twice.
pub(crate) type Digests = PathMap<(u64, [u8; 32])>;

/// The SHA-256 of an output's bytes: known for cache files and published pages, and for
/// bytes among `digests` (of the same size).
fn digest(o: &Output, digests: &Digests) -> Result<[u8; 32]> {
    let known = match &o.data {
        Data::Cached { sha256, .. }
        | Data::Published { sha256, .. }
        | Data::Staged { sha256, .. } => Some(sha256),
        Data::Copy(c) => Some(&c.sha256),
        Data::Bytes(bytes) => match digests.get(&o.path) {
            Some((size, sha256)) if *size == bytes.len() as u64 => return Ok(*sha256),
            _ => None,
        },
    };
    if let Some(sha256) = known.and_then(|h| crate::hashing::unhex(h)) {
        return Ok(sha256);
    }
    Ok(Sha256::digest(read(o)?).into())
}

/// An output's bytes; an error names the file they are read from.
fn read(o: &Output) -> Result<std::borrow::Cow<'_, [u8]>> {
    o.read().map_err(|e| match &o.data {
        Data::Copy(c) => Error::io(&c.file, e),
        Data::Cached { file: p, .. }
        | Data::Published { file: p, .. }
        | Data::Staged { file: p, .. } => Error::io(p, e),
        Data::Bytes(_) => Error::io(Path::new(&o.path), e),
    })
}

/// Writes one output at `target` and returns its stamp.
fn put(o: &Output, target: &Path) -> Result<Stamp> {
    match &o.data {
        Data::Cached { file, sha256, size } => copy_cached(file, sha256, *size, target),
        Data::Copy(c) => super::copy::copy_source(c, target),
        Data::Bytes(_) | Data::Published { .. } | Data::Staged { .. } => {
            write_file(target, &read(o)?)
        }
    }
}

/// The output's folders that no output needs any more, the topmost of each tree.
fn stray_dirs(outputs: &[&Output], prior: &Prior) -> Vec<PathBuf> {
    let needed: std::collections::HashSet<&str> = outputs
        .iter()
        .flat_map(|o| o.path.match_indices('/').map(|(i, _)| &o.path[..i]))
        .collect();
    prior
        .dirs
        .iter()
        .filter(|d| !needed.contains(d.as_str()))
        .filter(|d| match d.rfind('/') {
            Some(i) => needed.contains(&d[..i]),
            None => true,
        })
        .map(PathBuf::from)
        .collect()
}

/// Creates `folders` (parents first) below `root`, each level in parallel.
fn make_dirs(root: &Path, folders: Vec<String>) -> Result<()> {
    for level in folders.chunk_by(|a, b| a.matches('/').count() == b.matches('/').count()) {
        level
            .par_iter()
            .try_for_each(|p| create_folder(&root.join(p)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::beside::recover;
    use super::*;

    /// Writes `files` to `out` as a build does, and returns what the folder then holds.
    fn publish(out: &Path, record: &Path, files: &[(&str, &str)]) -> Vec<(String, String)> {
        let outputs: Vec<Output> = files.iter().map(|(p, b)| Output::bytes(*p, *b)).collect();
        recover(out, record).unwrap();
        let prior = Prior::load(out, record).unwrap();
        write(
            &outputs.iter().collect::<Vec<_>>(),
            &prior,
            &PathMap::default(),
            &Digests::default(),
            record,
            None,
        )
        .unwrap();
        contents(out)
    }

    #[test]
    fn bytes_the_manifest_hashed_are_not_hashed_again_unless_their_size_differs() {
        let page = Output::bytes("index.html", "home");
        let made = |o: &Output| digest(o, &Digests::default()).unwrap();
        let actual: [u8; 32] = Sha256::digest(b"home").into();
        assert_eq!(made(&page), actual);
        let stand_in = [7u8; 32];
        let known: Digests = [("index.html".to_string(), (4, stand_in))]
            .into_iter()
            .collect();
        assert_eq!(digest(&page, &known).unwrap(), stand_in);
        let other_size: Digests = [("index.html".to_string(), (5, stand_in))]
            .into_iter()
            .collect();
        assert_eq!(digest(&page, &other_size).unwrap(), actual);
        let elsewhere: Digests = [("about.html".to_string(), (4, stand_in))]
            .into_iter()
            .collect();
        assert_eq!(digest(&page, &elsewhere).unwrap(), actual);
    }

    fn contents(dir: &Path) -> Vec<(String, String)> {
        let mut all: Vec<(String, String)> = walkdir::WalkDir::new(dir)
            .min_depth(1)
            .into_iter()
            .map(Result::unwrap)
            .map(|e| {
                let rel = e
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let text = std::fs::read_to_string(e.path()).unwrap_or_else(|_| "/".into());
                (rel, text)
            })
            .collect();
        all.sort();
        all
    }

    fn pairs(files: &[(&str, &str)]) -> Vec<(String, String)> {
        files
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn an_update_writes_only_what_changed_and_removes_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let (out, record) = (
            dir.path().join("public"),
            dir.path().join("cache/published.bin"),
        );
        publish(
            &out,
            &record,
            &[
                ("index.html", "home"),
                ("a/index.html", "a"),
                ("b/c/x.txt", "x"),
                ("f", "file"),
            ],
        );
        assert!(record.exists());
        let mtime = |p: &str| std::fs::metadata(out.join(p)).unwrap().modified().unwrap();
        let home = mtime("index.html");
        std::thread::sleep(std::time::Duration::from_millis(20));
        // A stray file and an empty folder, as if put there by hand.
        std::fs::write(out.join("a/stray.txt"), "stray").unwrap();
        std::fs::create_dir_all(out.join("empty/deeper")).unwrap();
        let after = publish(
            &out,
            &record,
            // `f` becomes a folder; `b/c` goes; `a/index.html` changes.
            &[
                ("index.html", "home"),
                ("a/index.html", "a, edited"),
                ("f/index.html", "in f"),
            ],
        );
        assert_eq!(
            after,
            pairs(&[
                ("a", "/"),
                ("a/index.html", "a, edited"),
                ("f", "/"),
                ("f/index.html", "in f"),
                ("index.html", "home")
            ])
        );
        assert_eq!(
            mtime("index.html"),
            home,
            "an unchanged file is not rewritten"
        );
        assert!(!dir.path().join(".public.casebook-pending").exists());
        // And back: a folder becomes a file.
        let back = publish(
            &out,
            &record,
            &[("index.html", "home"), ("f", "file again")],
        );
        assert_eq!(back, pairs(&[("f", "file again"), ("index.html", "home")]));
    }

    #[test]
    fn without_a_record_files_are_compared_with_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let (out, record) = (dir.path().join("public"), dir.path().join("published.bin"));
        publish(&out, &record, &[("index.html", "home"), ("a.txt", "a")]);
        std::fs::remove_file(&record).unwrap();
        let mtime = |p: &str| std::fs::metadata(out.join(p)).unwrap().modified().unwrap();
        let home = mtime("index.html");
        std::thread::sleep(std::time::Duration::from_millis(20));
        let after = publish(&out, &record, &[("index.html", "home"), ("a.txt", "b")]);
        assert_eq!(after, pairs(&[("a.txt", "b"), ("index.html", "home")]));
        assert_eq!(mtime("index.html"), home);
        // A file edited behind the build's back is put right, record or not.
        std::fs::write(out.join("index.html"), "vandalised").unwrap();
        let after = publish(&out, &record, &[("index.html", "home"), ("a.txt", "b")]);
        assert_eq!(after, pairs(&[("a.txt", "b"), ("index.html", "home")]));
    }

    fn new_file(pending: &str, path: &str, replaces: bool) -> super::journal::NewFile {
        super::journal::NewFile {
            pending: pending.into(),
            path: path.into(),
            replaces,
        }
    }

    /// The key this machine seals `out`'s journals with.
    fn sealing(out: &Path) -> super::super::seal::Key {
        Beside::of(out).key(out).unwrap()
    }

    #[test]
    fn a_committed_update_is_completed_and_an_uncommitted_one_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let (out, record) = (dir.path().join("public"), dir.path().join("published.bin"));
        publish(
            &out,
            &record,
            &[
                ("index.html", "old home"),
                ("gone.txt", "gone"),
                ("a/x", "x"),
            ],
        );
        let old = contents(&out);
        let pending = dir.path().join(".public.casebook-pending");
        // Stopped before its commit: pending files but no journal. Nothing changes.
        std::fs::create_dir_all(&pending).unwrap();
        std::fs::write(pending.join("0"), "half").unwrap();
        let notes = recover(&out, &record).unwrap();
        assert_eq!(notes.len(), 1, "one line says what was done: {notes:?}");
        assert!(
            notes[0]
                .diagnostic()
                .message
                .contains("the folder is as it was")
        );
        assert!(!pending.exists());
        assert_eq!(contents(&out), old);
        // Stopped after it, with one rename done: the rest is done now.
        std::fs::create_dir_all(&pending).unwrap();
        std::fs::write(pending.join("1"), "new b").unwrap();
        std::fs::write(out.join("index.html"), "new home").unwrap();
        let journal = Journal {
            removed: vec![PathBuf::from("gone.txt"), PathBuf::from("a/x")],
            written: vec![
                new_file("0", "index.html", true),
                new_file("1", "b/y", false),
            ],
            created: vec!["b".into()],
        };
        journal.commit(&pending, &sealing(&out)).unwrap();
        let notes = recover(&out, &record).unwrap();
        assert!(
            notes[0].diagnostic().message.contains("was completed"),
            "{notes:?}"
        );
        assert!(!pending.exists());
        assert_eq!(
            contents(&out),
            pairs(&[("b", "/"), ("b/y", "new b"), ("index.html", "new home")])
        );
    }

    #[test]
    fn an_update_that_cannot_be_completed_is_undone_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let (out, record) = (dir.path().join("public"), dir.path().join("published.bin"));
        publish(
            &out,
            &record,
            &[
                ("index.html", "old home"),
                ("gone.txt", "gone"),
                ("a/x", "x"),
                ("f", "a file in the way"),
            ],
        );
        let old = contents(&out);
        let pending = dir.path().join(".public.casebook-pending");
        std::fs::create_dir_all(&pending).unwrap();
        for (name, text) in [("0", "new home"), ("1", "new c"), ("2", "cannot go")] {
            std::fs::write(pending.join(name), text).unwrap();
        }
        // `f/z` cannot be written: `f` is a file the journal does not remove. Everything
        // the update did before it failed must be put back.
        let journal = Journal {
            removed: vec![PathBuf::from("gone.txt"), PathBuf::from("a")],
            written: vec![
                new_file("0", "index.html", true),
                new_file("1", "c/d/e", false),
                new_file("2", "f/z", false),
            ],
            created: vec!["c".into(), "c/d".into()],
        };
        journal.commit(&pending, &sealing(&out)).unwrap();
        assert!(journal.apply(&out, &pending).is_err());
        assert_ne!(contents(&out), old, "the update began");
        let notes = recover(&out, &record).unwrap();
        assert!(
            notes[0].diagnostic().message.contains("it was undone"),
            "{notes:?}"
        );
        assert_eq!(contents(&out), old);
        assert!(!pending.exists());
        assert!(!dir.path().join(".public.casebook-trash").exists());
    }

    #[test]
    fn the_old_swap_is_put_back() {
        let dir = tempfile::tempdir().unwrap();
        let (out, swap) = (
            dir.path().join("public"),
            dir.path().join(".public.casebook-swap"),
        );
        std::fs::create_dir_all(&swap).unwrap();
        std::fs::write(swap.join("index.html"), "old").unwrap();
        recover(&out, &dir.path().join("published.bin")).unwrap();
        assert_eq!(contents(&out), pairs(&[("index.html", "old")]));
        std::fs::create_dir_all(&swap).unwrap();
        let staging = dir.path().join(".public.casebook-staging");
        std::fs::create_dir_all(&staging).unwrap();
        recover(&out, &dir.path().join("published.bin")).unwrap();
        assert!(!swap.exists() && !staging.exists());
        assert_eq!(contents(&out), pairs(&[("index.html", "old")]));
    }

    #[test]
    fn folders_are_listed_once_parents_first() {
        let existing = ["a".to_string()].into_iter().collect();
        let paths = ["a/b/c/x", "a/b/y", "d/z", "top"];
        assert_eq!(
            folders_of(paths.into_iter(), &existing),
            ["d", "a/b", "a/b/c"]
        );
    }
}
