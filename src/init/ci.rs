//! The CI pipeline `casebook init` writes: GitHub Actions or GitLab CI, from the templates
//! beside this file. Both build, check, verify, sign when the key is in the CI's secrets,
//! keep the image cache between runs, derive the photographs in a job matrix
//! (`build --shard I/N`) and publish with the host's own mechanism.

use std::path::Path;

use crate::error::{Diagnostic, Error, Result};

/// Parallel photograph jobs when `--shards` is not given: enough to matter at archive scale,
/// few enough for a free plan's concurrent-job limit.
pub const DEFAULT_SHARDS: u32 = 4;
/// The most parallel photograph jobs a pipeline is written for.
pub const MAX_SHARDS: u32 = 64;

/// A CI system `casebook init` writes a pipeline for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ci {
    /// GitHub Actions, publishing on GitHub Pages.
    Github,
    /// GitLab CI, publishing on GitLab Pages.
    Gitlab,
}

impl Ci {
    fn file(self) -> &'static str {
        match self {
            Ci::Github => ".github/workflows/casebook.yml",
            Ci::Gitlab => ".gitlab-ci.yml",
        }
    }

    fn template(self) -> &'static str {
        match self {
            Ci::Github => include_str!("github.yml"),
            Ci::Gitlab => include_str!("gitlab-ci.yml"),
        }
    }

    /// Folders the pipeline makes inside the site folder, which no commit should carry.
    fn ignored(self) -> &'static [&'static str] {
        match self {
            Ci::Github => &[],
            Ci::Gitlab => &["/.casebook-bin", "/.casebook-part"],
        }
    }
}

/// The pipeline's text for `shards` parallel photograph jobs.
pub(crate) fn pipeline(ci: Ci, shards: u32) -> String {
    let list: Vec<String> = (1..=shards).map(|i| i.to_string()).collect();
    ci.template()
        .replace("@VERSION@", env!("CARGO_PKG_VERSION"))
        .replace("@SHARD_LIST@", &list.join(", "))
        .replace("@SHARDS@", &shards.to_string())
}

pub(super) fn refuse_to_overwrite(dir: &Path, ci: Ci, force: bool) -> Result<()> {
    let path = dir.join(ci.file());
    if path.exists() && !force {
        return Err(Error::one(
            Diagnostic::new(&path, "a CI pipeline is already here")
                .hint("pass --force to replace it with casebook's, or edit it by hand"),
        ));
    }
    Ok(())
}

/// Writes the pipeline, and adds the folders it makes to `.gitignore`.
pub(super) fn write(dir: &Path, ci: Ci, shards: u32) -> Result<Vec<String>> {
    let path = dir.join(ci.file());
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    std::fs::write(&path, pipeline(ci, shards)).map_err(|e| Error::io(&path, e))?;
    let mut written = vec![ci.file().to_string()];
    let gitignore = dir.join(".gitignore");
    let mut text = match std::fs::read_to_string(&gitignore) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(&gitignore, e)),
    };
    let missing: Vec<&str> = ci
        .ignored()
        .iter()
        .copied()
        .filter(|line| !text.lines().any(|l| l.trim() == *line))
        .collect();
    if !missing.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("# Made by the CI pipeline.\n");
        for line in missing {
            text.push_str(line);
            text.push('\n');
        }
        std::fs::write(&gitignore, text).map_err(|e| Error::io(&gitignore, e))?;
        written.push(".gitignore".into());
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_placeholder_is_filled() {
        for ci in [Ci::Github, Ci::Gitlab] {
            let text = pipeline(ci, 3);
            for placeholder in ["@VERSION@", "@SHARDS@", "@SHARD_LIST@"] {
                assert!(!text.contains(placeholder), "{ci:?}: {placeholder}");
            }
            assert!(text.contains(env!("CARGO_PKG_VERSION")));
        }
        assert!(pipeline(Ci::Github, 3).contains("shard: [1, 2, 3]"));
        assert!(pipeline(Ci::Gitlab, 3).contains("parallel: 3"));
    }
}
