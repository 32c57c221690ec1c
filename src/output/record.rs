//! What the last build published, and what the output folder holds now.
//!
//! After writing, a build records each file's SHA-256, its size and modification time as
//! written, and for a page the fingerprint of everything it was rendered from
//! (`published.bin` in the cache folder). The next build scans the output folder (one
//! listing per folder, one `stat` per file, in parallel) and trusts an entry only while the
//! file's size and modification time are still the recorded ones, as `make` and `rsync`
//! do. A trusted entry spares reading the file to compare it, and a page whose fingerprint
//! did not change is not rendered at all.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::stat::{Below, EntryStat, Folder};
use super::{Data, Output, PathMap, PathSet, listings};
use crate::cache_file::{Reader, Writer};
use crate::error::{Diagnostic, Error, Result};

/// A hash of everything a page is rendered from (see `render::fingerprint`).
pub(crate) type Fingerprint = u128;

/// The record's file, in the cache folder.
pub(crate) const FILE: &str = "published.bin";

const MAGIC: &[u8] = b"casebook-published-1\n";

/// A file's size and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) size: u64,
    secs: i64,
    nanos: u32,
}

impl Stamp {
    pub(crate) fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp::of_stat(&EntryStat::from(meta))
    }

    pub(crate) fn of_stat(meta: &EntryStat) -> Stamp {
        let (secs, nanos) = match u32::try_from(meta.mtime_nsec) {
            Ok(nanos) if meta.mtime >= 0 && nanos < 1_000_000_000 => (meta.mtime, nanos),
            // Before 1970: never equal to a recorded stamp.
            _ => (i64::MIN, u32::MAX),
        };
        Stamp {
            size: meta.size,
            secs,
            nanos,
        }
    }

    /// Its bytes, for a digest of a folder's files (`up_to_date`).
    pub(crate) fn to_bytes(self) -> [u8; 20] {
        let mut bytes = [0u8; 20];
        bytes[..8].copy_from_slice(&self.size.to_le_bytes());
        bytes[8..16].copy_from_slice(&self.secs.to_le_bytes());
        bytes[16..].copy_from_slice(&self.nanos.to_le_bytes());
        bytes
    }
}

/// One recorded file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) sha256: [u8; 32],
    pub(crate) stamp: Stamp,
    /// Zero for files that are not rendered pages.
    pub(crate) fingerprint: Fingerprint,
}

/// The output folder as a build found it.
#[derive(Debug, Default)]
pub(crate) struct Prior {
    pub(crate) out: PathBuf,
    /// Whether the folder exists (it is then updated in place, not created).
    pub(crate) exists: bool,
    /// Every file below it (and anything else that is not a folder: links, pipes) by path.
    pub(crate) files: PathMap<Stamp>,
    /// Every folder below it.
    pub(crate) dirs: PathSet,
    /// Entries whose names are not UTF-8 (relative): never a build's, so always removed.
    pub(crate) strays: Vec<PathBuf>,
    /// The last build's entries whose files are still as it wrote them.
    pub(crate) trusted: PathMap<Entry>,
}

impl Prior {
    /// Whether the last build recorded `path` with the SHA-256 `sha256` (hex), and the file
    /// is still as it wrote it: the build then keeps it without reading anything.
    pub(crate) fn holds(&self, path: &str, sha256: &str) -> bool {
        self.trusted
            .get(path)
            .zip(crate::hashing::unhex(sha256))
            .is_some_and(|(e, h)| e.sha256 == h)
    }

    /// Scans `out` and reads the record in `record_file`. Refuses an existing folder that
    /// is not a casebook build, before anything is built. Call `recover` first.
    pub(crate) fn load(out: &Path, record_file: &Path) -> Result<Prior> {
        let mut prior = Prior {
            out: out.to_path_buf(),
            ..Prior::default()
        };
        match std::fs::symlink_metadata(out) {
            Ok(meta) if meta.is_dir() => prior.exists = true,
            Ok(_) => {
                return Err(Error::one(
                    Diagnostic::new(out, "the output path exists and is not a folder")
                        .hint("remove it or choose another --output"),
                ));
            }
            Err(_) => return Ok(prior),
        }
        let kept_file = record_file.with_file_name(listings::OUTPUT_FILE);
        let kept_bytes = std::fs::read(&kept_file).unwrap_or_default();
        let out_name = listings::root_name(out);
        let kept = listings::Kept::parse(&kept_bytes, &out_name);
        let how = Scan {
            out,
            kept: &kept,
            settled: listings::settled_now(),
        };
        let mut found = Found::default();
        let root_stamp = listings::root_stamp(out);
        let root = Folder::open(out).map_err(|e| Error::io(out, e))?;
        let below = Below::root(&root);
        super::in_io_pool(|| scan(&how, "", root_stamp, below, &mut prior, &mut found))?;
        if listings::worth_saving(found.listed, found.listings.len()) {
            // A cache: one that cannot be saved only means the next scan lists every folder.
            let _ =
                super::save_atomically(&kept_file, &listings::encode(&out_name, &found.listings));
        }
        let has_index = prior.files.contains_key("index.html");
        let empty = prior.files.is_empty() && prior.dirs.is_empty();
        if !(has_index || empty) {
            return Err(Error::one(
                Diagnostic::new(
                    out,
                    "the output folder exists and does not look like a casebook build (no index.html)",
                )
                .hint("casebook replaces the whole output folder: remove it or choose another --output"),
            ));
        }
        let record = std::fs::read(record_file)
            .ok()
            .and_then(|bytes| parse(&bytes))
            .filter(|(recorded_out, _)| *recorded_out == out_name);
        if let Some((_, entries)) = record {
            prior.trusted = entries
                .into_iter()
                .filter(|(path, entry)| prior.files.get(path) == Some(&entry.stamp))
                .collect();
        }
        Ok(prior)
    }

    /// The page at `path` as the last build published it, if its fingerprint is the same
    /// and its file is untouched: it need not be rendered again.
    pub(crate) fn published(&self, path: &str, fingerprint: Fingerprint) -> Option<Output> {
        let entry = self.trusted.get(path)?;
        (entry.fingerprint == fingerprint && fingerprint != 0).then(|| Output {
            path: path.to_string(),
            data: Data::Published {
                file: self.out.join(path),
                sha256: crate::hashing::hex(&entry.sha256),
                size: entry.stamp.size,
            },
        })
    }
}

/// How the output folder is scanned: the folder, the listings kept of its folders, and
/// when a change is settled enough for a folder's listing to be kept.
struct Scan<'a> {
    out: &'a Path,
    kept: &'a listings::Kept<'a>,
    settled: Option<std::time::Duration>,
}

/// The listings to keep, and how many of them were listed anew.
#[derive(Default)]
struct Found {
    listings: Vec<listings::Listing>,
    listed: usize,
}

/// One folder's entries: its files with their stamps, its subfolders with theirs, and
/// every name in it.
#[derive(Default)]
struct Listed {
    files: Vec<(String, Stamp)>,
    subdirs: Vec<(String, Option<listings::DirStamp>)>,
    names: Vec<String>,
}

/// Lists `out/rel` (whose stamp is `stamp`, if known) into `prior`, its subfolders in
/// parallel; a folder whose stamp is the one kept with its listing is not listed again.
fn scan(
    how: &Scan,
    rel: &str,
    stamp: Option<listings::DirStamp>,
    below: Below,
    prior: &mut Prior,
    found: &mut Found,
) -> Result<()> {
    let kept = stamp.as_ref().and_then(|s| how.kept.names(rel, s));
    // A wide folder's entries are stated from the folder itself; those of the folders in
    // it from it too.
    let wide = kept
        .as_ref()
        .filter(|names| names.len() >= listings::PARALLEL_STATS)
        .and_then(|_| Folder::open(&how.out.join(rel)).ok());
    let below = wide.as_ref().map_or(below, |folder| Below::at(folder, rel));
    let from_kept = kept.and_then(|names| kept_entries(below, rel, &names));
    let listed_anew = from_kept.is_none();
    let entries = match from_kept {
        Some(entries) => entries,
        None => list(how.out, rel, prior)?,
    };
    let Listed {
        files,
        subdirs,
        names,
    } = entries;
    prior.files.extend(files);
    let complete = !prior
        .strays
        .iter()
        .any(|p| p.parent() == Some(Path::new(rel)));
    if let (Some(stamp), Some(settled), true) = (stamp, how.settled, complete) {
        if listings::change_time(&stamp) < settled {
            found.listings.push((rel.to_string(), stamp, names));
            found.listed += usize::from(listed_anew);
        }
    }
    let below: Vec<(Prior, Found)> = subdirs
        .par_iter()
        .map(|(sub, stamp)| {
            let mut part = (Prior::default(), Found::default());
            scan(how, sub, *stamp, below, &mut part.0, &mut part.1).map(|()| part)
        })
        .collect::<Result<_>>()?;
    prior.dirs.extend(subdirs.into_iter().map(|(sub, _)| sub));
    for (part, part_found) in below {
        prior.files.extend(part.files);
        prior.dirs.extend(part.dirs);
        prior.strays.extend(part.strays);
        found.listings.extend(part_found.listings);
        found.listed += part_found.listed;
    }
    Ok(())
}

/// The entries of `out/rel` as its kept listing names them, each looked at again; `None`
/// if one is gone (the folder is then listed).
fn kept_entries(below: Below, rel: &str, names: &[&str]) -> Option<Listed> {
    let metas = listings::look_at_each(names, |name| below.stat(&join(rel, name)).ok())?;
    let mut entries = Listed::default();
    for (name, meta) in names.iter().zip(metas) {
        let path = join(rel, name);
        if meta.is_dir() {
            entries
                .subdirs
                .push((path, Some(listings::full_stamp(&meta))));
        } else {
            entries.files.push((path, Stamp::of_stat(&meta)));
        }
        entries.names.push(name.to_string());
    }
    Some(entries)
}

/// The entries of `out/rel` as the folder lists them; names that are not UTF-8 go to
/// `prior.strays`.
fn list(out: &Path, rel: &str, prior: &mut Prior) -> Result<Listed> {
    let dir = out.join(rel);
    let mut entries = Listed::default();
    for entry in std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))? {
        let entry = entry.map_err(|e| Error::io(&dir, e))?;
        let Ok(name) = entry.file_name().into_string() else {
            prior.strays.push(Path::new(rel).join(entry.file_name()));
            continue;
        };
        let path = join(rel, &name);
        let kind = entry.file_type().map_err(|e| Error::io(&entry.path(), e))?;
        if kind.is_dir() {
            // The folder's own stamp, so that its listing can be kept (below).
            let stamp = (entry.metadata().ok()).map(|m| listings::full_stamp(&EntryStat::from(&m)));
            entries.subdirs.push((path, stamp));
        } else {
            let meta = entry.metadata().map_err(|e| Error::io(&entry.path(), e))?;
            entries.files.push((path, Stamp::of(&meta)));
        }
        entries.names.push(name);
    }
    Ok(entries)
}

fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_string()
    } else {
        format!("{rel}/{name}")
    }
}

/// Saves the record of what is now in `out`. A cache: a build that cannot save it is only
/// slower next time.
pub(crate) fn save(record_file: &Path, out: &Path, entries: &[(&str, Entry)]) {
    let mut w = Writer::new(MAGIC);
    w.bytes(listings::root_name(out).as_bytes());
    for (path, entry) in entries {
        w.bytes(path.as_bytes());
        w.raw(&entry.sha256);
        w.u64(entry.stamp.size);
        w.i64(entry.stamp.secs);
        w.u32(entry.stamp.nanos);
        w.u128(entry.fingerprint);
    }
    let _ = super::save_atomically(record_file, &w.finish());
}

/// Forgets the record, before the output folder changes: if the change is stopped
/// half-way, no entry can vouch for a file it no longer describes.
pub(crate) fn forget(record_file: &Path) {
    let _ = std::fs::remove_file(record_file);
}

/// Where the record waits while an update runs (see `set_aside`).
fn aside(record_file: &Path) -> PathBuf {
    record_file.with_extension("rollback")
}

/// Moves the record aside before an in-place update changes the output: no entry may
/// vouch for a file the update may have replaced. An update that is undone puts it back.
pub(crate) fn set_aside(record_file: &Path) {
    let _ = std::fs::rename(record_file, aside(record_file));
}

/// The update was undone: the record set aside describes the output again.
pub(crate) fn put_back(record_file: &Path) {
    let _ = std::fs::rename(aside(record_file), record_file);
}

/// The update was completed: the record set aside is out of date.
pub(crate) fn drop_aside(record_file: &Path) {
    let _ = std::fs::remove_file(aside(record_file));
}

type Entries = PathMap<Entry>;

fn parse(bytes: &[u8]) -> Option<(String, Entries)> {
    let mut r = Reader::open(bytes, MAGIC)?;
    let out = r.string()?;
    let mut entries = Entries::default();
    while !r.is_empty() {
        let path = r.string()?;
        let sha256: [u8; 32] = r.raw(32)?.try_into().ok()?;
        let stamp = Stamp {
            size: r.u64()?,
            secs: r.i64()?,
            nanos: r.u32()?,
        };
        let fingerprint = r.u128()?;
        entries.insert(
            path,
            Entry {
                sha256,
                stamp,
                fingerprint,
            },
        );
    }
    Some((out, entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_trusted_only_for_untouched_files_of_its_own_folder() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let record = dir.path().join("cache").join(FILE);
        std::fs::create_dir_all(out.join("a")).unwrap();
        std::fs::write(out.join("index.html"), "home").unwrap();
        std::fs::write(out.join("a/index.html"), "page a").unwrap();
        let stamp = |p: &str| Stamp::of(&std::fs::metadata(out.join(p)).unwrap());
        let entry = |p: &str, fingerprint| Entry {
            sha256: [7; 32],
            stamp: stamp(p),
            fingerprint,
        };
        save(
            &record,
            &out,
            &[
                ("a/index.html", entry("a/index.html", 5)),
                ("index.html", entry("index.html", 0)),
            ],
        );
        let prior = Prior::load(&out, &record).unwrap();
        assert!(prior.exists && prior.dirs.contains("a"));
        assert_eq!(prior.trusted.len(), 2);
        assert!(prior.published("a/index.html", 5).is_some());
        assert!(
            prior.published("a/index.html", 6).is_none(),
            "another fingerprint"
        );
        assert!(prior.published("index.html", 0).is_none(), "not a page");
        // A file changed behind the build's back is not trusted.
        std::fs::write(out.join("a/index.html"), "page a, edited").unwrap();
        let prior = Prior::load(&out, &record).unwrap();
        assert_eq!(prior.trusted.keys().collect::<Vec<_>>(), ["index.html"]);
        // Nor is a damaged record, or one made for another folder.
        let mut bytes = std::fs::read(&record).unwrap();
        bytes[30] ^= 1;
        std::fs::write(&record, &bytes).unwrap();
        assert!(Prior::load(&out, &record).unwrap().trusted.is_empty());
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::copy(out.join("index.html"), elsewhere.join("index.html")).unwrap();
        save(&record, &out, &[("index.html", entry("index.html", 0))]);
        assert!(Prior::load(&elsewhere, &record).unwrap().trusted.is_empty());
    }

    /// `out` as a scan with the folder listings `kept` finds it, every change settled (the
    /// tests' folders are made a moment ago).
    fn scanned_with(out: &Path, kept: &[u8]) -> (Prior, Found) {
        let kept = listings::Kept::parse(kept, &listings::root_name(out));
        let how = Scan {
            out,
            kept: &kept,
            settled: Some(std::time::Duration::MAX),
        };
        let (mut prior, mut found) = (Prior::default(), Found::default());
        let root = Folder::open(out).unwrap();
        let below = Below::root(&root);
        scan(
            &how,
            "",
            listings::root_stamp(out),
            below,
            &mut prior,
            &mut found,
        )
        .unwrap();
        (prior, found)
    }

    #[test]
    fn a_folder_too_wide_to_stat_one_by_one_is_scanned_whole_listed_or_kept() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let wide = listings::PARALLEL_STATS + 44;
        let mut expected = Vec::new();
        for i in 0..wide {
            let case = out.join(format!("cases/c{i:04}"));
            std::fs::create_dir_all(&case).unwrap();
            std::fs::write(case.join("index.html"), "x").unwrap();
            expected.push(format!("cases/c{i:04}/index.html"));
        }
        std::fs::write(out.join("cases/index.html"), "x").unwrap();
        expected.push("cases/index.html".into());
        expected.sort();
        let files = |prior: &Prior| {
            let mut files: Vec<String> = prior.files.keys().cloned().collect();
            files.sort();
            files
        };
        let (prior, found) = scanned_with(&out, &[]);
        assert_eq!(files(&prior), expected);
        assert_eq!(prior.dirs.len(), wide + 1);
        let kept = listings::encode(&listings::root_name(&out), &found.listings);
        let (again, found) = scanned_with(&out, &kept);
        assert_eq!((files(&again), found.listed), (expected, 0));
    }

    #[test]
    fn a_folder_whose_kept_listing_still_holds_is_not_listed_again() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        std::fs::create_dir_all(out.join("a")).unwrap();
        std::fs::create_dir_all(out.join("b/c")).unwrap();
        for file in ["index.html", "a/index.html", "b/c/x.html"] {
            std::fs::write(out.join(file), file).unwrap();
        }
        let name = listings::root_name(&out);
        let scanned = |kept: &[u8]| {
            let (prior, found) = scanned_with(&out, kept);
            let mut files: Vec<String> = prior.files.keys().cloned().collect();
            files.sort();
            let mut dirs: Vec<String> = prior.dirs.iter().cloned().collect();
            dirs.sort();
            (files, dirs, found)
        };
        let (files, dirs, found) = scanned(&[]);
        assert_eq!(files, ["a/index.html", "b/c/x.html", "index.html"]);
        assert_eq!(dirs, ["a", "b", "b/c"]);
        assert_eq!(found.listed, 4);
        let kept = listings::encode(&name, &found.listings);
        let (again, again_dirs, found) = scanned(&kept);
        assert_eq!((again, again_dirs, found.listed), (files.clone(), dirs, 0));
        // A kept listing stands for its folder while the stamp holds: one that leaves a file
        // out (which no real change can make) is what the scan goes by.
        let stamp = |rel: &str| listings::root_stamp(&out.join(rel)).unwrap();
        let forged = |a: Vec<String>| {
            let mut listings = found.listings.clone();
            listings.retain(|(rel, _, _)| rel != "a");
            listings.push(("a".into(), stamp("a"), a));
            listings::encode(&name, &listings)
        };
        let (left_out, _, _) = scanned(&forged(Vec::new()));
        assert_eq!(left_out, ["b/c/x.html", "index.html"]);
        // A kept name that is gone: the folder is listed.
        let (relisted, _, found_again) = scanned(&forged(vec!["gone.html".into()]));
        assert_eq!((relisted, found_again.listed), (files, 1));
        // A file added: its folder's stamp changed, so it is listed again.
        std::fs::write(out.join("a/new.html"), "new").unwrap();
        let (added, _, found) = scanned(&kept);
        assert!(added.contains(&"a/new.html".to_string()));
        assert_eq!(found.listed, 1, "that folder alone");
    }

    #[test]
    fn a_folder_holding_a_name_that_is_not_utf8_is_listed_every_time() {
        use std::os::unix::ffi::OsStrExt as _;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        std::fs::create_dir_all(out.join("a")).unwrap();
        std::fs::write(out.join("index.html"), "home").unwrap();
        let stray = std::ffi::OsStr::from_bytes(b"bad-\xff.html");
        if std::fs::write(out.join("a").join(stray), "x").is_err() {
            return; // a file system that refuses such names cannot hold one
        }
        let name = listings::root_name(&out);
        let scanned = |kept: &[u8]| {
            let (prior, found) = scanned_with(&out, kept);
            (prior.strays, found)
        };
        let (strays, found) = scanned(&[]);
        assert_eq!(strays, [Path::new("a").join(stray)]);
        // The folder with the stray is not kept: a kept listing would leave the stray out.
        assert!(found.listings.iter().all(|(rel, _, _)| rel != "a"));
        let kept = listings::encode(&name, &found.listings);
        let (strays, _) = scanned(&kept);
        assert_eq!(strays, [Path::new("a").join(stray)]);
    }

    #[test]
    fn a_folder_that_is_not_a_build_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "keep me").unwrap();
        let record = dir.path().join(FILE);
        assert!(Prior::load(dir.path(), &record).is_err());
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        assert!(Prior::load(&empty, &record).unwrap().exists);
    }
}
