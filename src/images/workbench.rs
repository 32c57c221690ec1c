//! What the serve workbench shows of a photograph: the source as it stands (upright, at
//! screen size, unredacted, for the editor on this machine only) and the derivative exactly
//! as a build would publish it with the regions being drawn.

use image::RgbImage;

use super::decode::{decode_stored, upright};
use super::pipeline::{derive, encode_jpeg};
use crate::config::ImageConfig;
use crate::content::photos::Region;

/// The source upright, no wider than `width`, as a JPEG of its pixels alone (no metadata),
/// with its full upright size. Decoded at a reduced scale when it is wide enough.
pub(crate) fn view(
    bytes: &[u8],
    config: &ImageConfig,
    width: u32,
) -> Result<(Vec<u8>, (u32, u32)), String> {
    let stored = decode_stored(bytes, config, Some(width))?;
    let turned = super::decode::turns(stored.orientation);
    let full = match turned {
        true => (stored.full.1, stored.full.0),
        false => stored.full,
    };
    let img: RgbImage = upright(stored.pixels, stored.orientation);
    let img = if img.width() > width {
        super::pipeline::resize(&img, width)?
    } else {
        img
    };
    Ok((encode_jpeg(&img, 85)?, full))
}

/// The derivative `build` publishes with these regions at `width`: the same pipeline with
/// the site's settings. At a published width, byte for byte what `build` writes; at another
/// (the editor's screen size), made as `build` would make a size of that width.
pub(crate) fn preview(
    bytes: &[u8],
    regions: &[Region],
    config: &ImageConfig,
    width: u32,
) -> Result<Vec<u8>, String> {
    let mut widths = config.widths.clone();
    if !widths.contains(&width) {
        widths.push(width);
        widths.sort_unstable();
    }
    let with_it = ImageConfig {
        widths,
        ..config.clone()
    };
    let sizes = derive(bytes, regions, &with_it)?.sizes;
    // Never upscaled: a narrower source gives its own width.
    let best = sizes
        .iter()
        .position(|e| e.width == width)
        .unwrap_or(sizes.len().saturating_sub(1));
    sizes
        .into_iter()
        .nth(best)
        .map(|e| e.bytes)
        .ok_or_else(|| "no derivative was made".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::photos::RedactMethod;

    fn config() -> ImageConfig {
        crate::config::Config::parse(
            "title = \"T\"\nbase_url = \"https://x.org/\"\n",
            std::path::Path::new("."),
            std::path::Path::new("casebook.toml"),
        )
        .unwrap()
        .images
    }

    fn jpeg(w: u32, h: u32) -> Vec<u8> {
        let img = RgbImage::from_fn(w, h, |x, y| {
            image::Rgb([(x % 251) as u8, (y % 241) as u8, 90])
        });
        encode_jpeg(&img, 90).unwrap()
    }

    #[test]
    fn the_view_is_upright_at_screen_size_and_the_preview_is_the_published_derivative() {
        let config = config();
        let source = jpeg(1600, 1000);
        let (view, full) = view(&source, &config, 800).unwrap();
        assert_eq!(full, (1600, 1000));
        let decoded = image::load_from_memory(&view).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (800, 500));
        let regions = [Region {
            x: 0.25,
            y: 0.2,
            w: 0.5,
            h: 0.4,
            method: RedactMethod::Fill,
        }];
        let published = derive(&source, &regions, &config).unwrap();
        let at_400 = published.sizes.iter().find(|s| s.width == 400).unwrap();
        assert_eq!(
            preview(&source, &regions, &config, 400).unwrap(),
            at_400.bytes
        );
        let shown = image::load_from_memory(&preview(&source, &regions, &config, 640).unwrap())
            .unwrap()
            .to_rgb8();
        assert_eq!(shown.width(), 640);
        let fill = config.redact_color;
        let p = shown.get_pixel(320, 200);
        assert!(
            p.0.iter().zip(fill).all(|(a, b)| a.abs_diff(b) < 8),
            "{p:?}"
        );
    }
}
