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

use xxhash_rust::xxh3::Xxh3;

use super::context::Shared;
use super::incremental::shared_reads;
use crate::config::Config;
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

/// This casebook: its version, and its executable's size and time, since a rebuilt casebook
/// may render differently under the same version number.
pub(crate) fn casebook_identity() -> String {
    let exe = std::env::current_exe().and_then(std::fs::metadata);
    let stamp = exe.map(|m| (m.len(), m.modified().ok())).ok();
    format!("{} {stamp:?}", env!("CARGO_PKG_VERSION"))
}

/// Hashes fields, each with its length first so that no two sequences of fields hash alike.
#[derive(Default)]
pub(crate) struct Hasher {
    state: Xxh3,
    /// Serialised values are gathered here and hashed in one go.
    buffer: Vec<u8>,
}

impl Hasher {
    pub(crate) fn digest(&self) -> u128 {
        self.state.digest128()
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.state.update(&(bytes.len() as u64).to_le_bytes());
        self.state.update(bytes);
    }

    pub(crate) fn text(&mut self, text: &str) {
        self.bytes(text.as_bytes());
    }

    pub(crate) fn number(&mut self, number: u64) {
        self.state.update(&number.to_le_bytes());
    }

    /// A value as JSON: typed views serialise their fields in declaration order and their
    /// maps in key order, so the same value always gives the same text.
    pub(crate) fn serialized<T: serde::Serialize + ?Sized>(&mut self, value: &T) {
        let mut buffer = std::mem::take(&mut self.buffer);
        buffer.clear();
        let _ = serde_json::to_writer(&mut buffer, value);
        self.bytes(&buffer);
        self.buffer = buffer;
    }

    /// Walks a template value. Not as JSON: tera's maps iterate in a different order in
    /// each process, so their entries are hashed in key order.
    pub(crate) fn value(&mut self, value: &tera::Value) {
        use tera::value::ValueKind as Kind;
        let kind = value.kind();
        let tag: u8 = match kind {
            Kind::Undefined => 0,
            Kind::None => 1,
            Kind::Bool => 2,
            Kind::String => 3,
            Kind::Array => 4,
            Kind::Map => 5,
            Kind::Bytes => 6,
            _ => 7,
        };
        self.state.update(&[tag]);
        match kind {
            Kind::Undefined | Kind::None => {}
            Kind::Bool => self
                .state
                .update(&[u8::from(value.as_bool() == Some(true))]),
            Kind::String => {
                // A safe string is not escaped: the same text renders differently.
                self.state.update(&[u8::from(value.is_safe())]);
                self.text(value.as_str().unwrap_or_default());
            }
            Kind::Array => {
                let items = value.as_array().unwrap_or_default();
                self.state.update(&(items.len() as u64).to_le_bytes());
                for item in items {
                    self.value(item);
                }
            }
            Kind::Map => {
                let mut entries: Vec<_> = value.as_map().into_iter().flatten().collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                self.state.update(&(entries.len() as u64).to_le_bytes());
                for (key, item) in entries {
                    match key.as_str() {
                        Some(text) => self.text(text),
                        None => {
                            self.state.update(&[0xff]);
                            self.text(&key.to_string());
                        }
                    }
                    self.value(item);
                }
            }
            Kind::Bytes => self.bytes(value.as_bytes().unwrap_or_default()),
            // Numbers, and any kind a later tera adds, as JSON.
            _ => self.serialized(value),
        }
    }
}
