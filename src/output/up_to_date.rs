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

use std::path::Path;

use blake2::{Blake2b512, Digest};
use rayon::prelude::*;

use super::beside::Beside;
use super::listings::{self, change_time, full_stamp};
use super::record::Stamp;
use super::stat::{Below, EntryStat, Folder};
use crate::cache_file::{Reader, Writer};

/// The record's file, in the cache folder.
pub(crate) const FILE: &str = "up-to-date.bin";

const MAGIC: &[u8] = b"casebook-up-to-date-2\n";

pub(crate) type Digest32 = [u8; 32];

/// What one walk of a site's sources found.
pub(crate) struct Walked {
    /// A digest of every file a build of the site could read; `None` when the newest
    /// change is too recent to record (see `listings::SETTLED`).
    pub(crate) digest: Option<Digest32>,
    /// The plain files among them, by path relative to the site's folder (`/`-separated),
    /// in no order: the content's listing, so that a build with work to do does not list
    /// `content/` again. Each has its stamp (see `listings::full_stamp`) once it has settled.
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
    let settled = listings::settled_now()?;
    let kept_file = cache.join(listings::FILE);
    let kept_bytes = std::fs::read(&kept_file).unwrap_or_default();
    let root_name = listings::root_name(&root);
    let kept = listings::Kept::parse(&kept_bytes, &root_name);
    let (digest, newest, files, listed) = tree(&root, &skip, settled, &kept)?;
    if let Some(listed) = listed {
        // A cache: one that cannot be saved only means the next walk lists every folder.
        let _ = super::save_atomically(&kept_file, &listings::encode(&root_name, &listed));
    }
    Some(Walked {
        digest: (newest < settled).then_some(digest),
        files,
    })
}

/// A digest of the files and folders below `dir` (the sources), leaving out the paths
/// `skip` (as they appear below `dir`) and a top-level `.git`, the newest change time
/// among them, the plain files' paths with their stamps if changed before `settled`, and
/// the folders' listings to keep when enough folders were listed anew
/// (`listings::worth_saving`; folders `kept` unchanged are not); `None` as for `sources`.
fn tree(
    dir: &Path,
    skip: &[&Path],
    settled: std::time::Duration,
    kept: &listings::Kept,
) -> Option<TreeWalk> {
    let walk_with = Walk {
        root: dir,
        skip,
        stamp: &|meta| Some((full_stamp(meta), meta.is_file())),
        kept,
        settled: Some(settled),
    };
    let mut found = Found::default();
    walk_from_root(&walk_with, &mut found)?;
    let Found {
        entries: mut stamps,
        listings,
        listed,
    } = found;
    let newest = (stamps.iter())
        .map(|(_, (s, _))| change_time(s))
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
        .map(|(path, (stamp, _))| (path, (change_time(&stamp) < settled).then_some(stamp)))
        .collect();
    Some((
        h.finalize()[..32].try_into().expect("32 bytes"),
        newest,
        files,
        listings::worth_saving(listed, listings.len()).then_some(listings),
    ))
}

/// A digest of the sources, their newest change, their plain files (`Walked::files`) and
/// the folder listings to keep, if worth saving.
type TreeWalk = (
    Digest32,
    std::time::Duration,
    Vec<(String, Option<[u8; 56]>)>,
    Option<Vec<listings::Listing>>,
);

/// How a walk goes: below which folder, what it leaves out (paths `skip` and a top-level
/// `.git`), what it makes of each entry (`stamp`; `None` leaves it out), and which folder
/// listings it may reuse (`kept`) and keep (those changed before `settled`).
struct Walk<'a, S> {
    root: &'a Path,
    skip: &'a [&'a Path],
    stamp: &'a (dyn Fn(&EntryStat) -> Option<S> + Sync),
    kept: &'a listings::Kept<'a>,
    settled: Option<std::time::Duration>,
}

/// What a walk found: each entry by path, the listings to keep, and how many of those
/// were listed anew rather than kept.
struct Found<S> {
    entries: Vec<(String, S)>,
    listings: Vec<listings::Listing>,
    listed: usize,
}

impl<S> Default for Found<S> {
    fn default() -> Self {
        Found {
            entries: Vec::new(),
            listings: Vec::new(),
            listed: 0,
        }
    }
}

/// Walks everything below `w.root` into `found`, stating from the root folder held open.
fn walk_from_root<S: Send>(w: &Walk<S>, found: &mut Found<S>) -> Option<()> {
    let root = Folder::open(w.root).ok()?;
    walk(
        w,
        "",
        listings::root_stamp(w.root),
        Below::root(&root),
        found,
    )
}

/// Walks the folder `rel` (whose stamp is `stamp`, if known) and everything below it into
/// `found`; `None` when an entry cannot be read, is a symbolic link or has a name that is
/// not UTF-8.
fn walk<S: Send>(
    w: &Walk<S>,
    rel: &str,
    stamp: Option<[u8; 56]>,
    below: Below,
    found: &mut Found<S>,
) -> Option<()> {
    let dir = w.root.join(rel);
    let left_out = |name: &str| {
        (rel.is_empty() && name == ".git") || w.skip.contains(&dir.join(name).as_path())
    };
    let kept = stamp.as_ref().and_then(|s| w.kept.names(rel, s));
    let from_kept = kept.is_some();
    // A folder listed anew is stated through its entries (relative to the open folder); a
    // kept listing's names by path.
    let (names, listed): (Vec<String>, Option<Vec<std::fs::DirEntry>>) = match kept {
        Some(kept) => (kept.into_iter().map(str::to_string).collect(), None),
        None => {
            let (mut names, mut listed) = (Vec::new(), Vec::new());
            for entry in std::fs::read_dir(&dir).ok()? {
                let entry = entry.ok()?;
                names.push(entry.file_name().into_string().ok()?);
                listed.push(entry);
            }
            (names, Some(listed))
        }
    };
    // A wide folder's entries are stated from the folder itself; those of the folders in
    // it from it too.
    let wide = (listed.is_none() && names.len() >= listings::PARALLEL_STATS)
        .then(|| Folder::open(&dir).ok())
        .flatten();
    let below = wide.as_ref().map_or(below, |folder| Below::at(folder, rel));
    let stat = |&i: &usize| {
        let meta = match &listed {
            Some(listed) => listed[i].metadata().map(|m| EntryStat::from(&m)),
            None if rel.is_empty() => below.stat(&names[i]),
            None => below.stat(&format!("{rel}/{}", names[i])),
        };
        Some((names[i].clone(), meta.ok()?))
    };
    let looked_at: Vec<usize> = (0..names.len()).filter(|&i| !left_out(&names[i])).collect();
    let entries = listings::look_at_each(&looked_at, stat)?;
    let mut subdirs = Vec::new();
    for (name, meta) in entries {
        let path = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if meta.is_symlink() {
            return None;
        }
        if meta.is_dir() {
            subdirs.push((path.clone(), full_stamp(&meta)));
        }
        if let Some(s) = (w.stamp)(&meta) {
            found.entries.push((path, s));
        }
    }
    if let (Some(stamp), Some(settled)) = (stamp, w.settled) {
        if change_time(&stamp) < settled {
            found.listings.push((rel.to_string(), stamp, names));
            found.listed += usize::from(!from_kept);
        }
    }
    let below: Vec<Found<S>> = subdirs
        .par_iter()
        .map(|(sub, stamp)| {
            let mut part = Found::default();
            walk(w, sub, Some(*stamp), below, &mut part).map(|()| part)
        })
        .collect::<Option<_>>()?;
    for part in below {
        found.entries.extend(part.entries);
        found.listings.extend(part.listings);
        found.listed += part.listed;
    }
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
/// files), listing only the folders changed since their listings were kept in
/// `kept_file`. `None` when one is a link or cannot be read.
fn output_digest(out: &Path, kept_file: &Path) -> Option<Digest32> {
    let kept_bytes = std::fs::read(kept_file).unwrap_or_default();
    let out_name = listings::root_name(out);
    let kept = listings::Kept::parse(&kept_bytes, &out_name);
    let mut found = Found::default();
    let walk_with = Walk {
        root: out,
        skip: &[],
        stamp: &|meta| (!meta.is_dir()).then(|| Stamp::of_stat(meta)),
        kept: &kept,
        settled: listings::settled_now(),
    };
    walk_from_root(&walk_with, &mut found)?;
    if listings::worth_saving(found.listed, found.listings.len()) {
        // A cache: one that cannot be saved only means the next check lists every folder.
        let _ = super::save_atomically(kept_file, &listings::encode(&out_name, &found.listings));
    }
    let mut files = found.entries;
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
    let kept_file = record_file.with_file_name(listings::OUTPUT_FILE);
    (output_digest(out, &kept_file)?.as_slice() == output).then_some(summary)
}

/// Removes the record, so the next build runs in full.
pub(crate) fn forget(record_file: &Path) {
    let _ = std::fs::remove_file(record_file);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain files `tree` finds below `root`, with the listings it kept, or already had.
    fn walked(root: &Path, kept: &[u8]) -> (Vec<String>, Option<Vec<u8>>) {
        // Every change counts as settled: these folders are made a moment ago.
        let settled = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            + std::time::Duration::from_secs(60);
        let name = root.to_string_lossy();
        let kept = listings::Kept::parse(kept, &name);
        let (_, _, files, listed) = tree(root, &[], settled, &kept).unwrap();
        let mut files: Vec<String> = files.into_iter().map(|(path, _)| path).collect();
        files.sort();
        (files, listed.map(|l| listings::encode(&name, &l)))
    }

    #[test]
    fn a_folder_too_wide_to_stat_one_by_one_is_walked_whole_listed_or_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let wide = listings::PARALLEL_STATS + 44;
        let mut expected = vec!["casebook.toml".to_string()];
        for i in 0..wide {
            let case = root.join(format!("content/cases/c{i:04}"));
            std::fs::create_dir_all(&case).unwrap();
            std::fs::write(case.join("index.md"), "x").unwrap();
            expected.push(format!("content/cases/c{i:04}/index.md"));
        }
        std::fs::write(root.join("content/cases/_index.md"), "x").unwrap();
        expected.push("content/cases/_index.md".into());
        std::fs::write(root.join("casebook.toml"), "x").unwrap();
        expected.sort();
        let (files, kept) = walked(root, &[]);
        assert_eq!(files, expected);
        let (again, _) = walked(root, &kept.expect("every folder listed anew: kept"));
        assert_eq!(again, expected);
        // One of the wide folder's entries a link: the walk refuses, as for a narrow one.
        std::os::unix::fs::symlink(root.join("casebook.toml"), root.join("content/cases/l"))
            .unwrap();
        let settled = std::time::Duration::MAX;
        let kept = listings::Kept::parse(&[], "");
        assert!(tree(root, &[], settled, &kept).is_none());
    }

    #[test]
    fn a_folder_is_listed_again_when_its_stamp_changed_and_not_before() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("content/a")).unwrap();
        std::fs::write(root.join("content/a/index.md"), "x").unwrap();
        std::fs::write(root.join("casebook.toml"), "x").unwrap();
        let (files, kept) = walked(root, &[]);
        assert_eq!(files, ["casebook.toml", "content/a/index.md"]);
        let kept = kept.expect("every folder listed anew: kept");
        // Nothing changed: the same files, every folder from the kept listings.
        let (again, listed) = walked(root, &kept);
        assert_eq!(again, files);
        assert!(listed.is_none());
        // A file added: its folder's stamp changed, so it is listed again.
        std::fs::write(root.join("content/a/b.md"), "x").unwrap();
        let (added, listed) = walked(root, &kept);
        assert_eq!(
            added,
            ["casebook.toml", "content/a/b.md", "content/a/index.md"]
        );
        assert!(listed.is_some());
        // A kept listing stands for its folder while the stamp holds: one that leaves a file
        // out (which no real change can make) is what the walk goes by.
        let name = root.to_string_lossy();
        let stamp = |rel: &str| {
            full_stamp(&EntryStat::from(
                &std::fs::symlink_metadata(root.join(rel)).unwrap(),
            ))
        };
        let forged = |root: &str| {
            listings::encode(
                root,
                &[
                    (
                        String::new(),
                        stamp(""),
                        vec!["content".into(), "casebook.toml".into()],
                    ),
                    ("content".into(), stamp("content"), vec!["a".into()]),
                    (
                        "content/a".into(),
                        stamp("content/a"),
                        vec!["index.md".into()],
                    ),
                ],
            )
        };
        let (forged_walk, _) = walked(root, &forged(&name));
        assert_eq!(forged_walk, ["casebook.toml", "content/a/index.md"]);
        // Kept for another folder: not used.
        assert_eq!(walked(root, &forged("/elsewhere")).0, added);
    }

    #[test]
    fn listings_are_written_again_only_when_enough_folders_were_listed_anew() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for i in 0..40 {
            std::fs::create_dir_all(root.join(format!("content/c{i}"))).unwrap();
            std::fs::write(root.join(format!("content/c{i}/index.md")), "x").unwrap();
        }
        let (files, kept) = walked(root, &[]);
        let kept = kept.expect("every folder listed anew: kept");
        // One folder of 42 changed: it is listed, and its new file found, every time
        // until more have changed.
        std::fs::write(root.join("content/c3/more.md"), "x").unwrap();
        for _ in 0..2 {
            let (again, listed) = walked(root, &kept);
            assert_eq!(again.len(), files.len() + 1);
            assert!(again.contains(&"content/c3/more.md".to_string()));
            assert!(listed.is_none(), "one folder in 42 is not worth a rewrite");
        }
        for i in 0..5 {
            std::fs::write(root.join(format!("content/c{i}/more.md")), "x").unwrap();
        }
        let (again, listed) = walked(root, &kept);
        assert_eq!(again.len(), files.len() + 5);
        assert!(listed.is_some(), "five folders in 42 are");
    }

    #[test]
    fn a_file_or_folder_changed_a_moment_ago_has_no_stamp_and_no_kept_listing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("content")).unwrap();
        std::fs::write(dir.path().join("content/new.md"), "x").unwrap();
        let settled = listings::settled_now().unwrap();
        let kept = listings::Kept::default();
        let (_, _, files, listed) = tree(dir.path(), &[], settled, &kept).unwrap();
        assert_eq!(files, [("content/new.md".to_string(), None)]);
        assert!(listed.is_none(), "no folder settled: nothing to keep");
    }
}
