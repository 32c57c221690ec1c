//! The CI pipeline `casebook init` writes: GitHub Actions or GitLab CI, from the templates
//! beside this file. Both build, check, verify, sign when the key is in the CI's secrets,
//! keep the image cache between runs, derive the photographs in a job matrix
//! (`build --shard I/N`) and publish with the host's own mechanism.

use std::path::{Path, PathBuf};

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

/// Where the pipeline goes and what it names: the CI system reads it from the repository's
/// root, which may hold the site in a folder of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The repository's root: the nearest folder up from the site holding `.git`, else the
    /// site's folder.
    root: PathBuf,
    /// The site's folder from the root, `/`-separated; `.` when it is the root.
    site_dir: String,
    /// The site's image cache from the site's folder (`[images] cache_dir`).
    cache: String,
}

impl Layout {
    /// The layout of the site in `dir`, whose casebook.toml says where its cache is.
    pub(crate) fn of(dir: &Path) -> Result<Layout> {
        let (site, root) = repository(dir)?;
        let rel = site.strip_prefix(&root).unwrap_or(Path::new(""));
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let site_dir = if parts.is_empty() {
            ".".to_string()
        } else {
            parts.join("/")
        };
        if !plain_path(&site_dir) {
            return Err(Error::one(
                Diagnostic::new(dir, format!("the site's folder `{site_dir}` (from the repository's root) has characters the pipeline's paths cannot carry"))
                    .hint("name the folders from the repository's root to the site with letters, digits, `.`, `_` and `-` only"),
            ));
        }
        Ok(Layout {
            root,
            site_dir,
            cache: cache_dir(dir)?,
        })
    }

    /// `site_dir/`, or nothing for the root: what paths from the root begin with.
    fn prefix(&self) -> String {
        if self.site_dir == "." {
            String::new()
        } else {
            format!("{}/", self.site_dir)
        }
    }
}

/// The site's folder and the repository's root, both absolute: the nearest folder up from
/// the site holding `.git`, else the site's folder (which need not exist yet).
fn repository(dir: &Path) -> Result<(PathBuf, PathBuf)> {
    let mut existing = dir;
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = if parent.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    parent
                };
            }
            _ => break,
        }
    }
    let mut site = existing
        .canonicalize()
        .map_err(|e| Error::io(existing, e))?;
    site.extend(rest.iter().rev());
    let root = site
        .ancestors()
        .find(|a| a.join(".git").exists())
        .unwrap_or(&site)
        .to_path_buf();
    Ok((site, root))
}

/// `[images] cache_dir` of the site's casebook.toml, which the pipeline caches and passes
/// between jobs: it must be a folder inside the site.
fn cache_dir(dir: &Path) -> Result<String> {
    let config = dir.join("casebook.toml");
    let text = std::fs::read_to_string(&config).map_err(|e| Error::io(&config, e))?;
    let value: toml::Table = toml::from_str(&text).map_err(|e| {
        Error::one(
            Diagnostic::new(&config, format!("not valid TOML: {}", e.message()))
                .hint("run `casebook check` to see where"),
        )
    })?;
    let cache = value
        .get("images")
        .and_then(|images| images.get("cache_dir"))
        .and_then(|v| v.as_str())
        .unwrap_or(".casebook-cache");
    let path = Path::new(cache);
    let inside = path.components().all(|c| {
        matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    });
    if !inside || !plain_path(cache) || cache.trim_matches(['.', '/']).is_empty() {
        return Err(Error::one(
            Diagnostic::new(&config, format!("images.cache_dir: `{cache}` is not a folder inside the site"))
                .field("images.cache_dir")
                .hint("the CI pipeline keeps the image cache between runs and passes it between jobs, so it must be a folder below the site's, named with letters, digits, `.`, `_` and `-`: use the default, .casebook-cache"),
        ));
    }
    Ok(path
        .components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/"))
}

/// Whether a path can go into the pipeline's YAML and shell lines as it is, unquoted.
fn plain_path(path: &str) -> bool {
    path.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"._/-".contains(&b))
}

/// The pipeline's text for `shards` parallel photograph jobs.
pub(crate) fn pipeline(ci: Ci, shards: u32, layout: &Layout) -> String {
    let list: Vec<String> = (1..=shards).map(|i| i.to_string()).collect();
    let prefix = layout.prefix();
    // GitLab publishes the `public/` folder at the project's root.
    let publish = if prefix.is_empty() {
        "echo \"publishing $(find public -type f | wc -l) files\"".to_string()
    } else {
        format!("mv \"{prefix}public\" public")
    };
    ci.template()
        .replace("@VERSION@", env!("CARGO_PKG_VERSION"))
        .replace("@SHARD_LIST@", &list.join(", "))
        .replace("@SHARDS@", &shards.to_string())
        .replace("@SITE_DIR@", &layout.site_dir)
        .replace("@PREFIX@", &prefix)
        .replace("@CACHE@", &layout.cache)
        .replace("@PUBLISH@", &publish)
}

pub(super) fn refuse_to_overwrite(dir: &Path, ci: Ci, force: bool) -> Result<()> {
    let path = repository(dir)?.1.join(ci.file());
    if path.exists() && !force {
        return Err(Error::one(
            Diagnostic::new(&path, "a CI pipeline is already here")
                .hint("pass --force to replace it with casebook's, or edit it by hand"),
        ));
    }
    Ok(())
}

/// Writes the pipeline at the repository's root, and adds the folders it makes to the site's
/// `.gitignore`. Returns the files written, from the site's folder.
pub(super) fn write(dir: &Path, ci: Ci, shards: u32) -> Result<Vec<String>> {
    let layout = Layout::of(dir)?;
    let path = layout.root.join(ci.file());
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    std::fs::write(&path, pipeline(ci, shards, &layout)).map_err(|e| Error::io(&path, e))?;
    let up = "../".repeat(layout.prefix().matches('/').count());
    let mut written = vec![format!("{up}{}", ci.file())];
    let gitignore = dir.join(".gitignore");
    let mut text = match std::fs::read_to_string(&gitignore) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(&gitignore, e)),
    };
    let cache = format!("/{}", layout.cache);
    let missing: Vec<&str> = ci
        .ignored()
        .iter()
        .copied()
        .chain([cache.as_str()])
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

    fn layout(site_dir: &str, cache: &str) -> Layout {
        Layout {
            root: PathBuf::from("/repo"),
            site_dir: site_dir.into(),
            cache: cache.into(),
        }
    }

    #[test]
    fn every_placeholder_is_filled() {
        for ci in [Ci::Github, Ci::Gitlab] {
            for layout in [
                layout(".", ".casebook-cache"),
                layout("docs/archive", "cache"),
            ] {
                let text = pipeline(ci, 3, &layout);
                for placeholder in [
                    "@VERSION@",
                    "@SHARDS@",
                    "@SHARD_LIST@",
                    "@SITE_DIR@",
                    "@PREFIX@",
                    "@CACHE@",
                    "@PUBLISH@",
                ] {
                    assert!(!text.contains(placeholder), "{ci:?}: {placeholder}");
                }
                assert!(text.contains(env!("CARGO_PKG_VERSION")));
            }
        }
        let root = layout(".", ".casebook-cache");
        assert!(pipeline(Ci::Github, 3, &root).contains("shard: [1, 2, 3]"));
        assert!(pipeline(Ci::Gitlab, 3, &root).contains("parallel: 3"));
        let folder = pipeline(Ci::Gitlab, 2, &layout("docs/archive", "cache"));
        assert!(
            folder.contains("- docs/archive/cache/")
                && folder.contains("mv \"docs/archive/public\" public")
        );
    }

    #[test]
    fn the_cache_must_be_a_folder_inside_the_site() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("casebook.toml");
        for (value, ok) in [
            (None, Some(".casebook-cache")),
            (Some("./work/cache/"), Some("work/cache")),
            (Some("../cache"), None),
            (Some("/var/cache/casebook"), None),
            (Some("."), None),
            (Some("my cache"), None),
            (Some("cache#1"), None),
        ] {
            let text = value.map_or(String::new(), |v| format!("[images]\ncache_dir = {v:?}\n"));
            std::fs::write(&config, text).unwrap();
            assert_eq!(cache_dir(dir.path()).ok().as_deref(), ok, "{value:?}");
        }
    }
}
