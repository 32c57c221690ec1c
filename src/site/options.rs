//! What a build is asked to do, and how long its steps took.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::images::Progress;

/// What `casebook build` and `casebook check` are asked to do.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// The site folder (holding `casebook.toml`).
    pub root: PathBuf,
    /// Defaults to `<root>/public`.
    pub output: Option<PathBuf>,
    /// Replaces `base_url` from the config (e.g. for a staging host).
    pub base_url: Option<String>,
    /// Include pages marked `draft = true`.
    pub drafts: bool,
    /// Links name `index.html` so the site works opened from disk.
    pub portable: bool,
    /// Hears how far long image runs got.
    pub progress: Option<Progress>,
    /// Sign the manifest (`--sign`).
    pub signing: Option<super::Signing>,
}

/// Times stages of a run.
#[derive(Debug, Default)]
pub(crate) struct Stopwatch {
    last: Option<Instant>,
    pub(crate) laps: Vec<(&'static str, Duration)>,
}

impl Stopwatch {
    pub(crate) fn start() -> Self {
        Stopwatch {
            last: Some(Instant::now()),
            laps: Vec::new(),
        }
    }

    pub(crate) fn lap(&mut self, stage: &'static str) {
        let now = Instant::now();
        if let Some(last) = self.last.replace(now) {
            self.laps.push((stage, now - last));
        }
    }
}
