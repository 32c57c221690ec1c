//! Files made from the whole site rather than one page: the search index, sitemap,
//! `robots.txt`, the Atom feeds and the data export; and the rule that no two sources may
//! write the same file.

use std::path::{Path, PathBuf};

use super::{export, feeds};
use crate::config::Config;
use crate::content::Corpus;
use crate::error::{Diagnostic, Diagnostics, Result};
use crate::output::Output;
use crate::render::Prepared;
use crate::search::{SearchIndex, TermCache};

/// The search index of the prepared site; `terms` keeps each document's terms for the next
/// build.
pub(super) fn search_index(
    config: &Config,
    corpus: &Corpus,
    prepared: &Prepared,
    terms: Option<&mut TermCache>,
) -> SearchIndex {
    let started = std::time::Instant::now();
    let inputs = prepared.search_inputs(config, corpus);
    let mut index = crate::search::build_cached(&config.search, &inputs, terms);
    index.stats.time = started.elapsed();
    index
}

/// The sitemap, `robots.txt`, feeds, data export and search index files. `url_paths` are
/// those of every page.
pub(super) fn outputs(
    config: &Config,
    corpus: &Corpus,
    prepared: &Prepared,
    search: &SearchIndex,
    url_paths: &[String],
) -> Result<Vec<Output>> {
    // Independent of each other: made side by side.
    let ((sitemap, feeds), (export, search)) = rayon::join(
        || {
            rayon::join(
                || feeds::sitemap(config, corpus, url_paths),
                || feeds::atom(config, corpus, prepared.page_markdown()),
            )
        },
        || rayon::join(|| export::cases(config, corpus), || search.outputs.clone()),
    );
    let mut outputs = Vec::with_capacity(search.len() + feeds.len() + 4);
    outputs.extend(sitemap);
    outputs.push(feeds::robots(config));
    outputs.extend(super::release::public_key_file(config));
    outputs.extend(feeds);
    outputs.extend(export?);
    outputs.extend(search);
    Ok(outputs)
}

const SAME_PATH_HINT: &str =
    "a static file, a bundle attachment or a page produces the same path; rename one";

/// Two sources writing the same file would silently lose one of them.
pub(super) fn check_collisions<'p>(
    corpus: &Corpus,
    paths: impl IntoIterator<Item = &'p str>,
) -> Result<()> {
    let mut paths: Vec<&str> = paths.into_iter().collect();
    paths.sort_unstable();
    let mut diags = Diagnostics::default();
    for pair in paths.windows(2) {
        if pair[0] == pair[1] {
            let url = format!("/{}", pair[0].trim_end_matches("index.html"));
            let source = corpus
                .source_of(&url)
                .map_or_else(|| PathBuf::from("static"), Path::to_path_buf);
            diags.push(
                Diagnostic::new(
                    source,
                    format!("two outputs would be written to `{}`", pair[0]),
                )
                .hint(SAME_PATH_HINT),
            );
        }
    }
    diags.finish(())
}
