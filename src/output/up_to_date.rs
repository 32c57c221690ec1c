//! A build with nothing to do: the sources and the output folder exactly as the last build
//! of this folder left them.
//!
//! After writing, a build records a digest of every file it could have read (path, size,
//! modification and change times, device and inode: a stat each, no byte read) and a digest
//! of the files it left in the output (path, size and modification time, as the write stage
//! recorded them in `published.bin`, so recording walks nothing), sealed with the output's
//! key (`seal.rs`). The next
//! build of the same folder computes both again; when they match, the output is what a build
//! would write again, byte for byte (builds are reproducible), and nothing is loaded.
//! A record that arrived with the site, is damaged, or was made for other sources or
//! another output is never matched: the build then runs as always. The record decides only
//! that nothing needs doing; it never names a file to write or remove.

use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use blake2::{Blake2b512, Digest};
use rayon::prelude::*;

use super::beside::Beside;
use super::record::Stamp;
use crate::cache_file::{Reader, Writer};

/// The record's file, in the cache folder.
pub(crate) const FILE: &str = "up-to-date.bin";

const MAGIC: &[u8] = b"casebook-up-to-date-2\n";

pub(crate) type Digest32 = [u8; 32];

/// What one walk of a site's sources found.
pub(crate) struct Walked {
    /// A digest of every file a build of the site could read; `None` when the newest
    /// change is too recent to record (see `SETTLED`).
    pub(crate) digest: Option<Digest32>,
    /// The plain files among them, by path relative to the site's folder (`/`-separated),
    /// in no order: the content's listing, so that a build with work to do does not list
    /// `content/` again. Each has its stamp (see `full_stamp`) once it has settled.
    pub(crate) files: Vec<(String, Option<[u8; 56]>)>,
}

/// Walks every file a build of the site in `root` into `out` could read: all of `root`
/// (hidden names too) but `.git`, the output, the folders casebook keeps beside it and the
/// cache folder `cache`. `None` when one cannot be read, is a symbolic link (whatever it
/// leads to could change unseen) or has a name that is not UTF-8.
pub(crate) fn sources(root: &Path, out: &Path, cache: &Path) -> Option<Walked> {
    let root = crate::paths::resolved(root);
    let beside = Beside::of(out);
    let (out, cache) = (crate::paths::resolved(out), crate::paths::resolved(cache));
    let mut skip = vec![out.as_path(), cache.as_path()];
    skip.extend(beside.all());
    // File times are kept at a coarse tick: a file changed in the same tick as the one this
    // listing saw, after it was read, would look unchanged. Like Git's "racily clean"
    // entries, a site with a change that recent is not recorded at all, and such a file
    // has no stamp.
    let settled = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .checked_sub(SETTLED)?;
    let (digest, newest, files) = tree(&root, &skip, settled)?;
    Some(Walked {
        digest: (newest < settled).then_some(digest),
        files,
    })
}

/// How long ago the newest change must be for the sources' listing to be recorded.
const SETTLED: std::time::Duration = std::time::Duration::from_secs(1);

/// A digest of the files and folders below `dir` (the sources), leaving out the paths
/// `skip` (as they appear below `dir`) and a top-level `.git`, the newest change time
/// among them, and the plain files' paths with their stamps if changed before `settled`;
/// `None` as for `sources`.
fn tree(dir: &Path, skip: &[&Path], settled: std::time::Duration) -> Option<TreeWalk> {
    let mut stamps = Vec::new();
    walk(dir, "", skip, &mut stamps, &|meta| {
        Some((full_stamp(meta), meta.is_file()))
    })?;
    let changed = |s: &[u8; 56]| {
        let word = |i: usize| u64::from_le_bytes(s[i * 8..i * 8 + 8].try_into().expect("8"));
        std::time::Duration::new(word(5), word(6) as u32)
    };
    let newest = (stamps.iter())
        .map(|(_, (s, _))| changed(s))
        .max()
        .unwrap_or_default();
    stamps.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut h = Blake2b512::new();
    for (path, (stamp, _)) in &stamps {
        h.update((path.len() as u64).to_le_bytes());
        h.update(path.as_bytes());
        h.update(stamp);
    }
    let files = (stamps.into_iter())
        .filter(|(_, (_, file))| *file)
        .map(|(path, (stamp, _))| (path, (changed(&stamp) < settled).then_some(stamp)))
        .collect();
    Some((
        h.finalize()[..32].try_into().expect("32 bytes"),
        newest,
        files,
    ))
}

/// A digest of the sources, their newest change, and their plain files (`Walked::files`).
type TreeWalk = (
    Digest32,
    std::time::Duration,
    Vec<(String, Option<[u8; 56]>)>,
);

/// Every stat field that changes with a file's content or identity.
fn full_stamp(meta: &std::fs::Metadata) -> [u8; 56] {
    let mut stamp = [0u8; 56];
    for (i, n) in [
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime() as u64,
        meta.mtime_nsec() as u64,
        meta.ctime() as u64,
        meta.ctime_nsec() as u64,
    ]
    .into_iter()
    .enumerate()
    {
        stamp[i * 8..i * 8 + 8].copy_from_slice(&n.to_le_bytes());
    }
    stamp
}

/// What `stamp` makes of each entry below `root/rel` (the ones it returns `None` for are
/// left out), by path; `None` when an entry cannot be read or is a symbolic link.
fn walk<S: Send>(
    root: &Path,
    rel: &str,
    skip: &[&Path],
    into: &mut Vec<(String, S)>,
    stamp: &(dyn Fn(&std::fs::Metadata) -> Option<S> + Sync),
) -> Option<()> {
    let dir = root.join(rel);
    let mut subdirs = Vec::new();
    for entry in std::fs::read_dir(&dir).ok()? {
        let entry = entry.ok()?;
        let name = entry.file_name().into_string().ok()?;
        if rel.is_empty() && name == ".git" {
            continue;
        }
        let path = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if skip.iter().any(|s| *s == entry.path()) {
            continue;
        }
        let meta = entry.metadata().ok()?;
        let kind = meta.file_type();
        if kind.is_symlink() {
            return None;
        }
        if kind.is_dir() {
            subdirs.push(path.clone());
        }
        if let Some(s) = stamp(&meta) {
            into.push((path, s));
        }
    }
    let below: Vec<Vec<(String, S)>> = subdirs
        .par_iter()
        .map(|sub| {
            let mut part = Vec::new();
            walk(root, sub, skip, &mut part, stamp).map(|()| part)
        })
        .collect::<Option<_>>()?;
    into.extend(below.into_iter().flatten());
    Some(())
}

/// A digest of a folder's files as the write stage records them: `files` sorted by path.
pub(crate) fn files_digest<'a>(files: impl Iterator<Item = (&'a str, Stamp)>) -> Digest32 {
    let mut h = Blake2b512::new();
    for (path, stamp) in files {
        h.update((path.len() as u64).to_le_bytes());
        h.update(path.as_bytes());
        h.update(stamp.to_bytes());
    }
    h.finalize()[..32].try_into().expect("32 bytes")
}

/// `files_digest` of the files now in `out` (folders left out: the write stage records
/// files). `None` when one is a link or cannot be read.
fn output_digest(out: &Path) -> Option<Digest32> {
    let mut files = Vec::new();
    walk(out, "", &[], &mut files, &|meta| {
        (!meta.is_dir()).then(|| Stamp::of(meta))
    })?;
    files.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Some(files_digest(files.iter().map(|(p, s)| (p.as_str(), *s))))
}

/// Records that `out`, whose files have digest `output` (`files_digest`, from what the
/// write stage recorded), is what a build of the sources with digest `sources` wrote, with
/// `summary` (what the build reported) to tell again. A cache: a record that cannot be
/// saved only means the next build runs in full.
pub(crate) fn save(
    record_file: &Path,
    out: &Path,
    sources: &Digest32,
    output: &Digest32,
    summary: &[u8],
) {
    let mut w = Writer::new(MAGIC);
    w.raw(sources);
    w.raw(output);
    w.bytes(summary);
    super::sealed::save(record_file, out, &w.finish());
}

/// What the last build of `out` reported, when it was made from sources with digest
/// `sources` and `out` is still exactly as it wrote it.
pub(crate) fn check(record_file: &Path, out: &Path, sources: &Digest32) -> Option<Vec<u8>> {
    let body = super::sealed::load(record_file, out)?;
    let mut r = Reader::open(&body, MAGIC)?;
    if r.raw(32)? != sources {
        return None;
    }
    let output = r.raw(32)?;
    let summary = r.bytes()?.to_vec();
    (output_digest(out)?.as_slice() == output).then_some(summary)
}

/// Removes the record, so the next build runs in full.
pub(crate) fn forget(record_file: &Path) {
    let _ = std::fs::remove_file(record_file);
}
