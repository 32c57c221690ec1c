//! Folder listings kept between walks of a site's sources (`listings.bin` in the cache
//! folder), so that a folder whose stamp has not changed is not listed again: its entries
//! are the recorded names, each still looked at (a stat) by the walk.
//!
//! Adding, removing or renaming an entry changes its folder's modification and change times.
//! A listing is kept only when its folder's change is older than the walk's settling time,
//! so a change in the same clock tick cannot hide behind it (as for `up_to_date`). A
//! folder copied, restored or unpacked has another inode and change time, which no program
//! can set, so listings that came with a site never match its folders. A name that is
//! recorded and gone stops the walk (`None`), which then records nothing.

use std::path::Path;

use super::stat::EntryStat;

use crate::cache_file::{Reader, Writer};

/// Entries of one folder from which they are looked at (stat) in parallel: an archive's
/// case folders sit side by side, 11,000 in one folder, and stating them one by one left a
/// core idle for the first tens of milliseconds of every build.
pub(super) const PARALLEL_STATS: usize = 256;

/// `look` at each of a folder's `entries`, in order, on every core once there are
/// `PARALLEL_STATS` of them; `None` if any look fails.
pub(super) fn look_at_each<T: Sync, R: Send>(
    entries: &[T],
    look: impl Fn(&T) -> Option<R> + Sync + Send,
) -> Option<Vec<R>> {
    use rayon::prelude::*;
    if entries.len() < PARALLEL_STATS {
        entries.iter().map(look).collect()
    } else {
        entries.par_iter().map(look).collect()
    }
}

/// The listings of the sources' folders, in the cache folder.
pub(crate) const FILE: &str = "listings.bin";

/// The listings of the output's folders, in the cache folder.
pub(crate) const OUTPUT_FILE: &str = "output-listings.bin";

/// How long ago an entry's last change must be for it to be recorded or kept: file times
/// tick coarsely (every 2 s on FAT drives, where a change is dated to the even second
/// before it), and a change in the same tick as the one recorded would look like none.
pub(crate) const SETTLED: std::time::Duration = std::time::Duration::from_secs(2);

const MAGIC: &[u8] = b"casebook-listings-1\n";

/// Whether listings are worth writing again when `listed` of the `kept` folders were
/// listed anew: a few folders listed each time cost less than rewriting megabytes of
/// listings after every edit (the folders a build writes into change every time).
pub(crate) fn worth_saving(listed: usize, kept: usize) -> bool {
    listed * 32 > kept
}

/// A folder's stat fields (see `up_to_date::full_stamp`).
pub(crate) type DirStamp = [u8; 56];

/// One folder as a walk listed it: its path below the walk's root, its stamp, and its
/// entries' names.
pub(crate) type Listing = (String, DirStamp, Vec<String>);

/// The listings a walk kept, by folder (`""` for the root).
#[derive(Default)]
pub(crate) struct Kept<'a> {
    dirs: crate::cache_file::StampedEntries<'a>,
}

impl<'a> Kept<'a> {
    /// The listings in `bytes` if they are whole and were made for `root`; else none.
    pub(crate) fn parse(bytes: &'a [u8], root: &str) -> Kept<'a> {
        Self::read(bytes, root).unwrap_or_default()
    }

    fn read(bytes: &'a [u8], root: &str) -> Option<Kept<'a>> {
        let mut r = Reader::open(bytes, MAGIC)?;
        if r.bytes()? != root.as_bytes() {
            return None;
        }
        let dirs = r.stamped_entries(std::mem::size_of::<DirStamp>())?;
        Some(Kept { dirs })
    }

    /// The names in the folder `rel` if its stamp is still `stamp`.
    pub(crate) fn names(&self, rel: &str, stamp: &DirStamp) -> Option<Vec<&'a str>> {
        let (kept, names) = self.dirs.get(rel)?;
        if *kept != stamp.as_slice() {
            return None;
        }
        let names: Vec<&str> = (std::str::from_utf8(names).ok()?.split('\0'))
            .filter(|n| !n.is_empty())
            .collect();
        // Only names a folder can hold: nothing that leads elsewhere.
        let plain = |n: &&str| !n.contains('/') && *n != "." && *n != "..";
        names.iter().all(plain).then_some(names)
    }
}

/// Every stat field that changes with an entry's content or identity.
pub(crate) fn full_stamp(meta: &EntryStat) -> [u8; 56] {
    let mut stamp = [0u8; 56];
    for (i, n) in [
        meta.dev,
        meta.ino,
        meta.size,
        meta.mtime as u64,
        meta.mtime_nsec as u64,
        meta.ctime as u64,
        meta.ctime_nsec as u64,
    ]
    .into_iter()
    .enumerate()
    {
        stamp[i * 8..i * 8 + 8].copy_from_slice(&n.to_le_bytes());
    }
    stamp
}

/// When the entry with stamp `stamp` (see `full_stamp`) last changed.
pub(crate) fn change_time(stamp: &[u8; 56]) -> std::time::Duration {
    let word = |i: usize| u64::from_le_bytes(stamp[i * 8..i * 8 + 8].try_into().expect("8"));
    std::time::Duration::new(word(5), word(6) as u32)
}

/// Changes before the time this returns are settled (`SETTLED` before now).
pub(crate) fn settled_now() -> Option<std::time::Duration> {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .checked_sub(SETTLED)
}

/// How a cache names the folder it was made for (listings, and the record of what was
/// published): as the file system resolves it, so that another folder never matches.
pub(crate) fn root_name(root: &Path) -> String {
    std::fs::canonicalize(root)
        .unwrap_or_else(|_| root.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// The stamp of the folder `root` itself.
pub(crate) fn root_stamp(root: &Path) -> Option<[u8; 56]> {
    std::fs::symlink_metadata(root)
        .ok()
        .map(|m| full_stamp(&EntryStat::from(&m)))
}

/// The file that keeps `listings` of the folders below `root`.
pub(crate) fn encode(root: &str, listings: &[Listing]) -> Vec<u8> {
    let mut w = Writer::new(MAGIC);
    w.bytes(root.as_bytes());
    w.u64(listings.len() as u64);
    for (rel, stamp, names) in listings {
        w.stamped_entry(rel, stamp, names.join("\0").as_bytes());
    }
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_is_given_back_only_for_its_stamp_and_root() {
        let listings = vec![
            (
                String::new(),
                [1u8; 56],
                vec!["a".to_string(), "b c".to_string()],
            ),
            ("a".to_string(), [2u8; 56], Vec::new()),
        ];
        let bytes = encode("/site", &listings);
        let kept = Kept::parse(&bytes, "/site");
        assert_eq!(kept.names("", &[1u8; 56]), Some(vec!["a", "b c"]));
        assert_eq!(kept.names("a", &[2u8; 56]), Some(Vec::new()));
        assert_eq!(kept.names("a", &[3u8; 56]), None);
        assert_eq!(kept.names("b", &[2u8; 56]), None);
        assert_eq!(Kept::parse(&bytes, "/other").names("", &[1u8; 56]), None);
        let mut damaged = bytes.clone();
        damaged[30] ^= 1;
        assert_eq!(Kept::parse(&damaged, "/site").names("", &[1u8; 56]), None);
        // A whole file that claims more entries than any memory holds: a hint, not obeyed.
        let mut w = Writer::new(MAGIC);
        w.bytes(b"/site");
        w.u64(u64::MAX);
        assert_eq!(Kept::parse(&w.finish(), "/site").dirs.len(), 0);
        // A name that leads elsewhere: the folder is listed instead.
        let odd = encode("/site", &[(String::new(), [1u8; 56], vec!["..".into()])]);
        assert_eq!(Kept::parse(&odd, "/site").names("", &[1u8; 56]), None);
    }
}
