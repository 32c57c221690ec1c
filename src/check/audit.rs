//! The audit of a built site (`casebook check`): proves, file by file, that nothing
//! identifying left with the images.
//!
//! Reported: any image carrying a metadata segment (EXIF, XMP, IPTC, ICC, comments,
//! thumbnails), any file whose bytes are a source photograph, any image wider than the
//! largest configured width, any `<img>` without alt text.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use sha2::{Digest, Sha256};

use crate::error::Diagnostic;
use crate::hashing::hex;
use crate::site::State;

/// Every segment of a JPEG, scans included: (marker, payload). Metadata can hide between
/// the scans of a progressive JPEG or after its end, so the whole file is walked; bytes
/// after the end-of-image marker are reported as a pseudo-segment 0x00.
pub(super) fn jpeg_segments(bytes: &[u8]) -> Result<Vec<(u8, &[u8])>, String> {
    if bytes.len() < 4 || bytes[0] != 0xFF || bytes[1] != 0xD8 {
        return Err("not a JPEG".into());
    }
    let mut out = Vec::new();
    let mut i = 2;
    while i + 2 <= bytes.len() {
        if bytes[i] != 0xFF {
            return Err(format!("no marker at byte {i}"));
        }
        let marker = bytes[i + 1];
        if marker == 0xFF {
            i += 1; // fill byte
            continue;
        }
        if marker == 0xD9 {
            let rest = &bytes[i + 2..];
            if rest.iter().any(|&b| b != 0) {
                out.push((0x00, rest));
            }
            return Ok(out);
        }
        if i + 4 > bytes.len() {
            break;
        }
        let len = usize::from(u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]));
        let end = (i + 2 + len).min(bytes.len());
        out.push((marker, &bytes[(i + 4).min(end)..end]));
        i += 2 + len;
        if marker == 0xDA {
            // Entropy-coded data: skip to the next marker that is not a stuffed byte or
            // a restart marker.
            while i + 1 < bytes.len()
                && !(bytes[i] == 0xFF
                    && bytes[i + 1] != 0
                    && !(0xD0..=0xD7).contains(&bytes[i + 1]))
            {
                i += 1;
            }
        }
    }
    Err("the JPEG has no end-of-image marker".into())
}

/// Why a JPEG's segments are not "a plain JFIF header and image data", if they are not.
pub(super) fn jpeg_metadata_problem(bytes: &[u8]) -> Option<String> {
    let segments = match jpeg_segments(bytes) {
        Ok(s) => s,
        Err(e) => return Some(e),
    };
    for (marker, payload) in segments {
        let ok = match marker {
            0xE0 => payload.starts_with(b"JFIF\0") && payload.len() <= 16,
            0xDB | 0xC0 | 0xC1 | 0xC2 | 0xC4 | 0xDD | 0xDA => true,
            _ => false,
        };
        if !ok {
            let name = match marker {
                0xE1 => "an APP1 segment (EXIF, GPS or XMP)".to_string(),
                0xE2 => "an APP2 segment (ICC profile)".to_string(),
                0xED => "an APP13 segment (IPTC)".to_string(),
                0xFE => "a comment segment".to_string(),
                0x00 => "data after the end of the image".to_string(),
                0xE0 => "an APP0 segment with an embedded thumbnail".to_string(),
                m => format!("a segment 0xFF{m:02X}"),
            };
            return Some(format!("carries {name}"));
        }
    }
    None
}

/// WebP chunks that carry EXIF, XMP or an ICC profile.
fn webp_metadata_problem(bytes: &[u8]) -> Option<String> {
    let mut i = 12;
    while i + 8 <= bytes.len() {
        let kind = &bytes[i..i + 4];
        let len =
            u32::from_le_bytes([bytes[i + 4], bytes[i + 5], bytes[i + 6], bytes[i + 7]]) as usize;
        if matches!(kind, b"EXIF" | b"XMP " | b"ICCP") {
            return Some(format!(
                "carries a WebP {} chunk",
                String::from_utf8_lossy(kind).trim()
            ));
        }
        i += 8 + len + (len & 1);
    }
    None
}

/// PNG chunks that carry text, EXIF, ICC profiles or times.
fn png_metadata_problem(bytes: &[u8]) -> Option<String> {
    let mut i = 8;
    while i + 8 <= bytes.len() {
        let len = u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]) as usize;
        let kind = &bytes[i + 4..i + 8];
        if matches!(
            kind,
            b"tEXt" | b"iTXt" | b"zTXt" | b"eXIf" | b"iCCP" | b"tIME"
        ) {
            return Some(format!("carries a {} chunk", String::from_utf8_lossy(kind)));
        }
        i += 12 + len;
    }
    None
}

/// Audits what a build would publish and, if it exists, the built output on disk at
/// `public`: no source photograph, no metadata, nothing larger than configured, alt text on
/// every image.
pub(super) fn site(built: &State, public: &Path) -> Vec<Diagnostic> {
    // Every image-like file under content/ counts as a source, listed in [[photos]] or not.
    let mut sources = built.images.source_hashes();
    let content_files = files_below(&built.config.root.join("content"));
    sources.par_extend(content_files.par_iter().filter_map(|p| {
        let bytes = std::fs::read(p).ok()?;
        crate::content::looks_like_image(&bytes[..bytes.len().min(16)])
            .then(|| hex(&Sha256::digest(&bytes)))
    }));
    let largest = built.config.images.largest_width();
    let mut problems: Vec<Diagnostic> = built
        .files
        .par_iter()
        .flat_map(|(path, o)| {
            let mut p = Vec::new();
            let path = Path::new("(build)").join(path);
            if let Ok(bytes) = o.read() {
                file(&path, &bytes, &sources, largest, &mut p);
            }
            p
        })
        .collect();
    for page in &built.pages {
        html(&page.source, &page.html, &mut problems);
    }
    if public.is_dir() {
        let files = files_below(public);
        problems.par_extend(files.par_iter().flat_map(|path| {
            let mut p = Vec::new();
            if let Ok(bytes) = std::fs::read(path) {
                file(path, &bytes, &sources, largest, &mut p);
                if path.extension().is_some_and(|e| e == "html") {
                    html(path, &String::from_utf8_lossy(&bytes), &mut p);
                }
            }
            p
        }));
    }
    problems
}

fn files_below(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect()
}

/// Audits one published file.
fn file(
    path: &Path,
    bytes: &[u8],
    sources: &rustc_hash::FxHashSet<String>,
    largest_width: u32,
    problems: &mut Vec<Diagnostic>,
) {
    if !sources.is_empty() && sources.contains(&hex(&Sha256::digest(bytes))) {
        problems.push(
            Diagnostic::new(path, "is a copy of a source photograph")
                .hint("sources must never be published; only derivatives made by casebook may be"),
        );
    }
    // Judge by content, not by name: `.jfif`, `.bak` or no extension at all.
    let head = &bytes[..bytes.len().min(16)];
    if !crate::content::looks_like_image(head) {
        return;
    }
    let problem = if bytes.starts_with(&[0xFF, 0xD8]) {
        jpeg_metadata_problem(bytes)
    } else if bytes.starts_with(b"\x89PNG") {
        png_metadata_problem(bytes)
    } else if bytes.starts_with(b"RIFF") {
        webp_metadata_problem(bytes)
    } else if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
        Some(
            "is a TIFF file, whose tags can carry any metadata (casebook never publishes TIFF)"
                .into(),
        )
    } else {
        None
    };
    if let Some(p) = problem {
        problems.push(Diagnostic::new(path, format!("image {p}")).hint(
            "publish photographs through [[photos]] so they are re-encoded without metadata",
        ));
    }
    let dims = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok()
        .and_then(|r| r.into_dimensions().ok());
    if let Some((w, _)) = dims {
        if largest_width > 0 && w > largest_width {
            problems.push(
                Diagnostic::new(path, format!("image is {w} px wide, wider than the largest configured width {largest_width}"))
                    .hint("a full-resolution image may carry detail the derivatives leave out"),
            );
        }
    }
}

/// `<img>` elements without an alt attribute in one HTML page.
fn html(path: &Path, html: &str, problems: &mut Vec<Diagnostic>) {
    let missing = crate::html::page_links(html).images_without_alt;
    for _ in 0..missing {
        problems.push(
            Diagnostic::new(path, "an <img> has no alt text")
                .hint("give every photograph alt text in its [[photos]] entry; decorative images need alt=\"\""),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_jpegs_are_plain() {
        let img = image::RgbImage::from_pixel(16, 16, image::Rgb([10, 20, 30]));
        let bytes = crate::images::pipeline::encode_jpeg(&img, 80).unwrap();
        assert_eq!(jpeg_metadata_problem(&bytes), None);
    }

    #[test]
    fn exif_is_detected() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/photos-real/gps/DSCN0010.jpg"
        ))
        .unwrap();
        assert!(jpeg_metadata_problem(&bytes).unwrap().contains("APP1"));
    }

    #[test]
    fn img_without_alt_is_reported() {
        let mut p = Vec::new();
        html(
            Path::new("a.html"),
            r#"<img src="a.jpg"><img alt="" src="b.jpg"><img src=c.jpg alt=x>"#,
            &mut p,
        );
        assert_eq!(p.len(), 1);
    }
}
