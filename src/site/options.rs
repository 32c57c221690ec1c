//! What a build is asked to do, and how long its steps took.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::Diagnostic;
use crate::images::Progress;

/// Something the publisher should know that does not fail the build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// What casebook did on its own: a stopped build's update completed or undone.
    Note(Diagnostic),
    /// Something in the site that casebook left out: a symbolic link, for example.
    Warning(Diagnostic),
}

/// Hears each [`Notice`] as it comes, so the command line can print it even when the
/// build later fails; the library itself prints nothing.
#[derive(Clone)]
pub struct Notices(pub Arc<dyn Fn(Notice) + Send + Sync>);

impl Notices {
    /// Tells `notices`, if there are any listeners.
    pub(crate) fn tell(notices: Option<&Notices>, notice: Notice) {
        if let Some(n) = notices {
            (n.0)(notice);
        }
    }
}

impl fmt::Debug for Notices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Notices(..)")
    }
}

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
    /// Publish the per-case proofs although the build is not signed (`--proofs`); a signed
    /// build always publishes them.
    pub proofs: bool,
    /// Hears notes and warnings as they come.
    pub notices: Option<Notices>,
}

impl BuildOptions {
    /// Whether the build publishes each case's Merkle proof and the chunk list.
    pub(crate) fn publishes_proofs(&self) -> bool {
        self.signing.is_some() || self.proofs
    }

    /// The options a page's rendering depends on, for its fingerprint.
    pub(crate) fn rendered_with(&self) -> String {
        let proofs = self.publishes_proofs();
        format!("{:?}", (&self.base_url, self.drafts, self.portable, proofs))
    }
}
