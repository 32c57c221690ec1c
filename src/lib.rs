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
    // Content, link and theme errors are independent: report them all together.
    let (corpus, mut diags) = content::load_partial(&config, options.drafts)?;
    if !diags.is_empty() {
        diags.extend(render::markdown_link_errors(&config, &corpus));
    }
    let theme = match theme::Theme::load(&config) {
        Ok(theme) => Some(theme),
        Err(Error::Diagnostics(d)) => {
            diags.extend(d);
            None
        }
        Err(e) => return Err(e),
    };
    let theme = match theme {
        Some(theme) if diags.is_empty() => theme,
        _ => {
            diags.sort();
            diags.dedup();
            return Err(Error::Diagnostics(diags));
        }
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
