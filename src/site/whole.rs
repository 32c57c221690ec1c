//! Files made from the whole site rather than one page: the search index, sitemap,
//! `robots.txt`, the Atom feeds and the data export; and the rule that no two sources may
//! write the same file.

use std::path::{Path, PathBuf};

use super::{export, feeds};
use crate::config::Config;
use crate::content::Corpus;
use crate::error::{Diagnostic, Diagnostics, Result};
use crate::hashing::casebook_identity;
use crate::images::ImageSet;
use crate::output::Output;
use crate::output::sealed::Unsealed;
use crate::render::Prepared;
use crate::search::{self, SearchIndex, TermCache};

/// The site prepared for a one-shot build, with what the last build into the output folder
/// `publishing` names kept of each page (`render::kept_pages`), and keeping this build's
/// for the next: sealed like the search caches, or in a first build kept to seal once the
/// folder is written.
pub(super) fn prepare_kept(
    config: &Config,
    corpus: &Corpus,
    images: &ImageSet,
    publishing: Option<&mut super::Publishing>,
) -> Result<Prepared> {
    use crate::output::sealed;
    use crate::render::kept_pages::{FILE, KeptPages};
    let Some(publishing) = publishing else {
        return crate::render::prepare(config, corpus, images, None);
    };
    let file = super::cache_file(config, FILE);
    let bytes = sealed::load(&file, &publishing.out).unwrap_or_default();
    let key = crate::content::saved::key(config);
    let kept = KeptPages::parse(&bytes, key);
    super::memory::return_freed_soon_unless(kept.len(), corpus.pages.len());
    let (prepared, keep) = crate::render::prepare_keeping(config, corpus, images, &kept, key)?;
    if let Some(keep) = keep {
        // A cache: a build that cannot save it is only slower next time.
        let unsealed = sealed::save_or_defer(&file, &publishing.out, &keep);
        publishing.unsealed.extend(unsealed);
    }
    Ok(prepared)
}

/// The search index of the prepared site; `terms` (serve) keeps each document's terms for
/// the next build.
pub(super) fn search_index(
    config: &Config,
    corpus: &Corpus,
    prepared: &Prepared,
    terms: Option<&mut TermCache>,
) -> SearchIndex {
    index_with_caches(config, corpus, prepared, terms, None).0
}

/// The search index of a one-shot build, made with the caches the last build into the
/// output folder `publishing` names left there, and leaving its own for the next: sealed,
/// or in a first build kept to seal once the folder is written (`Publishing::unsealed`);
/// after an edit, the index is saved while the build goes on (`Publishing::saving`).
pub(super) fn search_index_kept(
    config: &Config,
    corpus: &Corpus,
    prepared: &Prepared,
    publishing: Option<&mut super::Publishing>,
) -> SearchIndex {
    let Some(publishing) = publishing else {
        return search_index(config, corpus, prepared, None);
    };
    let file = super::cache_file(config, super::SEARCH_CACHE_FILE);
    let saved = Some((file.as_path(), publishing.out.as_path()));
    let (index, kept) = index_with_caches(config, corpus, prepared, None, saved);
    publishing.unsealed.extend(kept.unsealed);
    publishing.saving.extend(kept.saving);
    index
}

/// The search index of the prepared site, with `terms` (serve) or, in a one-shot build,
/// `saved`: the file where the last build into the same output folder left its index, and
/// that folder. The index is used again when it was made from the same inputs by the same
/// casebook; otherwise the documents' terms that build kept are. Both are sealed with the
/// output's key (`output::sealed`): they are found by what they index, which anyone can
/// know, so a file that came with the site, or was made for another output, is never read.
/// A first build, whose output folder does not exist yet, returns them unsealed, to seal
/// once it does.
fn index_with_caches(
    config: &Config,
    corpus: &Corpus,
    prepared: &Prepared,
    terms: Option<&mut TermCache>,
    saved: Option<(&Path, &Path)>,
) -> (SearchIndex, Kept) {
    use crate::output::sealed;
    let started = std::time::Instant::now();
    let inputs = prepared.search_inputs(config, corpus);
    let (mut unsealed, mut saving) = (Vec::new(), Vec::new());
    let mut index = match saved {
        Some((file, out)) => {
            let text_keys = search::kept_terms::text_keys(&inputs);
            let key = search::inputs_key(&config.search, &inputs, &text_keys, &casebook_identity());
            let last = SearchIndex::saved_under(file, key)
                .then(|| sealed::load(file, out))
                .flatten();
            match last.and_then(|bytes| SearchIndex::parse(&bytes, key)) {
                Some(index) => index,
                None => {
                    let kept_file = file.with_file_name(search::kept_terms::FILE);
                    let kept_bytes = sealed::load(&kept_file, out).unwrap_or_default();
                    let kept = search::kept_terms::Kept::parse(&kept_bytes);
                    let docs = inputs.iter().map(|input| input.docs.len()).sum();
                    super::memory::return_freed_soon_unless(kept.len(), docs);
                    let (index, keep) =
                        search::kept_terms::build(&config.search, &inputs, &text_keys, kept);
                    // Caches: a build that cannot save them is only slower next time.
                    let tokenized_anew = keep.is_some();
                    if let Some(keep) = keep {
                        unsealed.extend(sealed::save_or_defer(&kept_file, out, &keep));
                    }
                    let index_bytes = index.to_bytes(key);
                    // Tokenizing most documents is a cold build's first peak (90 MB at
                    // 11,000 cases); its pages should not be rendered beside what it freed,
                    // nor beside the index's bytes on their way to the disk. After an edit,
                    // the index is saved while the pages are rendered.
                    if tokenized_anew {
                        unsealed.extend(sealed::save_or_defer(file, out, &index_bytes));
                        drop(index_bytes);
                        super::memory::return_freed_memory();
                    } else {
                        saving.push(sealed::save_or_defer_aside(file, out, index_bytes));
                    }
                    index
                }
            }
        }
        None => search::build_cached(&config.search, &inputs, terms),
    };
    index.stats.time = started.elapsed();
    (index, Kept { unsealed, saving })
}

/// The caches a one-shot build's search index leaves for the next build: drafts to seal
/// once the output folder exists, and saves under way.
#[derive(Default)]
struct Kept {
    unsealed: Vec<Unsealed>,
    saving: Vec<crate::output::sealed::Saving>,
}

/// A one-shot build's search files, taken out of its index to be given to the site's files
/// rather than copied (8 MB at 11,000 cases, at the build's peak): it has no next build to
/// keep them for. `None` for serve, or when the index is shared.
///
/// The pages' list items go too, so that the site files are not made beside them: a list
/// keeps each case's item as a template value for the other lists that show it (38 MB at
/// 11,000 cases, cold), and the build's peak was where the site files were made.
pub(super) fn take_for_site_files(
    state: Option<&mut super::State>,
    incremental: bool,
) -> Option<Vec<Output>> {
    let state = state.filter(|_| !incremental)?;
    if let Some(prepared) = std::sync::Arc::get_mut(&mut state.prepared) {
        // Returned only after most lists were made (a cold build): an edit's few are not
        // worth faulting in again.
        if prepared.forget_list_items() * 32 > state.corpus.pages.len() {
            super::memory::return_freed_memory();
        }
    }
    let index = std::sync::Arc::get_mut(&mut state.search)?;
    Some(std::mem::take(&mut index.outputs))
}

/// The sitemap, `robots.txt`, feeds, data export and the search index's files `search`.
/// `url_paths` are those of every page. A one-shot build into an existing output
/// (`publishing`) takes the export as published when nothing it is made from changed.
pub(super) fn outputs(
    config: &Config,
    corpus: &Corpus,
    prepared: &Prepared,
    search: Vec<Output>,
    url_paths: &[String],
    publishing: Option<&mut super::Publishing>,
) -> Result<Vec<Output>> {
    // Independent of each other: made side by side.
    let ((sitemap, feeds), export) = rayon::join(
        || {
            rayon::join(
                || feeds::sitemap(config, corpus, url_paths),
                || feeds::atom(config, corpus, prepared.page_markdown()),
            )
        },
        || export_kept(config, corpus, publishing),
    );
    let mut outputs = Vec::with_capacity(search.len() + feeds.len() + 4);
    outputs.extend(sitemap);
    outputs.push(feeds::robots(config));
    outputs.extend(super::hosting::files(config));
    outputs.extend(super::release::public_key_file(config));
    outputs.extend(feeds);
    outputs.extend(export?);
    outputs.extend(search);
    Ok(outputs)
}

/// The data export, as the last build published it when its fingerprint is the same (and
/// its files untouched), else made; its fingerprint is recorded for the next build.
fn export_kept(
    config: &Config,
    corpus: &Corpus,
    publishing: Option<&mut super::Publishing>,
) -> Result<Vec<Output>> {
    // Hashed only for a build that has a record to compare with (not `serve`).
    let published = publishing
        .filter(|p| p.prior.is_some())
        .and_then(|publishing| {
            let fingerprint = export::fingerprint(config, corpus)?;
            publishing.published(&export::FILES, fingerprint)
        });
    published.map_or_else(|| export::cases(config, corpus), Ok)
}

const SAME_PATH_HINT: &str =
    "a static file, a bundle attachment or a page produces the same path; rename one";

/// Two sources writing the same file would silently lose one of them; a path Windows
/// cannot hold, or two that macOS or Windows take for one, would break a checkout or a
/// copy of the site there. Given every path of the site.
pub(super) fn check_collisions<'p>(
    corpus: &Corpus,
    paths: impl IntoIterator<Item = &'p str>,
) -> Result<()> {
    let all: Vec<&str> = paths.into_iter().collect();
    let mut diags = Diagnostics::default();
    for u in crate::output::unportable_paths(all.iter().copied()) {
        let message = format!("the output path `{}`: {}", u.path, u.message);
        diags.push(Diagnostic::new(source_of(corpus, u.path), message).hint(u.hint));
    }
    same_paths(corpus, all, &mut diags);
    diags.finish(())
}

/// Only the first of [`check_collisions`]' rules, for the pages before the rest is made
/// (the names are checked once, over every path).
pub(super) fn check_same_paths<'p>(
    corpus: &Corpus,
    paths: impl IntoIterator<Item = &'p str>,
) -> Result<()> {
    let mut diags = Diagnostics::default();
    same_paths(corpus, paths, &mut diags);
    diags.finish(())
}

fn same_paths<'p>(
    corpus: &Corpus,
    paths: impl IntoIterator<Item = &'p str>,
    diags: &mut Diagnostics,
) {
    // A set, not a sort: at archive scale hundreds of thousands of paths share long prefixes.
    let mut seen = rustc_hash::FxHashSet::default();
    let mut twice: Vec<&str> = paths.into_iter().filter(|p| !seen.insert(*p)).collect();
    twice.sort_unstable();
    twice.dedup();
    for path in twice {
        let url = format!("/{}", path.trim_end_matches("index.html"));
        let source = corpus
            .source_of(&url)
            .map_or_else(|| PathBuf::from("static"), Path::to_path_buf);
        diags.push(
            Diagnostic::new(source, format!("two outputs would be written to `{path}`"))
                .hint(SAME_PATH_HINT),
        );
    }
}

/// The file an output path (or a folder of it) comes from: a page, an attachment, or else
/// a static file.
fn source_of(corpus: &Corpus, path: &str) -> PathBuf {
    let page = |url: String| corpus.source_of(&url).map(Path::to_path_buf);
    page(format!("/{path}/"))
        .or_else(|| page(format!("/{}", path.trim_end_matches("index.html"))))
        .or_else(|| {
            let asset = corpus.assets.iter().find(|a| a.output == path);
            asset.map(|a| a.source.clone())
        })
        .unwrap_or_else(|| Path::new("static").join(path))
}

#[cfg(test)]
mod tests {
    use super::super::{BuildOptions, Session};

    fn built(incremental: bool) -> Session {
        let (_dir, root) = crate::paths::fixture_copy("search");
        let mut session = if incremental {
            Session::new(&root, None, false)
        } else {
            Session::with_options(BuildOptions {
                root,
                ..BuildOptions::default()
            })
        };
        session.build_all(&[]).unwrap();
        session
    }

    #[test]
    fn a_one_shot_build_forgets_its_list_items_before_the_site_files_and_serve_keeps_them() {
        let kept = |s: &Session| s.state().unwrap().prepared.list_items_kept();
        let serve = built(true);
        assert!(kept(&serve) > 0, "the lists made items, kept for rebuilds");
        assert_eq!(kept(&built(false)), 0);
    }
}
