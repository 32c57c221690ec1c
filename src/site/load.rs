//! Loading a site's content with every problem found in it, and deriving one shard's part
//! of its photographs (`build --shard I/N`).

use std::path::PathBuf;

use super::BuildOptions;
use crate::config::Config;
use crate::content::{Corpus, Listed, ParseCache, WalkedFiles, saved};
use crate::error::{Diagnostic, Error, Result};
use crate::images::{self, ImageSet};
use crate::output::Prior;
use crate::render;

/// Loads the content with every problem found in it: the files' own and, when there are
/// any, the broken `@/` links too, so a publisher sees them all in one pass. `cache`
/// (serve) re-parses only changed files.
pub(super) fn load_content(
    config: &Config,
    drafts: bool,
    cache: Option<&mut ParseCache>,
    listed: Option<WalkedFiles>,
) -> Result<(Corpus, Vec<Diagnostic>)> {
    let (corpus, mut diags) = match (cache, listed) {
        (Some(cache), _) => crate::content::load_cached(config, drafts, cache)?,
        (None, Some(files)) => load_listed(config, drafts, files)?,
        (None, None) => crate::content::load_partial(config, drafts)?,
    };
    if !diags.is_empty() {
        diags.extend(render::markdown_link_errors(config, &corpus));
    }
    Ok((corpus, diags))
}

/// Loads the files a walk found, with the parses the last one-shot build kept, and keeps
/// this build's for the next (a cache: one that cannot be saved only makes the next build
/// parse everything).
fn load_listed(
    config: &Config,
    drafts: bool,
    files: WalkedFiles,
) -> Result<(Corpus, Vec<Diagnostic>)> {
    let file = super::cache_file(config, saved::FILE);
    let bytes = std::fs::read(&file).unwrap_or_default();
    let key = saved::key(config);
    let saved = saved::Saved::parse(&bytes, key);
    // A build that finds nearly every parse kept is an edit's (`super::memory`).
    let markdown = files
        .iter()
        .filter(|(path, _)| path.ends_with(".md"))
        .count();
    super::memory::return_freed_after_finding(saved.kept_of(&files), markdown);
    let listed = Listed { files, saved, key };
    let (corpus, diags, next) = crate::content::load_listed(config, drafts, listed)?;
    if let Some(next) = next {
        let _ = crate::output::save_atomically(&file, &next);
    }
    Ok((corpus, diags))
}

/// The photographs of a build. The output folder as found (`prior`) tells which cache files
/// it is about to gain: those are checked before they are published. `serve` passes what it
/// `kept` of the image stage, and the `last` build's images with the paths changed since.
pub(super) fn images(
    options: &BuildOptions,
    config: &Config,
    corpus: &Corpus,
    prior: Option<&Prior>,
    kept: Option<&mut images::Kept>,
    last: Option<(&ImageSet, &[PathBuf])>,
) -> Result<ImageSet> {
    let progress = options.progress.as_ref();
    let Some(kept) = kept else {
        let images = images::run(config, corpus, progress, prior)?;
        super::warn(options.notices.as_ref(), &images.warnings);
        // `build` and `check` only: the preview is where photographs get reviewed.
        if config.images.require_review {
            images.require_review(corpus)?;
        }
        return Ok(images);
    };
    let (old, changed) = last.unzip();
    let changed = changed.unwrap_or_default();
    let images = images::run_kept(config, corpus, old, changed, progress, kept)?;
    super::warn(options.notices.as_ref(), &images.warnings);
    Ok(images)
}

/// Loads the content and derives one shard's part of its photographs into the image cache
/// (`build --shard I/N`); returns the part and the site's number of photographs.
pub(crate) fn derive_shard(
    options: &BuildOptions,
    shard: images::Shard,
) -> Result<(ImageSet, usize, PathBuf)> {
    let config = Config::load(&options.root)?;
    let (corpus, mut diags) = load_content(&config, options.drafts, None, None)?;
    if !diags.is_empty() {
        diags.sort();
        diags.dedup();
        return Err(Error::Diagnostics(diags));
    }
    let (part, total) = images::run_shard(&config, &corpus, options.progress.as_ref(), shard)?;
    Ok((part, total, config.root.join(&config.images.cache_dir)))
}
