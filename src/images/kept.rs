//! The image stage of `serve`'s rebuilds: one cache, opened once, and only the photographs
//! an edit touched looked up again.
//!
//! A one-shot build opens the cache (at archive scale a 30 MB index, a listing of 110,000
//! files and a `stat` of every source) and resolves every photograph. A rebuild after one
//! saved redaction needs one new job: it keeps every other photograph of the last build as
//! it was, and resolves the rest through the cache it kept open. The index it grows is
//! saved when the whole-site files are brought up to date (`Kept::save`), not before the
//! pages are served.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::{
    ImageSet, Job, PhotoOutput, Progress, Warm, cache, files_of, output_of, plan, publish_dir,
    resolve,
};
use crate::config::Config;
use crate::content::Corpus;
use crate::error::Result;
use crate::output::Output;

/// What `serve` keeps of the image stage between rebuilds.
#[derive(Default)]
pub(crate) struct Kept {
    cache: Option<cache::Cache>,
    /// Whether the cache's index has grown since it was saved.
    unsaved: bool,
    /// Photographs the workbench's saves began deriving (`Warm`).
    warm: Arc<Warm>,
}

impl Kept {
    /// Where the workbench starts deriving a photograph it has saved.
    pub(crate) fn warm(&self) -> Arc<Warm> {
        self.warm.clone()
    }

    /// Saves what rebuilds added to the cache's index, so the next `build` finds it;
    /// whether there was anything to save.
    pub(crate) fn save(&mut self) -> bool {
        let Some(cache) = self.cache.as_ref().filter(|_| self.unsaved) else {
            return false;
        };
        cache.save_kept();
        self.unsaved = false;
        true
    }
}

/// The photographs of `corpus`. Without `old` (the first build, or the configuration
/// changed) every one is resolved from a newly opened cache, which is kept. With `old`, the
/// last build's images, a photograph whose entry is unchanged (the same `PhotoSpec::key`,
/// published in the same folder, any pinned `source_sha256` its source's) and whose source
/// is not among `changed` is kept as it was; the others are resolved through the kept cache.
pub(crate) fn run_kept(
    config: &Config,
    corpus: &Corpus,
    old: Option<&ImageSet>,
    changed: &[PathBuf],
    progress: Option<&Progress>,
    kept: &mut Kept,
) -> Result<ImageSet> {
    let cache_dir = config.root.join(&config.images.cache_dir);
    let Some(old) = old else {
        let jobs = plan(config, corpus);
        let mut cache = cache::Cache::open(&cache_dir);
        let resolved = resolve(config, &mut cache, &jobs, progress, None, Some(&kept.warm));
        cache.save(None);
        cache.roll_over(false);
        kept.cache = Some(cache);
        kept.unsaved = false;
        return resolved.finish(Default::default());
    };
    // A source may be named through a link the watcher did not resolve.
    let changed: FxHashSet<PathBuf> = changed
        .iter()
        .flat_map(|p| [Some(p.clone()), p.canonicalize().ok()])
        .flatten()
        .collect();
    let mut photos = crate::output::PathMap::default();
    let mut todo: BTreeMap<String, Job> = BTreeMap::new();
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    for meta in corpus.metas().filter(|m| !m.photos.is_empty()) {
        let dir = publish_dir(config, meta);
        for spec in &meta.photos {
            // The first page (default language first) publishes, as in `plan`.
            if !seen.insert(&spec.key) {
                continue;
            }
            // A hash pinned since is checked again (`check_pinned`), like a changed source.
            let unchanged = |photo: &PhotoOutput| {
                !changed.contains(&spec.source)
                    && published_in(photo, &dir)
                    && (spec.source_sha256.as_ref()).is_none_or(|pin| *pin == photo.source_sha256)
            };
            match old.photos.get(&spec.key) {
                Some(photo) if unchanged(photo) => {
                    photos.insert(spec.key.clone(), Arc::clone(photo));
                }
                _ => {
                    todo.insert(
                        spec.key.clone(),
                        Job {
                            spec,
                            dir: dir.clone(),
                        },
                    );
                }
            }
        }
    }
    if todo.is_empty() {
        return Ok(ImageSet {
            photos,
            ..ImageSet::default()
        });
    }
    let cache = kept
        .cache
        .get_or_insert_with(|| cache::Cache::open(&cache_dir));
    let resolved = resolve(config, cache, &todo, progress, None, Some(&kept.warm));
    kept.unsaved |= cache.roll_over(true);
    resolved.finish(photos)
}

/// Whether `photo` is published in the URL folder `dir` (as `published` names its files:
/// `<dir><stem>.<hash>.<label>.jpg`), not in another folder.
fn published_in(photo: &PhotoOutput, dir: &str) -> bool {
    photo
        .placeholder
        .path
        .strip_prefix(dir)
        .is_some_and(|name| !name.contains('/'))
}

impl ImageSet {
    /// What changed in `outputs` since `old`, when this set was made from it by `run_kept`:
    /// the paths no longer published (URL paths without the leading `/`), and the output
    /// files of every photograph not kept as it was, by path.
    pub(crate) fn outputs_since(&self, old: &ImageSet) -> (Vec<String>, Vec<Output>) {
        let added = renewed(self, old);
        let mut gone: FxHashSet<&str> = renewed(old, self)
            .into_iter()
            .flat_map(files_of)
            .map(|img| img.path.as_str())
            .collect();
        // Another photograph of the same folder may still publish the same file (the same
        // pixels under a name of the same stem): only those can, so only they are looked at.
        if !gone.is_empty() {
            let dirs: FxHashSet<&str> = gone.iter().map(|path| folder_of(path)).collect();
            for photo in self.photos.values() {
                if dirs.contains(folder_of(&photo.placeholder.path)) {
                    for img in files_of(photo) {
                        gone.remove(img.path.as_str());
                    }
                }
            }
        }
        let mut gone: Vec<String> = gone
            .into_iter()
            .map(|path| path.trim_start_matches('/').to_string())
            .collect();
        gone.sort();
        let mut outputs: Vec<Output> = added
            .into_iter()
            .flat_map(files_of)
            .map(output_of)
            .collect();
        outputs.sort_by(|a, b| a.path.cmp(&b.path));
        outputs.dedup_by(|a, b| a.path == b.path);
        (gone, outputs)
    }
}

/// The photographs of `a` that `b` does not hold as the same, shared output.
fn renewed<'a>(a: &'a ImageSet, b: &ImageSet) -> Vec<&'a PhotoOutput> {
    a.photos
        .iter()
        .filter(|(key, p)| !b.photos.get(*key).is_some_and(|q| Arc::ptr_eq(p, q)))
        .map(|(_, p)| p.as_ref())
        .collect()
}

/// `/cases/syn-0001/` of `/cases/syn-0001/photo-1.3f9a2c1d.400.jpg`.
fn folder_of(path: &str) -> &str {
    &path[..path.rfind('/').map_or(0, |i| i + 1)]
}
