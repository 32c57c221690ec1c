//! Small records a build keeps in the cache folder for the next build of the same output
//! folder, sealed with that folder's key (`seal.rs`): a record that came with the site, or
//! was made for another output folder, is never read.

use std::path::{Path, PathBuf};

use super::beside::Beside;
use super::seal::Key;

/// Keeps `body` in `file` for the next build into `out`. A cache: a record that cannot be
/// kept only means the next build does that work again. The seal is written after the
/// body rather than joined to a copy of it: the search caches are megabytes.
pub(crate) fn save(file: &Path, out: &Path, body: &[u8]) {
    if let Some(key) = Beside::of(out).key(out) {
        save_sealed(&key, file, body);
    }
}

fn save_sealed(key: &Key, file: &Path, body: &[u8]) {
    if super::save_atomically_in_parts(file, &[body, &key.seal(body)]).is_err() {
        let _ = std::fs::remove_file(file);
    }
}

/// `save`, or, when `out` has no key yet (a first build, before its output folder is
/// made), `body` written unsealed to a draft beside `file`, to be sealed by
/// [`Unsealed::seal`] once the folder exists: without it a first build kept no search
/// terms, and the edit after it tokenized every document again (11,000 cases: twice the
/// time, and a peak 35 MB above the first build's).
pub(crate) fn save_or_defer(file: &Path, out: &Path, body: &[u8]) -> Option<Unsealed> {
    if let Some(key) = Beside::of(out).key(out) {
        save_sealed(&key, file, body);
        return None;
    }
    defer(file, body)
}

/// `save_or_defer` on a thread of its own, so that the build goes on while megabytes are
/// sealed and written (the search index, at every edit: about 15 ms on one core). Whether
/// `out` has a key is settled now, on the build's thread.
pub(crate) fn save_or_defer_aside(file: &Path, out: &Path, body: Vec<u8>) -> Saving {
    let key = Beside::of(out).key(out);
    let file = file.to_path_buf();
    Saving(Some(std::thread::spawn(move || match key {
        Some(key) => {
            save_sealed(&key, &file, &body);
            None
        }
        None => defer(&file, &body),
    })))
}

/// A cache being saved aside (`save_or_defer_aside`); waited for when finished or dropped,
/// so that no build ends with one half written.
#[derive(Debug)]
pub(crate) struct Saving(Option<std::thread::JoinHandle<Option<Unsealed>>>);

impl Saving {
    /// Waits for the save; the draft to seal once the output folder exists, if it was one.
    pub(crate) fn finish(mut self) -> Option<Unsealed> {
        let handle = self.0.take()?;
        handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}

impl Drop for Saving {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            let _ = handle.join();
        }
    }
}

/// `body` written unsealed to a draft beside `file`, with its hash held to seal it later.
fn defer(file: &Path, body: &[u8]) -> Option<Unsealed> {
    let draft = draft_of(file);
    super::save_atomically(&draft, body).ok()?;
    Some(Unsealed {
        file: file.to_path_buf(),
        draft,
        digest: *blake3::hash(body).as_bytes(),
    })
}

/// A cache body this build wrote before its output folder existed, and the hash of what it
/// wrote: only those bytes are ever sealed, so a draft that came with the site, or was
/// changed since, is never given a seal. The draft is removed when this is dropped, sealed
/// or not (a build that failed before writing its folder leaves none).
#[derive(Debug)]
pub(crate) struct Unsealed {
    file: PathBuf,
    draft: PathBuf,
    digest: [u8; 32],
}

impl Unsealed {
    /// Seals the draft into its file for the next build into `out`, now that `out`
    /// exists, if it is still what this build wrote; the draft goes either way.
    pub(crate) fn seal(self, out: &Path) {
        if let Ok(body) = std::fs::read(&self.draft) {
            if *blake3::hash(&body).as_bytes() == self.digest {
                save(&self.file, out, &body);
            }
        }
    }
}

impl Drop for Unsealed {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.draft);
    }
}

fn draft_of(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".unsealed");
    file.with_file_name(name)
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

    #[test]
    fn a_body_kept_before_its_output_folder_exists_is_sealed_once_it_does() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let (file, other) = (dir.path().join("terms.bin"), dir.path().join("search.bin"));
        let pending = save_or_defer(&file, &out, b"kept terms").expect("no folder yet");
        let changed = save_or_defer(&other, &out, b"an index").expect("no folder yet");
        assert!(!file.exists() && !other.exists());
        // A draft changed after this build wrote it (or one that came with the site, which
        // no build is holding a hash of) is never sealed.
        std::fs::write(draft_of(&other), b"a forged index").unwrap();
        std::fs::create_dir_all(&out).unwrap();
        pending.seal(&out);
        changed.seal(&out);
        assert_eq!(load(&file, &out).as_deref(), Some(&b"kept terms"[..]));
        assert_eq!(load(&other, &out), None);
        assert!(!draft_of(&file).exists() && !draft_of(&other).exists());
        // A build that fails before writing its folder leaves no draft.
        drop(save_or_defer(
            &file,
            &dir.path().join("never"),
            b"kept terms",
        ));
        assert!(!draft_of(&file).exists());
        // With the folder there, the body is sealed at once.
        assert!(save_or_defer(&other, &out, b"an index").is_none());
        assert_eq!(load(&other, &out).as_deref(), Some(&b"an index"[..]));
    }

    #[test]
    fn a_body_saved_aside_is_whole_once_finished_or_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        let file = dir.path().join("search.bin");
        let body = vec![7u8; 3 << 20];
        // No folder yet: a draft, sealed once the folder exists.
        let draft = save_or_defer_aside(&file, &out, body.clone()).finish();
        let draft = draft.expect("no folder yet");
        std::fs::create_dir_all(&out).unwrap();
        draft.seal(&out);
        assert_eq!(load(&file, &out), Some(body.clone()));
        // With the folder there: sealed by the thread; dropping the save waits for it.
        let other = dir.path().join("terms.bin");
        drop(save_or_defer_aside(&other, &out, body.clone()));
        assert_eq!(load(&other, &out), Some(body));
    }
}
