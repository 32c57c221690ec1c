//! `[[photos]]` in front matter: which photographs a page publishes, and how.
//!
//! Every entry is checked here, before any pixel is read: the file must exist inside the
//! page's folder (no `..`, no absolute path, no symlink leading outside), the alt text must
//! be written, redaction regions must lie within the image. Errors name the page file, the
//! photo and the line of its `[[photos]]` entry.

use std::path::{Component, Path, PathBuf};

use super::review::{self, Review};
pub(crate) use super::{RedactMethod, Region};
use crate::config::Sensitivity;
use crate::error::{Diagnostic, did_you_mean};

const PHOTO_KEYS: [&str; 7] = [
    "file",
    "alt",
    "caption",
    "sensitivity",
    "source_sha256",
    "redact",
    "reviewed",
];
const REGION_KEYS: [&str; 5] = ["x", "y", "w", "h", "method"];

/// One photograph a page publishes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PhotoSpec {
    /// The file name as written in front matter.
    pub(crate) file: String,
    /// Absolute path of the source.
    pub(crate) source: PathBuf,
    /// The source relative to the site root, for messages and the manifest.
    pub(crate) display: PathBuf,
    pub(crate) alt: String,
    pub(crate) caption: Option<String>,
    /// Set on a translated page when the alt text or the caption is still the original's:
    /// that language's code, for a `lang` attribute.
    pub(crate) alt_lang: Option<String>,
    pub(crate) caption_lang: Option<String>,
    pub(crate) sensitivity: Sensitivity,
    /// Lowercase hex, if the publisher pinned the source.
    pub source_sha256: Option<String>,
    pub(crate) redact: Vec<Region>,
    /// Who reviewed it, when, and what the review covered (`reviewed = { ... }`).
    pub(crate) reviewed: Option<Review>,
    /// Where the entry was written: the page file, the entry's position and line.
    pub(crate) page: PathBuf,
    pub(crate) index: usize,
    pub(crate) line: usize,
    /// The source's path and the regions, independent of the source's contents: the same
    /// file with the same redactions is one image job, wherever it is used. Made once when
    /// the file is parsed, as every rebuild looks each photograph up by it.
    pub(crate) key: String,
}

/// `PhotoSpec::key` of a source shown at `display` with `redact`.
fn photo_key(display: &Path, redact: &[Region]) -> String {
    use std::fmt::Write as _;
    let mut key = display.to_string_lossy().into_owned();
    for r in redact {
        let _ = write!(key, "|{:?}:{}:{}:{}:{}", r.method, r.x, r.y, r.w, r.h);
    }
    key
}

/// Where a page's `photos` value stands: its page and folder, and the front matter it was
/// read from.
pub(crate) struct Site<'a> {
    /// The front matter's text, for the line of each `[[photos]]` table.
    pub(crate) front_matter: &'a str,
    /// The line of the `photos` key.
    pub(crate) key_line: usize,
    /// The page's display path, for diagnostics.
    pub(crate) page: &'a Path,
    /// The page's folder on disk, and as it is displayed.
    pub(crate) dir: &'a Path,
    pub(crate) display_dir: &'a Path,
    /// What photographs of this page are unless they say otherwise.
    pub(crate) default_sensitivity: Sensitivity,
}

/// Parses the `photos` value of a page.
pub(crate) fn parse(value: &toml::Value, at: Site, diags: &mut Vec<Diagnostic>) -> Vec<PhotoSpec> {
    let Site {
        front_matter,
        key_line,
        page,
        dir,
        display_dir,
        default_sensitivity,
    } = at;
    let Some(entries) = value.as_array() else {
        diags.push(
            Diagnostic::new(page, "expected a list of photographs")
                .at(key_line, 1)
                .field("photos")
                .hint("write each photograph as a [[photos]] table with file = \"...\" and alt = \"...\""),
        );
        return Vec::new();
    };
    // Lines of the `[[photos]]` headers, so each entry's errors point at it.
    let header_lines: Vec<usize> = front_matter
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim();
            l.strip_prefix("[[photos]]")
                .is_some_and(|rest| rest.trim().is_empty() || rest.trim_start().starts_with('#'))
        })
        .map(|(i, _)| i + 2) // +1 for 1-based, +1 for the opening delimiter line
        .collect();
    let mut out = Vec::new();
    // The folder's real path, once for all its photographs.
    let real_dir = std::cell::OnceCell::new();
    for (i, entry) in entries.iter().enumerate() {
        let line = header_lines.get(i).copied().unwrap_or(key_line);
        let field = |k: &str| format!("photos[{i}].{k}");
        let before = diags.len();
        let Some(table) = entry.as_table() else {
            diags.push(
                Diagnostic::new(page, "each photograph must be a table")
                    .at(line, 1)
                    .field(format!("photos[{i}]")),
            );
            continue;
        };
        for key in table.keys().filter(|k| !PHOTO_KEYS.contains(&k.as_str())) {
            diags.push(
                Diagnostic::new(page, format!("unknown photo key `{key}`"))
                    .at(line, 1)
                    .field(field(key))
                    .hint(
                        did_you_mean(key, PHOTO_KEYS)
                            .unwrap_or_else(|| format!("known keys: {}", PHOTO_KEYS.join(", "))),
                    ),
            );
        }
        let text = |k: &str| {
            table
                .get(k)
                .and_then(toml::Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
        };
        let file = text("file");
        let alt = text("alt");
        if file.is_none() {
            diags.push(
                Diagnostic::new(page, "every photograph needs a file")
                    .at(line, 1)
                    .field(field("file"))
                    .hint("add file = \"photo-1.jpg\", the name of an image beside this page"),
            );
        }
        // Published as `<stem>.<hash>.<width>.jpg` (src/images): up to 24 bytes more.
        let stem = file
            .and_then(|f| Path::new(f).file_stem())
            .map(|s| slug::slugify(s.to_string_lossy()));
        if let Some(problem) = stem.and_then(|s| crate::output::name_too_long(&s, 24)) {
            diags.push(
                Diagnostic::new(
                    page,
                    format!("the photograph's file name is too long to publish: {problem}"),
                )
                .at(line, 1)
                .field(field("file"))
                .hint("rename the image file to a shorter name"),
            );
        }
        if alt.is_none() {
            diags.push(
                Diagnostic::new(page, format!("photograph {} has no alt text", file.unwrap_or("?")))
                    .at(line, 1)
                    .field(field("alt"))
                    .hint("describe what the image shows without identifying anyone, e.g. alt = \"Upper body; face redacted\""),
            );
        }
        let sensitivity = match table.get("sensitivity") {
            None => default_sensitivity,
            Some(v) => match v.as_str().and_then(Sensitivity::parse) {
                Some(s) => s,
                None => {
                    diags.push(
                        Diagnostic::new(page, format!("unknown sensitivity {v}"))
                            .at(line, 1)
                            .field(field("sensitivity"))
                            .hint(format!("use one of: {}", Sensitivity::NAMES.join(", "))),
                    );
                    default_sensitivity
                }
            },
        };
        let source_sha256 = match table.get("source_sha256") {
            None => None,
            Some(v) => match v.as_str().map(str::to_ascii_lowercase) {
                Some(h) if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) => Some(h),
                _ => {
                    diags.push(
                        Diagnostic::new(page, "source_sha256 must be 64 hexadecimal characters")
                            .at(line, 1)
                            .field(field("source_sha256"))
                            .hint("compute it with `sha256sum FILE`, or remove the key"),
                    );
                    None
                }
            },
        };
        let redact = parse_regions(table.get("redact"), page, line, i, diags);
        let reviewed = table
            .get("reviewed")
            .and_then(|v| review::parse(v, page, line, i, diags));
        let source = file.and_then(|f| match resolve_inside(dir, &real_dir, f) {
            Ok(p) => Some(p),
            Err(message) => {
                diags.push(
                    Diagnostic::new(page, format!("photograph `{f}`: {message}"))
                        .at(line, 1)
                        .field(field("file"))
                        .hint("photographs must be files inside this page's own folder, named without `..` or a leading `/`"),
                );
                None
            }
        });
        if diags.len() > before {
            continue;
        }
        let (Some(file), Some(alt), Some(source)) = (file, alt, source) else {
            continue;
        };
        let display = display_dir.join(file);
        out.push(PhotoSpec {
            key: photo_key(&display, &redact),
            display,
            file: file.to_string(),
            source,
            alt: alt.to_string(),
            caption: text("caption").map(str::to_string),
            alt_lang: None,
            caption_lang: None,
            sensitivity,
            source_sha256,
            redact,
            reviewed,
            page: page.to_path_buf(),
            index: i,
            line,
        });
    }
    out
}

/// The file's real path, if it stays inside `dir` (symlinks resolved; `real_dir` keeps the
/// folder's own real path once resolved).
fn resolve_inside(
    dir: &Path,
    real_dir: &std::cell::OnceCell<Option<PathBuf>>,
    file: &str,
) -> Result<PathBuf, String> {
    let rel = Path::new(file);
    if rel.is_absolute() || rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err("the path leaves the page's folder".into());
    }
    let path = dir.join(rel);
    let real_dir = real_dir
        .get_or_init(|| std::fs::canonicalize(dir).ok())
        .as_ref()
        .ok_or("the page's folder cannot be read")?;
    // A plain file named directly in the folder (the usual case, tens of thousands of times
    // at archive scale) is where it says: one lstat instead of resolving every component.
    if rel.components().count() == 1 {
        let meta = std::fs::symlink_metadata(&path).map_err(|_| "the file does not exist")?;
        if meta.is_file() {
            return Ok(real_dir.join(rel));
        }
    }
    let real = std::fs::canonicalize(&path).map_err(|_| "the file does not exist".to_string())?;
    if !real.starts_with(real_dir) {
        return Err("the file is a link to somewhere outside the page's folder".into());
    }
    if !real.is_file() {
        return Err("it is not a file".into());
    }
    Ok(real)
}

fn parse_regions(
    value: Option<&toml::Value>,
    page: &Path,
    line: usize,
    photo: usize,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Region> {
    let Some(value) = value else {
        return Vec::new();
    };
    let field = |j: usize, k: &str| format!("photos[{photo}].redact[{j}].{k}");
    let Some(items) = value.as_array() else {
        diags.push(
            Diagnostic::new(page, "redact must be a list of regions")
                .at(line, 1)
                .field(format!("photos[{photo}].redact"))
                .hint("write redact = [ { x = 0.3, y = 0.05, w = 0.4, h = 0.3 } ]"),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (j, item) in items.iter().enumerate() {
        let Some(t) = item.as_table() else {
            diags.push(
                Diagnostic::new(page, "each region must be a table { x, y, w, h }")
                    .at(line, 1)
                    .field(format!("photos[{photo}].redact[{j}]")),
            );
            continue;
        };
        for key in t.keys().filter(|k| !REGION_KEYS.contains(&k.as_str())) {
            diags.push(
                Diagnostic::new(page, format!("unknown region key `{key}`"))
                    .at(line, 1)
                    .field(field(j, key))
                    .maybe_hint(did_you_mean(key, REGION_KEYS)),
            );
        }
        let num = |k: &str| match t.get(k) {
            Some(toml::Value::Float(f)) => Some(*f),
            Some(toml::Value::Integer(i)) => Some(*i as f64),
            _ => None,
        };
        let mut bad = false;
        let mut get = |k: &str| match num(k) {
            Some(v) if (0.0..=1.0).contains(&v) => v,
            _ => {
                bad = true;
                diags.push(
                    Diagnostic::new(page, format!("region {k} must be a fraction from 0 to 1"))
                        .at(line, 1)
                        .field(field(j, k))
                        .hint("regions are fractions of the upright image: x = 0.3 means 30% from the left edge"),
                );
                0.0
            }
        };
        let (x, y, w, h) = (get("x"), get("y"), get("w"), get("h"));
        if !bad && (w <= 0.0 || h <= 0.0 || x + w > 1.0 + 1e-9 || y + h > 1.0 + 1e-9) {
            bad = true;
            diags.push(
                Diagnostic::new(page, "the region is empty or extends beyond the image")
                    .at(line, 1)
                    .field(format!("photos[{photo}].redact[{j}]"))
                    .hint("keep x + w and y + h at most 1, with w and h above 0"),
            );
        }
        let method = match t.get("method").map(|m| m.as_str()) {
            None | Some(Some("fill")) => RedactMethod::Fill,
            Some(Some("pixelate")) => RedactMethod::Pixelate,
            Some(_) => {
                bad = true;
                diags.push(
                    Diagnostic::new(page, "unknown redaction method")
                        .at(line, 1)
                        .field(field(j, "method"))
                        .hint("use method = \"fill\" (the default, safest) or \"pixelate\""),
                );
                RedactMethod::Fill
            }
        };
        if !bad {
            out.push(Region { x, y, w, h, method });
        }
    }
    out
}
