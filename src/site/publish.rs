//! Where a one-shot build (`casebook build`) is going: the output folder as the build found
//! it, and what the write stage records of each page. Before anything is loaded, the
//! folder is checked, locked and put in order after a build that was stopped while writing
//! it; then it is scanned on another thread while the content loads (the one waits on the
//! disk, the other mostly on the CPU).

use std::path::PathBuf;
use std::thread::JoinHandle;

use super::{Notice, Notices, cache_file};
use crate::config::Config;
use crate::error::Result;
use crate::output;

/// The output folder of a one-shot build as the build found it, and what the write stage
/// records of each page.
#[derive(Debug, Default)]
pub(crate) struct Publishing {
    pub(crate) out: PathBuf,
    /// Scanned while the content loads; `None` until then.
    pub(crate) prior: Option<std::sync::Arc<output::Prior>>,
    /// Each rendered page's fingerprint, by output path.
    pub(crate) fingerprints: output::PathMap<output::Fingerprint>,
    /// The SHA-256 of the files the manifest hashed, for the write step.
    pub(crate) digests: output::Digests,
    /// The pages, written beside the output while the build goes on.
    pub(crate) stage: Option<output::Stage>,
    /// Held from before the folder is looked at until the build ends.
    pub(crate) lock: Option<output::Lock>,
    /// The time-stamp tokens this build publishes, to record once they are written.
    pub(crate) tokens: Option<(super::tokens::Record, Vec<super::tokens::Received>)>,
    /// The files below `content/` the up-to-date check's walk found, for the build to load
    /// without listing them again (`site::up_to_date::Before`).
    pub(crate) content_files: Option<crate::content::WalkedFiles>,
    /// Caches kept before the output folder existed (a first build), to seal once written.
    pub(crate) unsealed: Vec<output::sealed::Unsealed>,
    /// Caches being saved on threads of their own (`output::sealed::save_or_defer_aside`).
    pub(crate) saving: Vec<output::sealed::Saving>,
}

impl super::Session {
    /// A one-shot build that loads the files `content/` holds as listed (`content_files`)
    /// rather than listing the folder again; `None` lists it.
    pub(crate) fn with_content_files(
        mut self,
        files: Option<crate::content::WalkedFiles>,
    ) -> super::Session {
        if let Some(publishing) = self.publishing.as_mut() {
            publishing.content_files = files;
        }
        self
    }
}

impl Publishing {
    /// Whole-site files as the last build published them, when each is untouched and
    /// recorded under `fingerprint` (a hash of everything they are made from); `None` when
    /// any is not, or before the output was scanned. The fingerprint is recorded for the
    /// next build either way.
    pub(super) fn published(
        &mut self,
        paths: &[&str],
        fingerprint: output::Fingerprint,
    ) -> Option<Vec<output::Output>> {
        let prior = self.prior.as_deref()?;
        let published: Option<Vec<output::Output>> = (paths.iter())
            .map(|path| prior.published(path, fingerprint))
            .collect();
        for path in paths {
            self.fingerprints.insert(path.to_string(), fingerprint);
        }
        published
    }

    /// Checks, locks and recovers the output folder, then starts scanning it. A build
    /// stopped after its commit is completed first, even if this one fails: the output is
    /// then whole again.
    pub(super) fn open(
        &mut self,
        config: &Config,
        notices: Option<&Notices>,
    ) -> Result<JoinHandle<Result<output::Prior>>> {
        let cache = config.root.join(&config.images.cache_dir);
        output::check_output_dir(&config.root, &self.out, &cache)?;
        self.lock = Some(output::Lock::take(&self.out)?);
        let record = cache_file(config, output::RECORD_FILE);
        for done in output::recover(&self.out, &record)? {
            let notice = match done {
                output::Recovery::Done(d) => Notice::Note(d),
                output::Recovery::Refused(d) => Notice::Warning(d),
            };
            Notices::tell(notices, notice);
        }
        let out = self.out.clone();
        Ok(std::thread::spawn(move || {
            output::Prior::load(&out, &record)
        }))
    }
}
