//! A page's fingerprint: a hash of everything its finished bytes are made from, so that a
//! one-shot build leaves a page unrendered when the last build published it from the same
//! inputs.
//!
//! It is made from this casebook (its version and its executable's size and time), the
//! configuration file and the build's options, every template, the page's template, URL
//! and language, the shared values its templates read (the analysis serve's rebuilds rely
//! on, `incremental::shared_reads`) and every value of its own context. Hashing a context
//! costs a fraction of rendering it: the templates, minifying and link rewriting are all
//! skipped.

use std::collections::HashMap;

use super::context::Shared;
use super::incremental::shared_reads;
use crate::config::Config;
use crate::hashing::{Hasher, casebook_identity};
use crate::output::{Fingerprint, Prior};
use crate::theme::Theme;

/// What a one-shot build needs to leave unchanged pages unrendered.
pub(crate) struct Unchanged<'a> {
    /// The output folder as the build found it.
    pub(crate) prior: &'a Prior,
    /// A hash of what every page depends on.
    seed: u128,
    /// Template -> the shared values it reads.
    reads: HashMap<String, Vec<&'static str>>,
    /// Language -> a hash of each of its shared values, made once for every page.
    shared: HashMap<String, Vec<(&'static str, u128)>>,
}

impl<'a> Unchanged<'a> {
    /// `options` names every build option that changes pages (`--base-url`, drafts, ...).
    pub(crate) fn new(
        prior: &'a Prior,
        config: &Config,
        theme: &Theme,
        shared: &Shared,
        options: &str,
    ) -> Self {
        let mut h = Hasher::default();
        h.text(&casebook_identity());
        let config_file = config.root.join(crate::config::CONFIG_FILE);
        h.bytes(&std::fs::read(config_file).unwrap_or_default());
        h.text(options);
        for (name, source) in &theme.templates {
            h.text(name);
            h.text(source);
        }
        let reads = shared_reads(theme)
            .into_iter()
            .map(|(name, mut reads)| {
                // A page's own series is part of `chart_data`: all of it counts here.
                if reads.own_series {
                    reads.used.push("chart_data");
                }
                (name, reads.used)
            })
            .collect();
        let shared = shared
            .per_lang
            .iter()
            .map(|(lang, values)| {
                let hashes = values.values.fields().into_iter().map(|(name, value)| {
                    let mut h = Hasher::default();
                    h.value(value);
                    (name, h.digest())
                });
                (lang.clone(), hashes.collect())
            })
            .collect();
        Unchanged {
            prior,
            seed: h.digest(),
            reads,
            shared,
        }
    }

    /// The fingerprint of a page rendered with `template`, whose own values hash to `own`;
    /// `None` for a template the theme lacks (rendering then reports it).
    pub(crate) fn fingerprint(
        &self,
        template: &str,
        lang: &str,
        url_path: &str,
        own: u128,
    ) -> Option<Fingerprint> {
        let reads = self.reads.get(template)?;
        let mut h = Hasher::default();
        h.bytes(&self.seed.to_le_bytes());
        h.text(template);
        h.text(lang);
        h.text(url_path);
        let hashes = self.shared.get(lang)?;
        for (name, hash) in hashes.iter().filter(|(name, _)| reads.contains(name)) {
            h.text(name);
            h.bytes(&hash.to_le_bytes());
        }
        h.bytes(&own.to_le_bytes());
        Some(h.digest())
    }
}
