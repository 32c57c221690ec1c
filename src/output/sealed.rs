//! Small records a build keeps in the cache folder for the next build of the same output
//! folder, sealed with that folder's key (`seal.rs`): a record that came with the site, or
//! was made for another output folder, is never read.

use std::path::Path;

use super::beside::Beside;

/// Keeps `body` in `file` for the next build into `out`. A cache: a record that cannot be
/// kept only means the next build does that work again. The seal is written after the
/// body rather than joined to a copy of it: the search caches are megabytes.
pub(crate) fn save(file: &Path, out: &Path, body: &[u8]) {
    let Some(key) = Beside::of(out).key(out) else {
        return;
    };
    if super::save_atomically_in_parts(file, &[body, &key.seal(body)]).is_err() {
        let _ = std::fs::remove_file(file);
    }
}

/// What a build into `out` kept in `file`, if this machine sealed it for that folder.
pub(crate) fn load(file: &Path, out: &Path) -> Option<Vec<u8>> {
    let mut sealed = std::fs::read(file).ok()?;
    let key = Beside::of(out).key(out)?;
    let body = key.open(&sealed)?.len();
    sealed.truncate(body);
    Some(sealed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_read_back_only_for_its_own_output_folder() {
        let dir = tempfile::tempdir().unwrap();
        let (out, other) = (dir.path().join("public"), dir.path().join("elsewhere"));
        std::fs::create_dir_all(&out).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        let file = dir.path().join("record.bin");
        save(&file, &out, b"what was kept");
        assert_eq!(load(&file, &out).as_deref(), Some(&b"what was kept"[..]));
        assert_eq!(load(&file, &other), None);
        // Changed, or brought in from elsewhere: not read.
        let mut bytes = std::fs::read(&file).unwrap();
        bytes[0] ^= 1;
        std::fs::write(&file, bytes).unwrap();
        assert_eq!(load(&file, &out), None);
    }
}
