//! Deriving a photograph the workbench has just saved while the rebuild that publishes it
//! is still loading the content.
//!
//! A save names one photograph and its new regions. The rebuild it starts spends its first
//! hundred milliseconds or so loading and preparing the content before the image stage
//! reaches that photograph, and a 24-megapixel source takes about as long again to derive.
//! So the save starts the derivation at once, on a thread of its own, and the image stage
//! takes the result from here (waiting for it if need be) instead of deriving it a second
//! time. It is the same pipeline on the same bytes; the job key is made from the bytes this
//! thread read, and the image stage uses the result only when that key is its own. Anything
//! else (the source replaced again, other settings, regions written differently) simply
//! finds nothing here and is derived as usual.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

use sha2::{Digest, Sha256};

use super::pipeline::{self, Derived};
use super::{decode, job_key};
use crate::config::ImageConfig;
use crate::content::photos::Region;
use crate::hashing::hex;

/// Derivations started by saves, until the image stage takes them. A few at most: a save
/// replaces the oldest when more are waiting (their rebuilds derive those themselves).
#[derive(Default)]
pub(crate) struct Warm {
    started: Mutex<Vec<Started>>,
}

const MOST_WAITING: usize = 4;

struct Started {
    source: PathBuf,
    regions: Vec<Region>,
    result: Arc<Pending>,
}

/// The job key and what the pipeline made, once the thread is done (`None` if it failed).
#[derive(Default)]
struct Pending {
    done: Mutex<Option<Option<(String, Derived)>>>,
    finished: Condvar,
}

impl Warm {
    /// Starts deriving `source` (relative to `root`) with `regions`, as `images` says. Does
    /// nothing when the source would need more memory than the image stage is allowed.
    pub(crate) fn start(
        &self,
        root: &Path,
        source: &Path,
        regions: &[Region],
        images: &ImageConfig,
    ) {
        let Ok(need) = decode::memory_needed(root, source, images) else {
            return;
        };
        if need > images.max_memory {
            return;
        }
        let result = Arc::new(Pending::default());
        {
            let mut started = self.started.lock().expect("warm lock");
            started.retain(|s| !(s.source == source && s.regions == regions));
            if started.len() >= MOST_WAITING {
                started.remove(0);
            }
            started.push(Started {
                source: source.to_path_buf(),
                regions: regions.to_vec(),
                result: result.clone(),
            });
        }
        let (root, source, regions, images) = (
            root.to_path_buf(),
            source.to_path_buf(),
            regions.to_vec(),
            images.clone(),
        );
        let spawned = std::thread::Builder::new()
            .name("casebook-warm".into())
            .spawn({
                let result = result.clone();
                move || {
                    let made = derive(&root, &source, &regions, &images, need);
                    *result.done.lock().expect("warm lock") = Some(made);
                    result.finished.notify_all();
                }
            });
        if spawned.is_err() {
            *result.done.lock().expect("warm lock") = Some(None);
        }
    }

    /// The photograph `source` derived with `regions`, when a save started it and its job
    /// key is `key`; waits for it if it is still being made.
    pub(super) fn take(&self, source: &Path, regions: &[Region], key: &str) -> Option<Derived> {
        let pending = {
            let mut started = self.started.lock().expect("warm lock");
            let at = started
                .iter()
                .position(|s| s.source == source && s.regions == regions)?;
            started.remove(at).result
        };
        let mut done = pending.done.lock().expect("warm lock");
        while done.is_none() {
            done = pending.finished.wait(done).expect("warm lock");
        }
        match done.take().flatten() {
            Some((made_for, derived)) if made_for == key => Some(derived),
            _ => None,
        }
    }
}

fn derive(
    root: &Path,
    source: &Path,
    regions: &[Region],
    images: &ImageConfig,
    need: u64,
) -> Option<(String, Derived)> {
    let bytes = crate::beneath::read(root, source, need).ok()?;
    let key = job_key(images, regions, &hex(&Sha256::digest(&bytes)));
    let derived = pipeline::derive(&bytes, regions, images).ok()?;
    Some((key, derived))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::photos::RedactMethod;
    use image::RgbImage;

    fn images() -> ImageConfig {
        crate::config::Config::parse(
            "title = \"T\"\nbase_url = \"https://x.org/\"\n",
            Path::new("."),
            Path::new("casebook.toml"),
        )
        .unwrap()
        .images
    }

    fn region(x: f64) -> Vec<Region> {
        vec![Region {
            x,
            y: 0.2,
            w: 0.3,
            h: 0.4,
            method: RedactMethod::Fill,
        }]
    }

    /// A site folder with one photograph; its bytes and the hash they key jobs by.
    fn site() -> (tempfile::TempDir, Vec<u8>, String) {
        let dir = tempfile::tempdir().unwrap();
        let img = RgbImage::from_fn(900, 600, |x, y| {
            image::Rgb([(x % 251) as u8, (y % 241) as u8, 90])
        });
        let bytes = pipeline::encode_jpeg(&img, 90).unwrap();
        std::fs::write(dir.path().join("a.jpg"), &bytes).unwrap();
        let sha = hex(&Sha256::digest(&bytes));
        (dir, bytes, sha)
    }

    fn same(a: &Derived, b: &Derived) -> bool {
        a.sizes.len() == b.sizes.len()
            && a.sizes
                .iter()
                .zip(&b.sizes)
                .all(|(x, y)| x.bytes == y.bytes)
            && a.placeholder.bytes == b.placeholder.bytes
    }

    #[test]
    fn a_started_derivation_is_what_the_pipeline_makes_and_is_taken_once() {
        let (dir, bytes, sha) = site();
        let images = images();
        let warm = Warm::default();
        let regions = region(0.1);
        warm.start(dir.path(), Path::new("a.jpg"), &regions, &images);
        let key = job_key(&images, &regions, &sha);
        let taken = warm.take(Path::new("a.jpg"), &regions, &key).unwrap();
        let made = pipeline::derive(&bytes, &regions, &images).unwrap();
        assert!(same(&taken, &made));
        assert!(warm.take(Path::new("a.jpg"), &regions, &key).is_none());
    }

    #[test]
    fn nothing_is_taken_for_other_regions_another_source_or_another_key() {
        let (dir, _, sha) = site();
        let images = images();
        let warm = Warm::default();
        warm.start(dir.path(), Path::new("a.jpg"), &region(0.1), &images);
        let key = job_key(&images, &region(0.1), &sha);
        assert!(warm.take(Path::new("a.jpg"), &region(0.2), &key).is_none());
        assert!(warm.take(Path::new("b.jpg"), &region(0.1), &key).is_none());
        // The source replaced since the save (another hash), or other settings: not used.
        let other = job_key(&images, &region(0.1), &"0".repeat(64));
        assert!(
            warm.take(Path::new("a.jpg"), &region(0.1), &other)
                .is_none()
        );
    }

    #[test]
    fn a_source_that_cannot_be_read_starts_nothing() {
        let (dir, _, sha) = site();
        let images = images();
        let warm = Warm::default();
        warm.start(dir.path(), Path::new("missing.jpg"), &region(0.1), &images);
        let key = job_key(&images, &region(0.1), &sha);
        assert!(
            warm.take(Path::new("missing.jpg"), &region(0.1), &key)
                .is_none()
        );
        assert!(warm.started.lock().unwrap().is_empty());
    }

    #[test]
    fn only_the_newest_few_wait() {
        let (dir, _, _) = site();
        let images = images();
        let warm = Warm::default();
        for i in 0..MOST_WAITING + 2 {
            warm.start(
                dir.path(),
                Path::new("a.jpg"),
                &region(0.01 * i as f64),
                &images,
            );
        }
        let started = warm.started.lock().unwrap();
        assert_eq!(started.len(), MOST_WAITING);
        assert_eq!(started[0].regions, region(0.02));
    }
}
