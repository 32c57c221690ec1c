//! Which photographs are reviewed: a review counts only while its `covers` is the digest of
//! the photograph as it is now. Worked out here, where each source's SHA-256 is already
//! known from deriving it, so no source is read or hashed again for it.

use std::collections::HashSet;
use std::path::PathBuf;

use super::ImageSet;
use crate::content::{Corpus, review_covers};
use crate::error::{Diagnostic, Error};

/// How many located errors `require_review` lists before it only counts.
const SHOWN: usize = 100;

/// The review state of a site's photographs (`casebook check`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reviews {
    /// Photographs of the site, each entry counted once whatever its languages.
    pub photos: usize,
    /// Those not reviewed, by page and line; `stale` marks a review that no longer covers
    /// its photograph.
    pub unreviewed: Vec<Unreviewed>,
}

impl Reviews {
    /// Of the photographs not reviewed, how many carry a review that no longer covers them.
    pub fn stale(&self) -> usize {
        self.unreviewed.iter().filter(|u| u.stale).count()
    }
}

/// A photograph whose review is missing or no longer covers it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unreviewed {
    /// The page file whose `photos` lists it.
    pub page: PathBuf,
    /// The line of its entry.
    pub line: usize,
    /// Its position in `photos`, from 0.
    pub index: usize,
    /// The photograph's `file`.
    pub photo: String,
    /// It carries a review, made when it was different.
    pub stale: bool,
    /// What a review of it as it is now covers (`reviewed.covers`).
    pub covers: String,
}

impl ImageSet {
    /// The review state of every photograph of `corpus` this set derived.
    pub(crate) fn reviews(&self, corpus: &Corpus) -> Reviews {
        let mut seen = HashSet::new();
        let mut reviews = Reviews::default();
        for spec in corpus.metas().flat_map(|m| &m.photos) {
            // A translation's page shows the original's entries.
            if !seen.insert((&spec.page, spec.index)) {
                continue;
            }
            let Some(output) = self.get(spec) else {
                continue;
            };
            reviews.photos += 1;
            let covers = review_covers(&output.source_sha256, &spec.redact, spec.sensitivity);
            if spec.reviewed.as_ref().is_some_and(|r| r.covers == covers) {
                continue;
            }
            reviews.unreviewed.push(Unreviewed {
                page: spec.page.clone(),
                line: spec.line,
                index: spec.index,
                photo: spec.file.clone(),
                stale: spec.reviewed.is_some(),
                covers,
            });
        }
        reviews.unreviewed.sort();
        reviews
    }

    /// `[images] require_review`: a located error for each photograph of `corpus` not
    /// reviewed (the first hundred, then a count), or nothing.
    pub(crate) fn require_review(&self, corpus: &Corpus) -> Result<(), Error> {
        let reviews = self.reviews(corpus);
        if reviews.unreviewed.is_empty() {
            return Ok(());
        }
        let more = reviews.unreviewed.len().saturating_sub(SHOWN);
        let shown: Vec<Diagnostic> = reviews
            .unreviewed
            .iter()
            .take(SHOWN)
            .map(|u| {
                let message = if u.stale {
                    format!("photograph `{}` was reviewed, but its regions, sensitivity or source changed since: the review no longer covers it", u.photo)
                } else {
                    format!("photograph `{}` is not reviewed", u.photo)
                };
                Diagnostic::new(&u.page, message)
                    .at(u.line, 1)
                    .field(format!("photos[{}].reviewed", u.index))
                    .hint("[images] require_review is on: check its redaction and mark it reviewed in the workbench of `casebook serve` (docs/photographs.md)")
            })
            .collect();
        Err(if more == 0 {
            Error::Diagnostics(shown)
        } else {
            Error::Many { shown, more }
        })
    }
}
