//! casebook: a static archive site generator for evidence archives.
//!
//! One build is a pipeline of plain data:
//! `Config::load` -> `content::load` -> `render::site` -> `output::write`.
//! Each stage takes what the previous one produced and returns new data, so stages can be
//! tested alone and a failed stage leaves the previous site untouched.

pub mod check;
pub mod config;
pub mod content;
pub mod error;
pub mod init;
pub mod markdown;
pub mod output;
pub mod render;
pub mod theme;

use std::path::PathBuf;

pub use config::Config;
pub use error::{Diagnostic, Error, Result};

/// What `casebook build` and `casebook check` are asked to do.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    pub root: PathBuf,
    /// Defaults to `<root>/public`.
    pub output: Option<PathBuf>,
    /// Replaces `base_url` from the config (e.g. for a staging host).
    pub base_url: Option<String>,
    pub drafts: bool,
    /// Links name `index.html` so the site works opened from disk.
    pub portable: bool,
}

/// What a build produced, for the summary line.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub output: PathBuf,
    pub pages: usize,
    pub cases: usize,
    pub files: usize,
}

/// Everything a build computes before writing: used by `build`, `check` and tests.
pub struct Built {
    pub config: Config,
    pub corpus: content::Corpus,
    pub rendering: render::Rendering,
}

/// Loads and renders the site in memory; writes nothing.
pub fn render_site(options: &BuildOptions) -> Result<Built> {
    let mut config = Config::load(&options.root)?;
    if let Some(url) = &options.base_url {
        config.set_base_url(url)?;
    }
    // Content and theme errors are independent: report both sets together.
    let corpus = content::load(&config, options.drafts);
    let theme = theme::Theme::load(&config);
    let (corpus, theme) = match (corpus, theme) {
        (Ok(c), Ok(t)) => (c, t),
        (Err(Error::Diagnostics(mut a)), Err(Error::Diagnostics(b))) => {
            a.extend(b);
            a.sort();
            return Err(Error::Diagnostics(a));
        }
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let rendering = render::site(
        &config,
        &corpus,
        &theme,
        render::RenderOptions {
            portable: options.portable,
        },
    )?;
    Ok(Built {
        config,
        corpus,
        rendering,
    })
}

/// Builds the site and swaps it into the output folder.
pub fn build(options: &BuildOptions) -> Result<BuildReport> {
    let out = options
        .output
        .clone()
        .unwrap_or_else(|| options.root.join("public"));
    output::check_output_dir(&options.root, &out)?;
    let built = render_site(options)?;
    output::write(&built.rendering.outputs, &out)?;
    Ok(BuildReport {
        output: out,
        pages: built.rendering.pages.len(),
        cases: built
            .corpus
            .pages
            .iter()
            .filter(|p| p.case.is_some() && p.meta.lang == built.config.default_language)
            .count(),
        files: built.rendering.outputs.len(),
    })
}

/// Loads, validates and renders everything and checks every internal link; writes nothing.
pub fn check(options: &BuildOptions) -> Result<BuildReport> {
    let built = render_site(options)?;
    let problems = check::links(&built.rendering);
    if !problems.is_empty() {
        return Err(Error::Diagnostics(problems));
    }
    Ok(BuildReport {
        output: PathBuf::new(),
        pages: built.rendering.pages.len(),
        cases: built
            .corpus
            .pages
            .iter()
            .filter(|p| p.case.is_some())
            .count(),
        files: built.rendering.outputs.len(),
    })
}
