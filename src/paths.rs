//! Paths as the file system sees them, for the guards that keep a build's output, its
//! cache and its sources apart. Comparing the text of two paths is not enough: a symbolic
//! link in a parent folder, `..` or a relative path can make different texts name one
//! folder.

use std::path::{Component, Path, PathBuf};

/// `path` made absolute, with every symbolic link and `..` resolved, even where its last
/// parts do not exist yet (an output folder before its first build).
pub(crate) fn resolved(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    // Below a missing part nothing can be a link: that part is taken as plain text.
    let mut exists = true;
    for part in abs.components() {
        match part {
            Component::Prefix(_) | Component::RootDir => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                // The parent of a resolved folder is resolved; of a missing one, plain text.
                out.pop();
                exists = out.exists();
            }
            Component::Normal(name) => {
                out.push(name);
                if exists {
                    match std::fs::canonicalize(&out) {
                        Ok(real) => out = real,
                        Err(_) => exists = false,
                    }
                }
            }
        }
    }
    out
}

/// Whether `inner` is `outer` or below it; both already `resolved`.
pub(crate) fn is_within(inner: &Path, outer: &Path) -> bool {
    inner.starts_with(outer)
}

/// A copy of the test fixture `tests/fixtures/NAME` (a build keeps its caches in the site
/// folder), in a temporary folder that lasts as long as the first value.
#[cfg(test)]
pub(crate) fn fixture_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let dir = tempfile::tempdir().unwrap();
    // Not the temporary folder itself: its name starts with a dot, and hidden names are
    // skipped.
    let root = dir.path().join("site");
    for entry in walkdir::WalkDir::new(&from) {
        let entry = entry.unwrap();
        let to = root.join(entry.path().strip_prefix(&from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    (dir, root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_dots_resolve_to_the_folder_they_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("site/content")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("site/content"), root.join("link")).unwrap();
        #[cfg(unix)]
        assert_eq!(
            resolved(&root.join("link/public")),
            root.join("site/content/public")
        );
        assert_eq!(
            resolved(&root.join("site/new/../content/./x/y")),
            root.join("site/content/x/y")
        );
        assert_eq!(resolved(&root.join("missing/../site")), root.join("site"));
        assert!(is_within(&root.join("site/content/x"), &root.join("site")));
        assert!(!is_within(&root.join("site2"), &root.join("site")));
    }
}
