//! The content-addressed image cache (`.casebook-cache/` by default).
//!
//! `images/<sha256>.jpg` holds every derivative ever made, named by its own hash, so a file
//! is written once and never changes. `index.json` records, per job key (source hash +
//! operation + pipeline version), which files the job produced, and per source file its
//! size, times and inode with its SHA-256: when none of those changed, the source is not
//! hashed again. The ctime cannot be set back by tools such as `touch`, so a changed file is
//! always noticed. A damaged or missing index only costs time: everything is re-derived.
//! An index that does not parse, or that names anything but a plain `<sha256>.jpg` in
//! `images/`, is discarded with a warning: the cache is checked, not trusted. So is a
//! cache file before it is first published (`check`): its bytes must hash to its name.
//!
//! A shard of a CI job matrix (`build --shard 2/4`) saves its index as
//! `index.shard-2-of-4.json` instead, so the caches of all the shards can be unpacked into
//! one folder: the images never collide (each is named by its hash), and the next full
//! build reads every shard's index with its own, then saves one `index.json` in their place.

use std::collections::BTreeMap;

use rustc_hash::FxHashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::Shard;
use super::pipeline::Encoded;
use crate::error::Diagnostic;
use crate::hashing::hex;

/// The index of a full build.
const INDEX: &str = "index.json";
/// A shard's index is `index.shard-I-of-N.json`.
const SHARD_INDEX_PREFIX: &str = "index.shard-";

fn shard_index_name(shard: Shard) -> String {
    format!(
        "{SHARD_INDEX_PREFIX}{}-of-{}.json",
        shard.index, shard.count
    )
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Entry {
    /// `size` or `placeholder`.
    pub(crate) kind: String,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub sha256: String,
    pub(crate) size: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct SourceStamp {
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    inode: u64,
    sha256: String,
}

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct Index {
    version: String,
    sources: BTreeMap<String, SourceStamp>,
    jobs: BTreeMap<String, Vec<Entry>>,
}

pub(super) struct Cache {
    dir: PathBuf,
    previous: Index,
    /// The hashes of the files in `images/` when the cache was opened: one listing of the
    /// folder instead of a `stat` for each of a warm archive's hundreds of thousands of
    /// files. Their sizes are checked when a file is copied out (`output::write`).
    present: FxHashSet<[u8; 32]>,
    /// The shards' indexes read with `index.json`.
    shard_indexes: Vec<PathBuf>,
    /// What this build used; saved at the end, so stale entries fall away.
    current: Mutex<Index>,
    /// Whether `current` holds anything `previous` did not: a new source stamp or job.
    /// Without, an index with as many entries as before is the same index, and is not
    /// written again (nor compared, entry by entry).
    grown: AtomicBool,
    /// The files this run wrote itself, from bytes it had just hashed: they need no check.
    written: Mutex<FxHashSet<String>>,
    /// Why an index was discarded, for the build's warnings.
    pub(super) warnings: Vec<Diagnostic>,
}

/// Why an index cannot be used: `None` when it can. Its entries name cache files, so any
/// name but 64 lowercase hex digits (a path, `..`) could reach outside `images/`.
fn unusable(index: &Index) -> Option<String> {
    let plain =
        |h: &str| h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    let bad = index
        .jobs
        .values()
        .flatten()
        .find(|e| !plain(&e.sha256) || !matches!(e.kind.as_str(), "size" | "placeholder"))?;
    Some(format!(
        "it names `{}`, which is not a file of the cache (`<sha256>.jpg` in images/)",
        bad.sha256.chars().take(80).collect::<String>()
    ))
}

fn stamp(path: &Path) -> Option<(u64, i128, i128, u64)> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Some((
            m.len(),
            ns(m.mtime(), m.mtime_nsec()),
            ns(m.ctime(), m.ctime_nsec()),
            m.ino(),
        ))
    }
    #[cfg(not(unix))]
    {
        let mtime = m
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_nanos() as i128;
        Some((m.len(), mtime, 0, 0))
    }
}

impl Cache {
    pub(super) fn open(dir: &Path) -> Cache {
        let mut warnings = Vec::new();
        // A missing index, or one of another pipeline version, is simply not used; one that
        // does not parse or names files outside the cache is discarded, and said so.
        let mut read = |path: &Path| -> Option<Index> {
            let bytes = std::fs::read(path).ok()?;
            let why = match serde_json::from_slice::<Index>(&bytes) {
                Ok(i) if i.version != super::PIPELINE_VERSION => return None,
                Ok(i) => match unusable(&i) {
                    None => return Some(i),
                    Some(why) => why,
                },
                Err(e) => format!("it does not parse ({e})"),
            };
            warnings.push(
                Diagnostic::new(path, format!("the image cache index was discarded: {why}")).hint(
                    "it is rebuilt by this build; photographs it vouched for are derived again",
                ),
            );
            None
        };
        let mut previous = read(&dir.join(INDEX)).unwrap_or_default();
        let mut shard_indexes: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(SHARD_INDEX_PREFIX) && n.ends_with(".json"))
            })
            .collect();
        shard_indexes.sort();
        for index in shard_indexes.iter().filter_map(|p| read(p)) {
            // The same job key always names the same files, so merging cannot conflict.
            previous.jobs.extend(index.jobs);
            previous.sources.extend(index.sources);
        }
        let present = if previous.jobs.is_empty() {
            FxHashSet::default()
        } else {
            list_images(&dir.join("images"))
        };
        Cache {
            dir: dir.to_path_buf(),
            previous,
            present,
            shard_indexes,
            current: Mutex::new(Index {
                version: super::PIPELINE_VERSION.into(),
                ..Index::default()
            }),
            grown: AtomicBool::new(false),
            written: Mutex::default(),
            warnings,
        }
    }

    /// Whether this run wrote the file of `sha256` itself.
    pub(super) fn wrote(&self, sha256: &str) -> bool {
        self.written
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(sha256)
    }

    /// The SHA-256 of the file of `sha256` as it is now, read in one pass.
    pub(super) fn hash_of(&self, sha256: &str) -> std::io::Result<String> {
        use std::io::Read as _;
        let mut file = std::fs::File::open(self.file(sha256))?;
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match file.read(&mut buf) {
                Ok(0) => return Ok(hex(&hasher.finalize())),
                Ok(n) => hasher.update(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Removes a file whose bytes are not those its name records, so it is written anew.
    pub(super) fn discard(&self, sha256: &str) -> std::io::Result<()> {
        match std::fs::remove_file(self.file(sha256)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    pub(super) fn file(&self, sha256: &str) -> PathBuf {
        self.dir.join("images").join(format!("{sha256}.jpg"))
    }

    /// The source's hash from the index, if the file is unchanged since it was recorded.
    pub(super) fn known_source_hash(&self, source: &Path) -> Option<String> {
        let key = source.to_string_lossy();
        let old = self.previous.sources.get(key.as_ref())?;
        let (size, mtime_ns, ctime_ns, inode) = stamp(source)?;
        if (size, mtime_ns, ctime_ns, inode) != (old.size, old.mtime_ns, old.ctime_ns, old.inode) {
            return None;
        }
        self.lock().sources.insert(key.into_owned(), old.clone());
        Some(old.sha256.clone())
    }

    pub(super) fn remember_source(&self, source: &Path, sha256: &str) {
        if let Some((size, mtime_ns, ctime_ns, inode)) = stamp(source) {
            self.grown.store(true, Ordering::Relaxed);
            self.lock().sources.insert(
                source.to_string_lossy().into_owned(),
                SourceStamp {
                    size,
                    mtime_ns,
                    ctime_ns,
                    inode,
                    sha256: sha256.to_string(),
                },
            );
        }
    }

    /// The files a job made before, if they are all still in the cache (as listed when it
    /// was opened).
    pub(super) fn job(&self, key: &str) -> Option<Vec<Entry>> {
        let entries = self.previous.jobs.get(key)?;
        let intact = entries
            .iter()
            .all(|e| crate::hashing::unhex(&e.sha256).is_some_and(|h| self.present.contains(&h)));
        if !intact {
            return None;
        }
        self.lock().jobs.insert(key.to_string(), entries.clone());
        Some(entries.clone())
    }

    /// Records the files a job just made.
    pub(super) fn record_job(&self, key: &str, entries: Vec<Entry>) {
        self.grown.store(true, Ordering::Relaxed);
        self.lock().jobs.insert(key.to_string(), entries);
    }

    /// Writes an encoded image under its own hash (once) and describes it.
    pub(super) fn store(&self, kind: &str, e: &Encoded) -> std::io::Result<Entry> {
        let sha256 = hex(&Sha256::digest(&e.bytes));
        let path = self.file(&sha256);
        if !path.exists() {
            let dir = self.dir.join("images");
            std::fs::create_dir_all(&dir)?;
            // Two jobs may produce the same bytes at the same moment (the same source under
            // two names): each writes its own temporary file, and the last rename wins with
            // identical content.
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let tmp = dir.join(format!(".{sha256}.{}.{n}.tmp", std::process::id()));
            std::fs::write(&tmp, &e.bytes)?;
            // Read-only: cache files are content-addressed and must never change.
            let mut perms = std::fs::metadata(&tmp)?.permissions();
            perms.set_readonly(true);
            std::fs::set_permissions(&tmp, perms)?;
            std::fs::rename(&tmp, &path)?;
            self.written
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(sha256.clone());
        }
        Ok(Entry {
            kind: kind.into(),
            width: e.width,
            height: e.height,
            sha256,
            size: e.bytes.len() as u64,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Index> {
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Saves the index of this build (a shard's under its own name); a full build's index
    /// replaces the shards' it read. Failure to save only makes the next build slower.
    pub(super) fn save(&self, shard: Option<Shard>) {
        let index = self.lock();
        // Tens of megabytes at archive scale: not written again when nothing changed.
        let same = !self.grown.load(Ordering::Relaxed)
            && index.sources.len() == self.previous.sources.len()
            && index.jobs.len() == self.previous.jobs.len();
        if shard.is_none() && self.shard_indexes.is_empty() && same {
            return;
        }
        let name = shard.map_or_else(|| INDEX.to_string(), shard_index_name);
        if self.write(&index, &name) && shard.is_none() {
            for shard in &self.shard_indexes {
                let _ = std::fs::remove_file(shard);
            }
        }
    }

    /// Makes what this run used the index the next run looks up, for `serve`, which keeps
    /// one cache open across rebuilds: after a full run (`keep_previous` false) in place of
    /// the index it read, after a partial one on top of it. Returns whether the run added
    /// anything the saved index lacks (`save_kept` then writes it).
    pub(super) fn roll_over(&mut self, keep_previous: bool) -> bool {
        let grown = std::mem::take(self.grown.get_mut());
        let fresh = Index {
            version: super::PIPELINE_VERSION.into(),
            ..Index::default()
        };
        let used = std::mem::replace(
            self.current.get_mut().unwrap_or_else(|p| p.into_inner()),
            fresh,
        );
        if keep_previous {
            self.previous.sources.extend(used.sources);
            self.previous.jobs.extend(used.jobs);
        } else {
            self.previous = used;
            // `save` removed them.
            self.shard_indexes.clear();
        }
        let written = std::mem::take(self.written.get_mut().unwrap_or_else(|p| p.into_inner()));
        self.present
            .extend(written.iter().filter_map(|h| crate::hashing::unhex(h)));
        grown
    }

    /// Saves the index the next run looks up (see `roll_over`): everything the runs of
    /// this cache used, so that the next `build` finds what `serve` derived.
    pub(super) fn save_kept(&self) {
        self.write(&self.previous, INDEX);
    }

    /// Writes `index` as `name`, atomically; whether it was.
    fn write(&self, index: &Index, name: &str) -> bool {
        if std::fs::create_dir_all(&self.dir).is_err() {
            return false;
        }
        let Ok(bytes) = serde_json::to_vec(index) else {
            return false;
        };
        let tmp = self.dir.join(format!(".index.{}.tmp", std::process::id()));
        std::fs::write(&tmp, bytes).is_ok() && std::fs::rename(&tmp, self.dir.join(name)).is_ok()
    }
}

/// The hashes of the image files in `dir` (`<sha256>.jpg`); temporary files are left out.
fn list_images(dir: &Path) -> FxHashSet<[u8; 32]> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return FxHashSet::default();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name();
            crate::hashing::unhex(name.to_str()?.strip_suffix(".jpg")?)
        })
        .collect()
}
