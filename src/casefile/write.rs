//! Saving an edited case file: only over the bytes the editor read, and atomically.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Why a save did not happen.
#[derive(Debug)]
pub(crate) enum WriteError {
    /// The file changed since it was read: `current` is what it holds now (lossily decoded
    /// if it is not UTF-8), so the editor can show the difference. Nothing was written.
    Conflict { current: String },
    /// Reading, writing or renaming failed; the file is as it was.
    Io(std::io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Conflict { .. } => {
                f.write_str("the file changed on disk since it was opened; nothing was written")
            }
            WriteError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Writes `text` to `path` atomically (a temporary file beside it, then a rename), only if
/// the file's bytes still hash to `expected_sha256` (hex); else `Conflict` with what it
/// holds now, and nothing is written. The file's permissions are kept.
///
/// The file is hashed twice: before the temporary file is written and again just before
/// the rename, so a change made while the new text was being written is not overwritten
/// either. (A change in the microseconds between the last read and the rename still can
/// be: no portable file system offers a compare-and-swap rename.)
pub(crate) fn write_if_unchanged(
    path: &Path,
    expected_sha256: &str,
    text: &str,
) -> Result<(), WriteError> {
    let unchanged = || -> Result<std::fs::Metadata, WriteError> {
        let bytes = std::fs::read(path).map_err(WriteError::Io)?;
        if !crate::hashing::hex(&Sha256::digest(&bytes)).eq_ignore_ascii_case(expected_sha256) {
            return Err(WriteError::Conflict {
                current: String::from_utf8_lossy(&bytes).into_owned(),
            });
        }
        std::fs::metadata(path).map_err(WriteError::Io)
    };
    let meta = unchanged()?;
    let temp = temp_path(path);
    let written = (|| {
        let mut file = std::fs::File::create_new(&temp)?;
        file.write_all(text.as_bytes())?;
        file.set_permissions(meta.permissions())?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(WriteError::Io(e));
    }
    if let Err(e) = unchanged() {
        let _ = std::fs::remove_file(&temp);
        return Err(e);
    }
    if let Err(e) = std::fs::rename(&temp, path) {
        let _ = std::fs::remove_file(&temp);
        return Err(WriteError::Io(e));
    }
    // The rename is durable once the folder is.
    if let Some(dir) = path.parent().and_then(|d| std::fs::File::open(d).ok()) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// A hidden name beside `path`, unique to this process and save; not an image or `.md`
/// name, so a build that lists the folder meanwhile neither publishes nor parses it.
fn temp_path(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(
        ".{name}.casebook-save-{}-{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(text: &str) -> String {
        crate::hashing::hex(&Sha256::digest(text.as_bytes()))
    }

    #[test]
    fn writes_over_the_bytes_it_was_given_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.md");
        std::fs::write(&path, "+++\ntitle = \"A\"\n+++\n").unwrap();
        write_if_unchanged(&path, &sha("+++\ntitle = \"A\"\n+++\n"), "new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn refuses_a_file_changed_since_it_was_read_and_keeps_the_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.md");
        let read = "+++\ntitle = \"A\"\n+++\n";
        std::fs::write(&path, "+++\ntitle = \"B\"\n+++\n").unwrap();
        match write_if_unchanged(&path, &sha(read), "mine") {
            Err(WriteError::Conflict { current }) => {
                assert_eq!(current, "+++\ntitle = \"B\"\n+++\n")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "+++\ntitle = \"B\"\n+++\n"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // A file that is gone is an I/O error, not a new file.
        let gone = dir.path().join("gone.md");
        assert!(matches!(
            write_if_unchanged(&gone, &sha(read), "x"),
            Err(WriteError::Io(_))
        ));
        assert!(!gone.exists());
    }
}
