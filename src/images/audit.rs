//! The audit of a built site (`casebook check`): proves, file by file, that nothing
//! identifying left with the images.
//!
//! Reported: any image carrying a metadata segment (EXIF, XMP, IPTC, ICC, comments,
//! thumbnails), any file whose bytes are a source photograph, any image wider than the
//! largest configured width, any `<img>` without alt text.

use std::collections::HashSet;
use std::io::Cursor;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::hex;
use crate::error::Diagnostic;

/// The segments of a JPEG up to the image data: (marker, payload).
pub fn jpeg_segments(bytes: &[u8]) -> Result<Vec<(u8, &[u8])>, String> {
    if bytes.len() < 4 || bytes[0] != 0xFF || bytes[1] != 0xD8 {
        return Err("not a JPEG".into());
    }
    let mut out = Vec::new();
    let mut i = 2;
    while i + 4 <= bytes.len() {
        if bytes[i] != 0xFF {
            return Err(format!("no marker at byte {i}"));
        }
        let marker = bytes[i + 1];
        if marker == 0xD9 {
            break;
        }
        let len = usize::from(u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]));
        let end = (i + 2 + len).min(bytes.len());
        out.push((marker, &bytes[(i + 4).min(end)..end]));
        if marker == 0xDA {
            break; // entropy-coded data follows
        }
        i += 2 + len;
    }
    Ok(out)
}

/// Why a JPEG's segments are not "a plain JFIF header and image data", if they are not.
pub fn jpeg_metadata_problem(bytes: &[u8]) -> Option<String> {
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
                0xE0 => "an APP0 segment with an embedded thumbnail".to_string(),
                m => format!("a segment 0xFF{m:02X}"),
            };
            return Some(format!("carries {name}"));
        }
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

const IMAGE_EXTENSIONS: &[&str] = &[
    "jpg", "jpeg", "png", "gif", "webp", "tif", "tiff", "avif", "bmp",
];

/// Audits one published file.
pub fn file(
    path: &Path,
    bytes: &[u8],
    sources: &HashSet<String>,
    largest_width: u32,
    problems: &mut Vec<Diagnostic>,
) {
    if !sources.is_empty() && sources.contains(&hex(&Sha256::digest(bytes))) {
        problems.push(
            Diagnostic::new(path, "is a copy of a source photograph")
                .hint("sources must never be published; only derivatives made by casebook may be"),
        );
    }
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if !IMAGE_EXTENSIONS.contains(&ext.as_str()) {
        return;
    }
    let problem = if bytes.starts_with(&[0xFF, 0xD8]) {
        jpeg_metadata_problem(bytes)
    } else if bytes.starts_with(b"\x89PNG") {
        png_metadata_problem(bytes)
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
pub fn html(path: &Path, html: &str, problems: &mut Vec<Diagnostic>) {
    let mut rest = html;
    while let Some(i) = rest.find("<img") {
        let tag_end = rest[i..].find('>').map_or(rest.len(), |j| i + j);
        let tag = &rest[i..tag_end];
        if !tag.contains(" alt=") && !tag.contains(" alt ") && !tag.ends_with(" alt") {
            problems.push(
                Diagnostic::new(path, "an <img> has no alt text")
                    .hint("give every photograph alt text in its [[photos]] entry; decorative images need alt=\"\""),
            );
        }
        rest = &rest[tag_end..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_jpegs_are_plain() {
        let img = image::RgbImage::from_pixel(16, 16, image::Rgb([10, 20, 30]));
        let bytes = super::super::pipeline::encode_jpeg(&img, 80).unwrap();
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
