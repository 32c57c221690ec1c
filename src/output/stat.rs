//! An entry's stat fields, from a stat relative to an open folder. The sources' walk and
//! the output's scan state about 57,000 entries at archive scale, and a stat by full path
//! resolves every folder of the path again: half of those stats' system time was spent
//! there (a profile of a one-case edit at 11,000 cases).

use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

/// What a walk uses of an entry's stat: its kind, identity, size and times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryStat {
    pub(crate) kind: Kind,
    pub(crate) dev: u64,
    pub(crate) ino: u64,
    pub(crate) size: u64,
    pub(crate) mtime: i64,
    pub(crate) mtime_nsec: i64,
    pub(crate) ctime: i64,
    pub(crate) ctime_nsec: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

impl EntryStat {
    pub(crate) fn is_dir(&self) -> bool {
        self.kind == Kind::Dir
    }

    pub(crate) fn is_file(&self) -> bool {
        self.kind == Kind::File
    }

    pub(crate) fn is_symlink(&self) -> bool {
        self.kind == Kind::Symlink
    }
}

impl From<&std::fs::Metadata> for EntryStat {
    fn from(meta: &std::fs::Metadata) -> EntryStat {
        let kind = meta.file_type();
        EntryStat {
            kind: if kind.is_symlink() {
                Kind::Symlink
            } else if kind.is_dir() {
                Kind::Dir
            } else if kind.is_file() {
                Kind::File
            } else {
                Kind::Other
            },
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: meta.mtime(),
            mtime_nsec: meta.mtime_nsec(),
            ctime: meta.ctime(),
            ctime_nsec: meta.ctime_nsec(),
        }
    }
}

/// A folder held open, to state entries below it by their path from it.
pub(crate) struct Folder(OwnedFd);

impl Folder {
    /// The folder `path`; not a link to one.
    pub(crate) fn open(path: &Path) -> std::io::Result<Folder> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        Ok(Folder(rustix::fs::open(path, flags, Mode::empty())?))
    }

    /// The entry at `rel` below this folder, not following a link (as `symlink_metadata`).
    pub(crate) fn stat(&self, rel: &str) -> std::io::Result<EntryStat> {
        let st = rustix::fs::statat(&self.0, rel, AtFlags::SYMLINK_NOFOLLOW)?;
        let kind = match FileType::from_raw_mode(st.st_mode as _) {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            _ => Kind::Other,
        };
        // The fields' widths differ between targets; on this one they are those of `libc`.
        #[allow(clippy::unnecessary_cast)]
        Ok(EntryStat {
            kind,
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            size: st.st_size as u64,
            mtime: st.st_mtime as i64,
            mtime_nsec: st.st_mtime_nsec as i64,
            ctime: st.st_ctime as i64,
            ctime_nsec: st.st_ctime_nsec as i64,
        })
    }
}

/// Where a walk states the entries of a folder from: the nearest folder above it (or the
/// folder itself) held open, and that folder's path below the walk's root.
#[derive(Clone, Copy)]
pub(crate) struct Below<'f> {
    folder: &'f Folder,
    rel: &'f str,
}

impl<'f> Below<'f> {
    /// The walk's root folder.
    pub(crate) fn root(folder: &'f Folder) -> Below<'f> {
        Below { folder, rel: "" }
    }

    /// The folder `rel`, held open as `folder`: its entries (the many of a wide folder) are
    /// stated from it by their names alone, and the entries of its subfolders by two parts.
    pub(crate) fn at(folder: &'f Folder, rel: &'f str) -> Below<'f> {
        Below { folder, rel }
    }

    /// The entry at `path` (below the walk's root), not following a link.
    pub(crate) fn stat(&self, path: &str) -> std::io::Result<EntryStat> {
        let from = match self.rel {
            "" => Some(path),
            rel => path.strip_prefix(rel).and_then(|p| p.strip_prefix('/')),
        };
        let from = from.ok_or_else(|| std::io::Error::other("an entry outside its folder"))?;
        self.folder.stat(from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_from_an_open_folder_is_the_stat_by_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/file.md"), "text").unwrap();
        std::os::unix::fs::symlink("b", root.join("a/link")).unwrap();
        let folder = Folder::open(root).unwrap();
        for rel in ["a", "a/b", "a/b/file.md", "a/link"] {
            let by_path = EntryStat::from(&std::fs::symlink_metadata(root.join(rel)).unwrap());
            assert_eq!(folder.stat(rel).unwrap(), by_path, "{rel}");
        }
        let kinds = ["a", "a/b/file.md", "a/link"].map(|rel| folder.stat(rel).unwrap().kind);
        assert_eq!(kinds, [Kind::Dir, Kind::File, Kind::Symlink]);
        assert!(folder.stat("a/missing").is_err());
        // A link is never opened as the folder to walk.
        assert!(Folder::open(&root.join("a/link")).is_err());
        let a = Folder::open(&root.join("a")).unwrap();
        let below = Below::at(&a, "a");
        assert_eq!(
            below.stat("a/b/file.md").unwrap(),
            folder.stat("a/b/file.md").unwrap()
        );
        assert!(below.stat("ab/file.md").is_err() && below.stat("b/file.md").is_err());
        assert_eq!(Below::root(&folder).stat("a/b").unwrap().kind, Kind::Dir);
    }
}
