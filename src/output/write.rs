//! Writing a build into its output folder: all of it or none of it, touching only what
//! changed.
//!
//! - A new folder is written beside the output (`.public.casebook-staging`) and renamed into
//!   place when complete.
//! - An existing folder is updated in place. The files that changed are first written
//!   beside it (`.public.casebook-pending/`, one flat folder), then a journal listing every
//!   rename and removal is committed with one rename, then applied. A build that fails
//!   before the commit leaves the folder untouched; one stopped after it is completed by
//!   the next casebook run, which applies the journal again (each step can be repeated).
//!
//! So a build never keeps a second copy of the site, and an unchanged file is neither
//! read nor written: the record (`record.rs`) vouches for it.

use std::collections::{BTreeSet, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::record::{self, Entry, Fingerprint, Prior, Stamp};
use super::stage::Staged;
use super::{Data, Output, PathMap, PathSet};
use crate::cache_file::{Reader, Writer};
use crate::error::{Error, Result};
use crate::site::Stopwatch;

/// Threads for filesystem work: creating files and folders mostly waits on the disk, so
/// more threads than cores keep it busy (measured: 3 to 4 times faster than one per core).
pub(super) const IO_THREADS: usize = 8;

const JOURNAL_MAGIC: &[u8] = b"casebook-journal-2\n";

/// Runs `f` on a pool of `IO_THREADS` threads.
pub(crate) fn in_io_pool<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new()
        .num_threads(IO_THREADS)
        .build()
    {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

/// The folders casebook keeps beside `out` while writing it.
struct Beside {
    /// A new site, before it is renamed into place.
    staging: PathBuf,
    /// Changed files and the journal of an in-place update.
    pending: PathBuf,
    /// Left by casebook 0.1's swap, which kept the previous site in `staging`.
    swap: PathBuf,
}

impl Beside {
    fn of(out: &Path) -> Beside {
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
            swap: named("swap"),
        }
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

/// Completes an update that was stopped after its commit, and clears what a build stopped
/// before it left beside `out`.
pub(crate) fn recover(out: &Path) -> Result<()> {
    let beside = Beside::of(out);
    if beside.swap.exists() {
        // Stopped in the middle of the old swap: the previous site is in `swap`.
        if out.exists() {
            remove_tree(&beside.swap)?;
        } else {
            std::fs::rename(&beside.swap, out).map_err(|e| Error::io(&beside.swap, e))?;
        }
    }
    let journal = beside.pending.join("journal");
    if let Ok(bytes) = std::fs::read(&journal) {
        let Some(journal) = Journal::parse(&bytes) else {
            return Err(Error::io(
                &journal,
                std::io::Error::other(
                    "a stopped build's journal is damaged: delete the output folder and its .casebook-pending folder, then build again",
                ),
            ));
        };
        journal.apply(out, &beside.pending)?;
    }
    for dir in [&beside.pending, &beside.staging] {
        if dir.exists() {
            remove_tree(dir)?;
        }
    }
    Ok(())
}

fn remove_tree(dir: &Path) -> Result<()> {
    std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))
}

/// What writing did: how many files it wrote or removed, and how long each part took.
pub(crate) struct Written {
    pub(crate) changed: usize,
    pub(crate) timings: Vec<(&'static str, std::time::Duration)>,
}

/// Makes `prior.out` hold exactly `outputs`, and records them in `record_file`. `staged`
/// holds the pages already written into a new folder's staging folder.
pub(crate) fn write(
    outputs: &[&Output],
    prior: &Prior,
    fingerprints: &PathMap<Fingerprint>,
    record_file: &Path,
    staged: Option<Staged>,
) -> Result<Written> {
    in_io_pool(|| {
        let mut watch = Stopwatch::start();
        let (mut entries, changed) = if prior.exists {
            update(outputs, prior, fingerprints, record_file, &mut watch)?
        } else {
            let entries = create(
                outputs,
                &prior.out,
                fingerprints,
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
        watch.lap("write: record");
        Ok(Written {
            changed,
            timings: watch.laps,
        })
    })
}

/// Writes a new output folder through the staging folder, where `staged` pages already are.
fn create<'a>(
    outputs: &[&'a Output],
    out: &Path,
    fingerprints: &PathMap<Fingerprint>,
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
            let (target, sha256) = (beside.staging.join(&o.path), digest(o)?);
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
    std::fs::rename(&beside.staging, out).map_err(|e| Error::io(out, e))?;
    staged.published = true;
    watch.lap("write: commit");
    Ok(entries)
}

/// What an in-place update does to one output.
enum Step {
    Keep(Stamp),
    Write,
}

/// Updates an existing output folder: only changed files are written.
fn update<'a>(
    outputs: &[&'a Output],
    prior: &Prior,
    fingerprints: &PathMap<Fingerprint>,
    record_file: &Path,
    watch: &mut Stopwatch,
) -> Result<(Vec<(&'a str, Entry)>, usize)> {
    let beside = Beside::of(&prior.out);
    let planned: Vec<(Step, [u8; 32])> = outputs
        .par_iter()
        .map(|o| plan(o, prior))
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
        std::fs::create_dir_all(&beside.pending).map_err(|e| Error::io(&beside.pending, e))?;
        stamps = written
            .par_iter()
            .map(|&i| Ok((i, put(outputs[i], &beside.pending.join(i.to_string()))?)))
            .collect::<Result<_>>()?;
        watch.lap("write: files");
        let journal = Journal {
            removed: removed
                .iter()
                .map(PathBuf::from)
                .chain(stray_dirs(outputs, prior))
                .chain(prior.strays.iter().cloned())
                .collect(),
            written: written
                .iter()
                .map(|&i| (i.to_string(), outputs[i].path.clone()))
                .collect(),
        };
        // The commit: from here on, the update is completed even if this build stops.
        record::forget(record_file);
        let file = beside.pending.join("journal");
        let draft = beside.pending.join("journal.draft");
        std::fs::File::create(&draft)
            .and_then(|mut f| f.write_all(&journal.to_bytes()).and_then(|()| f.sync_all()))
            .and_then(|()| std::fs::rename(&draft, &file))
            .map_err(|e| Error::io(&file, e))?;
        journal.apply(&prior.out, &beside.pending)?;
        remove_tree(&beside.pending)?;
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

/// Whether an output's published copy is already right, and its SHA-256.
fn plan(o: &Output, prior: &Prior) -> Result<(Step, [u8; 32])> {
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
    let sha256 = digest(o)?;
    if let Some(entry) = trusted.filter(|e| e.sha256 == sha256) {
        return Ok((Step::Keep(entry.stamp), sha256));
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
        _ => {
            let bytes = read(o)?;
            stamp.size == bytes.len() as u64
                && std::fs::read(prior.out.join(&o.path)).is_ok_and(|old| *bytes == old[..])
        }
    };
    Ok((if same { Step::Keep(stamp) } else { Step::Write }, sha256))
}

/// The SHA-256 of an output's bytes: known for cache files and published pages.
fn digest(o: &Output) -> Result<[u8; 32]> {
    let known = match &o.data {
        Data::Cached { sha256, .. }
        | Data::Published { sha256, .. }
        | Data::Staged { sha256, .. } => Some(sha256),
        Data::Bytes(_) | Data::Copy(_) => None,
    };
    if let Some(sha256) = known.and_then(|h| crate::images::unhex(h)) {
        return Ok(sha256);
    }
    Ok(Sha256::digest(read(o)?).into())
}

/// An output's bytes; an error names the file they are read from.
fn read(o: &Output) -> Result<std::borrow::Cow<'_, [u8]>> {
    o.read().map_err(|e| match &o.data {
        Data::Copy(p)
        | Data::Cached { file: p, .. }
        | Data::Published { file: p, .. }
        | Data::Staged { file: p, .. } => Error::io(p, e),
        Data::Bytes(_) => Error::io(Path::new(&o.path), e),
    })
}

/// Writes one output at `target` and returns its stamp.
fn put(o: &Output, target: &Path) -> Result<Stamp> {
    match &o.data {
        Data::Cached { file, size, .. } => copy_cached(file, *size, target),
        Data::Bytes(_) | Data::Copy(_) | Data::Published { .. } | Data::Staged { .. } => {
            write_file(target, &read(o)?)
        }
    }
}

/// Writes `bytes` to a new file at `target` and returns its stamp.
pub(super) fn write_file(target: &Path, bytes: &[u8]) -> Result<Stamp> {
    let mut f = std::fs::File::create(target).map_err(|e| Error::io(target, e))?;
    f.write_all(bytes).map_err(|e| Error::io(target, e))?;
    f.metadata()
        .map(|m| Stamp::of(&m))
        .map_err(|e| Error::io(target, e))
}

/// Copies a cache file: a copy, not a hard link, since a link would let anything that edits
/// the published file edit the cache, and through it every later build. The copy takes
/// the cache file's modification time, so it is recognised without a record. A cache file
/// whose size is not the one recorded for it is refused: the cache was damaged.
fn copy_cached(file: &Path, size: u64, target: &Path) -> Result<Stamp> {
    let meta = std::fs::metadata(file).map_err(|e| Error::io(file, e))?;
    if meta.len() != size {
        return Err(Error::io(
            file,
            std::io::Error::other(format!(
                "the image cache is damaged: this file has {} bytes, not the {size} recorded for it; delete the cache folder and build again",
                meta.len()
            )),
        ));
    }
    let cache_time = meta.modified().map_err(|e| Error::io(file, e))?;
    std::fs::copy(file, target).map_err(|e| Error::io(file, e))?;
    // The cache's files are read-only; published copies are ordinary files.
    let mut perms = std::fs::metadata(target)
        .map_err(|e| Error::io(target, e))?
        .permissions();
    #[cfg(unix)]
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o644);
    #[cfg(not(unix))]
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(target, perms).map_err(|e| Error::io(target, e))?;
    let f = std::fs::File::options()
        .write(true)
        .open(target)
        .map_err(|e| Error::io(target, e))?;
    f.set_modified(cache_time)
        .map_err(|e| Error::io(target, e))?;
    f.metadata()
        .map(|m| Stamp::of(&m))
        .map_err(|e| Error::io(target, e))
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

/// The folders below the output that `paths` need and `existing` lacks, parents first.
pub(super) fn folders_of<'a>(
    paths: impl Iterator<Item = &'a str>,
    existing: &PathSet,
) -> Vec<String> {
    let mut folders: BTreeSet<(usize, &str)> = BTreeSet::new();
    for path in paths {
        let mut end = path.len();
        while let Some(slash) = path[..end].rfind('/') {
            let folder = &path[..slash];
            if existing.contains(folder) || !folders.insert((folder.matches('/').count(), folder)) {
                break;
            }
            end = slash;
        }
    }
    folders.into_iter().map(|(_, f)| f.to_string()).collect()
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

/// Creates one folder, whose parent exists; one already there is fine.
pub(super) fn create_folder(path: &Path) -> Result<()> {
    match std::fs::create_dir(path) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(Error::io(path, e)),
        _ => Ok(()),
    }
}

/// What an in-place update does, saved before it starts so that it can be completed.
#[derive(Debug, PartialEq)]
struct Journal {
    /// Files, stray entries and folders to remove, relative to the output folder.
    removed: Vec<PathBuf>,
    /// Pending file name -> output path.
    written: Vec<(String, String)>,
}

impl Journal {
    /// Applies the update; every step may be repeated after an interruption.
    fn apply(&self, out: &Path, pending: &Path) -> Result<()> {
        self.removed.par_iter().try_for_each(|rel| {
            let path = out.join(rel);
            let gone = match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
                Ok(_) => std::fs::remove_file(&path),
                Err(_) => Ok(()),
            };
            match gone {
                // Inside a folder removed at the same time.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                r => r.map_err(|e| Error::io(&path, e)),
            }
        })?;
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
        // A folder where a file now goes is among the removed ones (`stray_dirs`).
        let needed = folders_of(
            self.written.iter().map(|(_, p)| p.as_str()),
            &Default::default(),
        );
        make_dirs(out, needed)?;
        self.written.par_iter().try_for_each(|(name, path)| {
            let (from, to) = (pending.join(name), out.join(path));
            match std::fs::rename(&from, &to) {
                // Already moved by an earlier, interrupted run.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && to.exists() => Ok(()),
                r => r.map_err(|e| Error::io(&to, e)),
            }
        })
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new(JOURNAL_MAGIC);
        for path in &self.removed {
            w.raw(b"R");
            w.bytes(path.as_os_str().as_encoded_bytes());
        }
        for (name, path) in &self.written {
            w.raw(b"W");
            w.bytes(name.as_bytes());
            w.bytes(path.as_bytes());
        }
        // The checksum last: a journal cut short is not applied.
        w.finish()
    }

    fn parse(bytes: &[u8]) -> Option<Journal> {
        let mut r = Reader::open(bytes, JOURNAL_MAGIC)?;
        let mut journal = Journal {
            removed: Vec::new(),
            written: Vec::new(),
        };
        while !r.is_empty() {
            match r.raw(1)? {
                b"R" => journal.removed.push(PathBuf::from(os_string(r.bytes()?)?)),
                b"W" => journal.written.push((r.string()?, r.string()?)),
                _ => return None,
            }
        }
        Some(journal)
    }
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

    /// Writes `files` to `out` as a build does, and returns what the folder then holds.
    fn publish(out: &Path, record: &Path, files: &[(&str, &str)]) -> Vec<(String, String)> {
        let outputs: Vec<Output> = files.iter().map(|(p, b)| Output::bytes(*p, *b)).collect();
        recover(out).unwrap();
        let prior = Prior::load(out, record).unwrap();
        write(
            &outputs.iter().collect::<Vec<_>>(),
            &prior,
            &PathMap::default(),
            record,
            None,
        )
        .unwrap();
        contents(out)
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
        let pending = dir.path().join(".public.casebook-pending");
        // Stopped before its commit: pending files but no journal. Nothing changes.
        std::fs::create_dir_all(&pending).unwrap();
        std::fs::write(pending.join("0"), "half").unwrap();
        recover(&out).unwrap();
        assert!(!pending.exists());
        assert_eq!(
            contents(&out),
            pairs(&[
                ("a", "/"),
                ("a/x", "x"),
                ("gone.txt", "gone"),
                ("index.html", "old home")
            ])
        );
        // Stopped after it, with one rename done: the rest is done now.
        std::fs::create_dir_all(&pending).unwrap();
        std::fs::write(pending.join("1"), "new b").unwrap();
        std::fs::write(out.join("index.html"), "new home").unwrap();
        let journal = Journal {
            removed: vec![PathBuf::from("gone.txt"), PathBuf::from("a/x")],
            written: vec![
                ("0".into(), "index.html".into()),
                ("1".into(), "b/y".into()),
            ],
        };
        assert_eq!(Journal::parse(&journal.to_bytes()).as_ref(), Some(&journal));
        std::fs::write(pending.join("journal"), journal.to_bytes()).unwrap();
        recover(&out).unwrap();
        assert!(!pending.exists());
        assert_eq!(
            contents(&out),
            pairs(&[("b", "/"), ("b/y", "new b"), ("index.html", "new home")])
        );
        // A journal cut short is refused, not half applied.
        let bytes = journal.to_bytes();
        assert_eq!(Journal::parse(&bytes[..bytes.len() - 1]), None);
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
        recover(&out).unwrap();
        assert_eq!(contents(&out), pairs(&[("index.html", "old")]));
        std::fs::create_dir_all(&swap).unwrap();
        let staging = dir.path().join(".public.casebook-staging");
        std::fs::create_dir_all(&staging).unwrap();
        recover(&out).unwrap();
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
