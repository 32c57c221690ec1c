//! `casebook verify --redactions`: every `fill` region of every photograph the manifest
//! lists, checked in the published pixels. Each derivative is decoded and each region's
//! interior (the pixels wholly inside it, less a margin where JPEG's 8x8 blocks and halved
//! colour resolution ring against the edge) compared with the fill colour the manifest
//! records, within JPEG's loss. It proves what a visitor sees, whatever the hashes say.

use image::RgbImage;

use super::{Copy, Fetched, parse_manifest};
use crate::content::photos::RedactMethod;
use crate::error::{Diagnostic, Error, Result};
use crate::images::fill::inner_pixels;
use crate::integrity::manifest::ImageRecord;

/// Pixels left out along each edge of a region: one 8x8 block of the encoder, two of the
/// colour planes it halves being 16 wide, so the ringing of an edge never reaches in.
const MARGIN: u32 = 8;
/// The largest mean difference from the fill colour, over a region's interior and its three
/// channels: a flat area comes back from JPEG within a level or two.
const MEAN_LIMIT: f64 = 4.0;
/// The largest difference of any one channel of any one pixel.
const MAX_LIMIT: u8 = 48;
/// The largest image file read.
const IMAGE_LIMIT: u64 = 64 << 20;

/// What `casebook verify --redactions` checked when every region held.
#[derive(Debug, Default)]
pub struct RedactionsVerified {
    /// Published images with at least one `fill` region.
    pub images: usize,
    /// Regions checked (a region too small to have an interior at one size is not).
    pub regions: usize,
}

impl std::fmt::Display for RedactionsVerified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ok: {} fill redaction{} in {} published image{} solid in their colour",
            self.regions,
            if self.regions == 1 { "" } else { "s" },
            self.images,
            if self.images == 1 { "" } else { "s" }
        )
    }
}

/// Checks every `fill` region of every image of the copy at `target`.
pub(crate) fn verify_redactions(target: &str) -> Result<RedactionsVerified> {
    let copy = Copy::open(target)?;
    let manifest = parse_manifest(&copy, &copy.manifest()?)?;
    let mut done = RedactionsVerified::default();
    let mut problems = Vec::new();
    for image in &manifest.images {
        if !image
            .redactions
            .iter()
            .any(|r| r.method == RedactMethod::Fill)
        {
            continue;
        }
        done.images += 1;
        let at = copy.locate(&image.path);
        match check_image(&copy, image) {
            Ok(regions) => done.regions += regions,
            Err(found) => problems.extend(found.into_iter().map(|m| {
                Diagnostic::new(&at, m).hint("the published photograph shows what a redaction should hide: take it down, then rebuild from the sources and publish again")
            })),
        }
    }
    if problems.is_empty() {
        Ok(done)
    } else {
        Err(Error::Diagnostics(problems))
    }
}

/// How many regions of one image were checked, or what is wrong with it.
fn check_image(copy: &Copy, image: &ImageRecord) -> std::result::Result<usize, Vec<String>> {
    let Some(fill) = image.fill.as_deref().and_then(parse_colour) else {
        return Err(vec![
            "the manifest does not record the colour of its fill redactions (built before casebook recorded it): build the site again".into(),
        ]);
    };
    let normal = std::path::Path::new(&image.path)
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !normal {
        return Err(vec!["the manifest lists a path outside the site".into()]);
    }
    let bytes = match copy.fetch(&image.path, IMAGE_LIMIT) {
        Fetched::Bytes(b) => b,
        Fetched::Missing => return Err(vec!["listed in the manifest but missing".into()]),
        Fetched::Failed(m) => return Err(vec![m]),
    };
    let img = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)
        .map_err(|e| vec![format!("cannot be decoded as a JPEG: {e}")])?
        .to_rgb8();
    if img.dimensions() != (image.width, image.height) {
        let (w, h) = img.dimensions();
        return Err(vec![format!(
            "is {w}x{h}, not the {}x{} the manifest records",
            image.width, image.height
        )]);
    }
    let mut checked = 0;
    let mut found = Vec::new();
    for (i, r) in image.redactions.iter().enumerate() {
        if r.method != RedactMethod::Fill {
            continue;
        }
        let (x0, y0, x1, y1) = inner_pixels(r, image.width, image.height);
        let interior = (
            x0 + MARGIN,
            y0 + MARGIN,
            x1.saturating_sub(MARGIN),
            y1.saturating_sub(MARGIN),
        );
        let Some((mean, max)) = difference(&img, interior, fill) else {
            continue;
        };
        checked += 1;
        if mean > MEAN_LIMIT || max > MAX_LIMIT {
            found.push(format!(
                "redaction region {i} (`redact[{i}]`) is not solid {}: its pixels differ from it by {mean:.1} on average and by up to {max} (allowed: {MEAN_LIMIT} and {MAX_LIMIT})",
                image.fill.as_deref().unwrap_or_default()
            ));
        }
    }
    if found.is_empty() {
        Ok(checked)
    } else {
        Err(found)
    }
}

/// The mean and largest difference of `img`'s pixels in `(x0, y0, x1, y1)` from `fill`, per
/// channel; `None` for an empty rectangle.
fn difference(
    img: &RgbImage,
    (x0, y0, x1, y1): (u32, u32, u32, u32),
    fill: [u8; 3],
) -> Option<(f64, u8)> {
    if x0 >= x1 || y0 >= y1 {
        return None;
    }
    let (mut sum, mut max) = (0u64, 0u8);
    for y in y0..y1 {
        for x in x0..x1 {
            for (c, f) in img.get_pixel(x, y).0.iter().zip(fill) {
                let d = c.abs_diff(f);
                sum += u64::from(d);
                max = max.max(d);
            }
        }
    }
    let n = u64::from(x1 - x0) * u64::from(y1 - y0) * 3;
    Some((sum as f64 / n as f64, max))
}

/// `#rrggbb` as bytes.
fn parse_colour(text: &str) -> Option<[u8; 3]> {
    let hex = text.strip_prefix('#').filter(|h| h.len() == 6)?;
    let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
    Some([byte(0)?, byte(2)?, byte(4)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_differences() {
        assert_eq!(parse_colour("#ff00a0"), Some([255, 0, 160]));
        assert_eq!(parse_colour("ff00a0"), None);
        assert_eq!(parse_colour("#ff00a"), None);
        let img = RgbImage::from_fn(10, 10, |x, _| image::Rgb([x as u8 * 10, 0, 0]));
        assert_eq!(
            difference(&img, (0, 0, 2, 1), [0, 0, 0]),
            Some((10.0 / 6.0, 10))
        );
        assert_eq!(difference(&img, (5, 5, 5, 9), [0, 0, 0]), None);
    }
}
