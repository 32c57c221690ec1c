//! A one-shot build's pages, written beside the output as they are rendered.
//!
//! Each page `casebook build` renders is handed to a pool of writer threads as soon as it
//! is finished, instead of being held until the write stage: at 11,000 cases that is 115 MB
//! of HTML less in memory, and the disk writes while the CPU renders.
//!
//! - A new output folder (the first build, or after the folder was removed) is written
//!   into its staging folder, each page at its path.
//! - An existing folder's changed pages go into the update's pending folder, each under a
//!   name of its own, for the journal to move into place (`write.rs`). A page the last
//!   build published exactly as it is now is not written at all; a page the folder holds
//!   without a record of it is kept in memory, for the write stage to compare.
//!
//! Nothing is published before the write stage, once the whole build succeeded: a failed
//! build publishes nothing, and a stage dropped before then removes its folder.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use sha2::{Digest, Sha256};

use super::IO_THREADS;
use super::beside::{Beside, new_staging, staging_dir};
use super::disk::{create_folder, folders_of, write_file};
use super::record::{Prior, Stamp};
use super::{Data, Output, PathMap, PathSet};
use crate::error::{Error, Result};

/// Pages waiting for a writer: enough to keep the writers busy, few enough that memory
/// stays bounded when the disk is slower than the renderer (the renderer then waits).
const QUEUE: usize = 64;

/// A page for a writer: its output path, its file in the stage's folder, its bytes.
type Page = (String, String, Vec<u8>);

/// Where a stage's pages go.
#[derive(Debug)]
enum Target {
    /// A new output folder: each page at its own path.
    NewFolder,
    /// An update of the folder `prior` describes: each changed page under the next name.
    Update {
        prior: Arc<Prior>,
        next: AtomicUsize,
    },
}

/// What one writer thread did.
#[derive(Debug, Default)]
struct Done {
    stamps: Vec<(String, Stamp)>,
    error: Option<Error>,
}

/// The writer pool of a new output folder's staging folder, or of an update's pending
/// folder.
#[derive(Debug)]
pub(crate) struct Stage {
    dir: PathBuf,
    target: Target,
    sender: Option<SyncSender<Page>>,
    writers: Vec<JoinHandle<Done>>,
    folders: Arc<Mutex<PathSet>>,
    finished: bool,
}

/// The pages a stage wrote, once its writers are done.
pub(crate) struct Staged {
    pub(super) dir: PathBuf,
    pub(super) stamps: PathMap<Stamp>,
    /// The folders made below `dir`.
    pub(super) folders: PathSet,
    /// Set once the write stage renamed `dir` into place, or handed an update's pending
    /// folder to its journal: `dir` is then not removed when this is dropped.
    pub(super) published: bool,
}

impl Staged {
    /// A staging folder into which nothing was staged.
    pub(super) fn nothing_in(dir: PathBuf) -> Staged {
        Staged {
            dir,
            stamps: PathMap::default(),
            folders: PathSet::default(),
            published: false,
        }
    }
}

impl Stage {
    /// Starts writing a new output folder `out` through its staging folder, removing what
    /// an interrupted build left there.
    pub(crate) fn open(out: &Path) -> Result<Stage> {
        Stage::start(staging_dir(out), Target::NewFolder)
    }

    /// Starts writing the pages that change in the existing output folder `prior`
    /// describes into its pending folder. Call `recover` first: a pending folder found
    /// here is one no journal was committed in, and is removed.
    pub(crate) fn update(prior: Arc<Prior>) -> Result<Stage> {
        let dir = Beside::of(&prior.out).pending;
        crate::fault::point("make the pending folder").map_err(|e| Error::io(&dir, e))?;
        let next = AtomicUsize::new(0);
        Stage::start(dir, Target::Update { prior, next })
    }

    fn start(dir: PathBuf, target: Target) -> Result<Stage> {
        new_staging(&dir)?;
        let (sender, receiver) = sync_channel::<Page>(QUEUE);
        let receiver = Arc::new(Mutex::new(receiver));
        let folders = Arc::new(Mutex::new(PathSet::default()));
        let writers = (0..IO_THREADS)
            .map(|_| {
                let (receiver, folders, dir) = (receiver.clone(), folders.clone(), dir.clone());
                std::thread::spawn(move || write_pages(&receiver, &folders, &dir))
            })
            .collect();
        Ok(Stage {
            dir,
            target,
            sender: Some(sender),
            writers,
            folders,
            finished: false,
        })
    }

    /// Hands a file's bytes (a page, a whole-site file) to the writers; the output then
    /// stands for the staged file (or, in an update, for the published one when that is
    /// the same). Other outputs are returned as they are.
    pub(crate) fn put(&self, output: Output) -> Output {
        let sender = self
            .sender
            .as_ref()
            .expect("taken only by `finish` and `drop`");
        let Output { path, data } = output;
        let Data::Bytes(bytes) = data else {
            return Output { path, data };
        };
        let (sha256, size) = (
            crate::hashing::hex(&Sha256::digest(&bytes)),
            bytes.len() as u64,
        );
        let file = match &self.target {
            Target::NewFolder => path.clone(),
            Target::Update { prior, .. } if prior.holds(&path, &sha256) => {
                let file = prior.out.join(&path);
                let data = Data::Published { file, sha256, size };
                return Output { path, data };
            }
            // There without a record (a deleted cache): the write stage compares.
            Target::Update { prior, .. }
                if !prior.trusted.contains_key(&path) && prior.files.contains_key(&path) =>
            {
                return Output::bytes(path, bytes);
            }
            // Recorded with other bytes, or not there: written, under a name that is not a
            // number (the write stage names the files it puts there by index).
            Target::Update { next, .. } => format!("p{}", next.fetch_add(1, Ordering::Relaxed)),
        };
        let data = Data::Staged {
            file: self.dir.join(&file),
            sha256,
            size,
        };
        // A writer that failed keeps taking (and dropping) pages; `finish` says so.
        let _ = sender.send((path.clone(), file, bytes));
        Output { path, data }
    }

    /// `output` through `stage`'s `put` when there is a stage, as it is when there is none.
    pub(crate) fn put_in(stage: Option<&Stage>, output: Output) -> Output {
        match stage {
            Some(stage) => stage.put(output),
            None => output,
        }
    }

    /// Waits for the writers; the first error any of them met fails the build.
    pub(crate) fn finish(mut self) -> Result<Staged> {
        let mut stamps = PathMap::default();
        for d in self.join() {
            let d = d.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            // Dropped unfinished: the folder is removed.
            if let Some(error) = d.error {
                return Err(error);
            }
            stamps.extend(d.stamps);
        }
        self.finished = true;
        let mut staged = Staged::nothing_in(std::mem::take(&mut self.dir));
        staged.stamps = stamps;
        staged.folders =
            std::mem::take(&mut *self.folders.lock().unwrap_or_else(|e| e.into_inner()));
        Ok(staged)
    }

    /// Closes the queue and waits for the writers to empty it.
    fn join(&mut self) -> Vec<std::thread::Result<Done>> {
        drop(self.sender.take());
        std::mem::take(&mut self.writers)
            .into_iter()
            .map(JoinHandle::join)
            .collect()
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        if !self.finished {
            self.join();
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        // A build that failed after its pages were staged publishes none of them.
        if !self.published {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// One writer: takes pages until the stage closes, making each one's folders first.
fn write_pages(receiver: &Mutex<Receiver<Page>>, folders: &Mutex<PathSet>, dir: &Path) -> Done {
    let mut done = Done::default();
    loop {
        let next = receiver.lock().unwrap_or_else(|e| e.into_inner()).recv();
        let Ok((path, file, bytes)) = next else {
            return done;
        };
        if done.error.is_some() {
            continue;
        }
        match write_page(dir, folders, &file, &bytes) {
            Ok(stamp) => done.stamps.push((path, stamp)),
            Err(e) => done.error = Some(e),
        }
    }
}

fn write_page(dir: &Path, folders: &Mutex<PathSet>, file: &str, bytes: &[u8]) -> Result<Stamp> {
    make_folders(dir, folders, file)?;
    write_file(&dir.join(file), bytes)
}

/// Makes the folders of `path` that no writer made yet, parents first. Two writers may
/// both make one folder; the second finds it there.
fn make_folders(dir: &Path, folders: &Mutex<PathSet>, path: &str) -> Result<()> {
    let missing = {
        let made = folders.lock().unwrap_or_else(|e| e.into_inner());
        folders_of(std::iter::once(path), &made)
    };
    if missing.is_empty() {
        return Ok(());
    }
    for folder in &missing {
        create_folder(&dir.join(folder))?;
    }
    let mut made = folders.lock().unwrap_or_else(|e| e.into_inner());
    made.extend(missing);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_written_with_their_folders_and_known_hashes() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("public");
        let stage = Stage::open(&out).unwrap();
        let staged: Vec<Output> = (0..200)
            .map(|i| {
                stage.put(Output::bytes(
                    format!("cases/c{i}/index.html"),
                    format!("page {i}"),
                ))
            })
            .collect();
        let source = super::super::Copied {
            root: "site".into(),
            file: "site/a.pdf".into(),
            sha256: String::new(),
            size: 0,
        };
        let copy = stage.put(Output {
            path: "a.pdf".into(),
            data: Data::Copy(source.clone()),
        });
        assert_eq!(copy.data, Data::Copy(source), "only bytes are staged");
        let done = stage.finish().unwrap();
        assert_eq!(done.stamps.len(), 200);
        assert!(done.folders.contains("cases") && done.folders.contains("cases/c7"));
        let Data::Staged { file, sha256, size } = &staged[7].data else {
            panic!("not staged: {:?}", staged[7].data);
        };
        assert_eq!(std::fs::read(file).unwrap(), b"page 7");
        assert_eq!(*sha256, crate::hashing::hex(&Sha256::digest(b"page 7")));
        assert_eq!(*size, 6);
        assert_eq!(done.stamps["cases/c7/index.html"].size, 6);
        let dir = done.dir.clone();
        drop(done);
        assert!(!dir.exists(), "a staged site never published is removed");
        assert!(!out.exists());
    }

    #[test]
    fn an_update_stages_only_what_changed_under_names_of_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("public");
        std::fs::create_dir_all(out.join("a")).unwrap();
        for (path, bytes) in [("a/index.html", "same"), ("b.html", "old"), ("c.html", "c")] {
            std::fs::write(out.join(path), bytes).unwrap();
        }
        let stamp = |p: &str| Stamp::of(&std::fs::metadata(out.join(p)).unwrap());
        let mut prior = Prior {
            out: out.clone(),
            exists: true,
            ..Prior::default()
        };
        for path in ["a/index.html", "b.html", "c.html"] {
            prior.files.insert(path.into(), stamp(path));
        }
        // c.html is there, but no record vouches for it.
        for (path, bytes) in [("a/index.html", "same"), ("b.html", "old")] {
            let entry = super::super::record::Entry {
                sha256: Sha256::digest(bytes).into(),
                stamp: stamp(path),
                fingerprint: 0,
            };
            prior.trusted.insert(path.into(), entry);
        }
        let pending = Beside::of(&out).pending;
        let stage = Stage::update(Arc::new(prior)).unwrap();
        assert!(pending.is_dir());
        let same = stage.put(Output::bytes("a/index.html", "same"));
        let changed = stage.put(Output::bytes("b.html", "new"));
        let unrecorded = stage.put(Output::bytes("c.html", "c"));
        let added = stage.put(Output::bytes("d/index.html", "added"));
        let Data::Published { file, size, .. } = &same.data else {
            panic!("recorded as it is: {:?}", same.data);
        };
        assert_eq!((file, *size), (&out.join("a/index.html"), 4));
        assert_eq!(
            unrecorded.data,
            Data::Bytes(b"c".to_vec()),
            "compared when written"
        );
        let done = stage.finish().unwrap();
        let mut names = Vec::new();
        for (output, bytes) in [(&changed, "new"), (&added, "added")] {
            let Data::Staged { file, .. } = &output.data else {
                panic!("not staged: {:?}", output.data);
            };
            assert_eq!(file.parent(), Some(pending.as_path()), "one flat folder");
            assert_eq!(std::fs::read(file).unwrap(), bytes.as_bytes());
            assert!(done.stamps.contains_key(&output.path));
            names.push(file.file_name().unwrap().to_string_lossy().into_owned());
        }
        assert!(names.iter().all(|n| n.parse::<usize>().is_err()));
        assert_ne!(names[0], names[1]);
        assert_eq!(std::fs::read_dir(&pending).unwrap().count(), 2);
        assert_eq!(std::fs::read(out.join("b.html")).unwrap(), b"old");
        drop(done);
        assert!(
            !pending.exists(),
            "pages never handed to a journal are removed"
        );
    }

    #[test]
    fn a_failed_write_fails_the_stage_and_an_unfinished_stage_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("public");
        let stage = Stage::open(&out).unwrap();
        // A file where a folder must go.
        stage.put(Output::bytes("cases", "a file"));
        let _ = stage.put(Output::bytes("cases/one/index.html", "page"));
        let _ = stage.put(Output::bytes("other/index.html", "page"));
        assert!(stage.finish().is_err());
        assert!(!staging_dir(&out).exists());

        let stage = Stage::open(&out).unwrap();
        let _ = stage.put(Output::bytes("index.html", "page"));
        drop(stage);
        assert!(!staging_dir(&out).exists());
    }
}
