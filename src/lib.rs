//! casebook: a static archive site generator for evidence archives.
//!
//! One build is a pipeline of plain data:
//! `Config::load` -> `content::load` -> `render::site` -> `output::write`.
//! Each stage takes what the previous one produced and returns new data, so stages can be
//! tested alone and a failed stage leaves the previous site untouched.

pub mod charts;
pub mod check;
pub mod config;
pub mod content;
pub mod error;
pub mod images;
pub mod init;
pub mod markdown;
pub mod output;
pub mod render;
pub mod search;
pub mod serve;
pub mod theme;

use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    /// Show progress of long image runs on stderr.
    pub progress: bool,
}

/// What a build produced, for the summary line.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub output: PathBuf,
    pub pages: usize,
    pub cases: usize,
    pub files: usize,
    /// Wall time of each stage, in order, for `--timings`.
    pub timings: Vec<(&'static str, Duration)>,
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

/// Everything a build computes before writing: used by `build`, `check` and tests.
pub struct Built {
    pub config: Config,
    pub corpus: content::Corpus,
    pub rendering: render::Rendering,
    pub images: images::ImageSet,
    timings: Vec<(&'static str, Duration)>,
}

/// Loads and renders the site in memory; writes nothing.
pub fn render_site(options: &BuildOptions) -> Result<Built> {
    render_site_with(options, false)
}

fn render_site_with(options: &BuildOptions, keep_html: bool) -> Result<Built> {
    let mut watch = Stopwatch::start();
    let mut config = Config::load(&options.root)?;
    if let Some(url) = &options.base_url {
        config.set_base_url(url)?;
    }
    // Content, link and theme errors are independent: report them all together.
    let (corpus, mut diags) = load_content(&config, options.drafts, None)?;
    watch.lap("load content");
    let theme = match theme::Theme::load(&config) {
        Ok(theme) => Some(theme),
        Err(Error::Diagnostics(d)) => {
            diags.extend(d);
            None
        }
        Err(e) => return Err(e),
    };
    watch.lap("load theme");
    let theme = match theme {
        Some(theme) if diags.is_empty() => theme,
        _ => {
            diags.sort();
            diags.dedup();
            return Err(Error::Diagnostics(diags));
        }
    };
    let progress = if options.progress {
        images::Progress::Show
    } else {
        images::Progress::Quiet
    };
    let images = images::run(&config, &corpus, progress)?;
    watch.lap("images");
    let mut rendering = render::site(
        &config,
        &corpus,
        &theme,
        &images,
        render::RenderOptions {
            portable: options.portable,
            keep_html,
        },
    )?;
    watch.lap("render");
    // Built inside the render stage (it needs the rendered text); shown on its own.
    watch
        .laps
        .push(("  of which search index", rendering.search.time));
    let manifest = images::manifest::build(&rendering.outputs, &images)?;
    rendering.outputs.push(manifest);
    watch.lap("manifest");
    Ok(Built {
        config,
        corpus,
        rendering,
        images,
        timings: watch.laps,
    })
}

/// Loads the content with every problem found in it: the files' own and, when there are
/// any, the broken `@/` links too, so a publisher sees them all in one pass. `cache` (serve)
/// re-parses only changed files.
pub(crate) fn load_content(
    config: &Config,
    drafts: bool,
    cache: Option<&mut content::ParseCache>,
) -> Result<(content::Corpus, Vec<Diagnostic>)> {
    let (corpus, mut diags) = match cache {
        Some(cache) => content::load_cached(config, drafts, cache)?,
        None => content::load_partial(config, drafts)?,
    };
    if !diags.is_empty() {
        diags.extend(render::markdown_link_errors(config, &corpus));
    }
    Ok((corpus, diags))
}

/// Builds the site and swaps it into the output folder.
pub fn build(options: &BuildOptions) -> Result<BuildReport> {
    let out = options
        .output
        .clone()
        .unwrap_or_else(|| options.root.join("public"));
    output::check_output_dir(&options.root, &out)?;
    let built = render_site(options)?;
    let mut watch = Stopwatch::start();
    output::write(&built.rendering.outputs, &out)?;
    watch.lap("write");
    let mut timings = built.timings;
    timings.extend(watch.laps);
    Ok(BuildReport {
        timings,
        output: out,
        pages: built.rendering.url_paths.len(),
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
    let built = render_site_with(options, true)?;
    let mut watch = Stopwatch::start();
    let mut problems = check::links(&built.rendering);
    problems.extend(audit(&built, &options.root.join("public")));
    if !problems.is_empty() {
        problems.sort();
        problems.dedup();
        return Err(Error::Diagnostics(problems));
    }
    watch.lap("check and audit");
    let mut timings = built.timings;
    timings.extend(watch.laps);
    Ok(BuildReport {
        timings,
        output: PathBuf::new(),
        pages: built.rendering.url_paths.len(),
        cases: built
            .corpus
            .pages
            .iter()
            .filter(|p| p.case.is_some())
            .count(),
        files: built.rendering.outputs.len(),
    })
}

/// Audits what a build would publish and, if it exists, the built output on disk.
fn audit(built: &Built, public: &std::path::Path) -> Vec<Diagnostic> {
    use rayon::prelude::*;
    // Every image-like file under content/ counts as a source, listed in [[photos]] or not.
    let mut sources = built.images.source_hashes();
    let content_files: Vec<PathBuf> = walkdir::WalkDir::new(built.config.root.join("content"))
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    sources.par_extend(content_files.par_iter().filter_map(|p| {
        let bytes = std::fs::read(p).ok()?;
        content::looks_like_image(&bytes[..bytes.len().min(16)]).then(|| {
            use sha2::Digest;
            images::hex(&sha2::Sha256::digest(&bytes))
        })
    }));
    let largest = built.config.images.largest_width();
    let mut problems: Vec<Diagnostic> = built
        .rendering
        .outputs
        .par_iter()
        .flat_map(|o| {
            let mut p = Vec::new();
            let path = std::path::Path::new("(build)").join(&o.path);
            if let Ok(bytes) = o.read() {
                images::audit::file(&path, &bytes, &sources, largest, &mut p);
            }
            p
        })
        .collect();
    for page in &built.rendering.pages {
        images::audit::html(&page.source, &page.html, &mut problems);
    }
    if public.is_dir() {
        let files: Vec<PathBuf> = walkdir::WalkDir::new(public)
            .into_iter()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_file())
            .map(|e| e.into_path())
            .collect();
        problems.par_extend(files.par_iter().flat_map(|path| {
            let mut p = Vec::new();
            if let Ok(bytes) = std::fs::read(path) {
                images::audit::file(path, &bytes, &sources, largest, &mut p);
                if path.extension().is_some_and(|e| e == "html") {
                    images::audit::html(path, &String::from_utf8_lossy(&bytes), &mut p);
                }
            }
            p
        }));
    }
    problems
}

/// Re-hashes a built or downloaded site against its `manifest.json`.
pub fn verify(dir: &std::path::Path) -> Result<images::manifest::Verified> {
    images::manifest::verify(dir)
}
