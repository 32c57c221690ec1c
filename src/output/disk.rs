//! Small file-system steps every writer of the output shares: the folders a set of paths
//! needs, creating one folder, writing one new file.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::Path;

use super::PathSet;
use super::record::Stamp;
use crate::error::{Error, Result};
use crate::fault;

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

/// Creates one folder, whose parent exists; one already there is fine.
pub(super) fn create_folder(path: &Path) -> Result<()> {
    match fault::point("create a folder").and_then(|()| std::fs::create_dir(path)) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(Error::io(path, e)),
        _ => Ok(()),
    }
}

/// Writes `bytes` to a new file at `target` and returns its stamp.
pub(super) fn write_file(target: &Path, bytes: &[u8]) -> Result<Stamp> {
    let mut f = fault::point("create a file")
        .and_then(|()| std::fs::File::create(target))
        .map_err(|e| Error::io(target, e))?;
    fault::point("write a file")
        .and_then(|()| f.write_all(bytes))
        .map_err(|e| Error::io(target, e))?;
    f.metadata()
        .map(|m| Stamp::of(&m))
        .map_err(|e| Error::io(target, e))
}
