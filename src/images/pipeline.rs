//! One photograph, from source bytes to published derivatives.
//!
//! decode with limits (`decode.rs`; a JPEG at least four times as wide as the largest
//! width at a reduced scale, in the decoder) -> redact at the decoded resolution (the regions, given
//! upright, mapped into the frame the pixels are stored in) -> resize to each width
//! (Lanczos3, never upscaled) -> apply the EXIF orientation to each resized image -> encode
//! JPEG from the pixels alone. Each `fill` region is laid again on every size and checked
//! in the pixels given to the encoder (`fill.rs`). Turning images upright after resizing turns a few small
//! images instead of the full-size one. Nothing of the source file but its pixels reaches
//! the output: no EXIF, GPS, XMP, IPTC, ICC profile, comment or thumbnail, because the
//! encoder is only ever given a pixel buffer. Pure: bytes in, bytes out.

use fast_image_resize as fr;
use image::RgbImage;
use image::metadata::Orientation;

use super::decode::{Stored, decode_stored, turns, upright};
use super::fill::{Rect, region_pixels};
use crate::config::ImageConfig;
use crate::content::photos::{RedactMethod, Region};

/// One encoded derivative.
#[derive(Debug, Clone)]
pub(crate) struct Encoded {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) bytes: Vec<u8>,
}

/// Everything derived from one source.
#[derive(Debug, Clone)]
pub(crate) struct Derived {
    /// One per distinct width, ascending.
    pub(crate) sizes: Vec<Encoded>,
    /// A tiny, heavily blurred version shown in place of graphic photographs.
    pub(crate) placeholder: Encoded,
}

/// A pixel rectangle of the upright image, as it lies in
/// the stored pixels (`ws` x `hs`) that `orientation` turns upright.
fn to_stored((x0, y0, x1, y1): Rect, orientation: Orientation, (ws, hs): (u32, u32)) -> Rect {
    use Orientation::*;
    match orientation {
        NoTransforms => (x0, y0, x1, y1),
        FlipHorizontal => (ws - x1, y0, ws - x0, y1),
        FlipVertical => (x0, hs - y1, x1, hs - y0),
        Rotate180 => (ws - x1, hs - y1, ws - x0, hs - y0),
        // Upright (x, y) is stored (y, hs - 1 - x), and so on.
        Rotate90 => (y0, hs - x1, y1, hs - x0),
        Rotate270 => (ws - y1, x0, ws - y0, x1),
        Rotate90FlipH => (y0, x0, y1, x1),
        Rotate270FlipH => (ws - y1, hs - x1, ws - y0, hs - x0),
    }
}

/// Applies every region at full resolution, before any resizing.
#[cfg(test)]
pub(crate) fn redact(img: &mut RgbImage, regions: &[Region], fill: [u8; 3]) {
    let (w, h) = img.dimensions();
    let rects: Vec<_> = regions
        .iter()
        .map(|r| (region_pixels(r, w, h), r.method))
        .collect();
    redact_pixels(img, &rects, fill);
}

/// Fills or pixelates each pixel rectangle.
fn redact_pixels(img: &mut RgbImage, rects: &[(Rect, RedactMethod)], fill: [u8; 3]) {
    for &((x0, y0, x1, y1), method) in rects {
        match method {
            RedactMethod::Fill => {
                for y in y0..y1 {
                    for x in x0..x1 {
                        img.put_pixel(x, y, image::Rgb(fill));
                    }
                }
            }
            RedactMethod::Pixelate => pixelate(img, (x0, y0, x1, y1)),
        }
    }
}

/// Replaces the region with a grid of flat cells. Cells are spread evenly so that none is
/// smaller than 1/12 of the region's shorter side, and never smaller than 8 pixels: a
/// sliver of narrow cells at an edge would keep detail.
fn pixelate(img: &mut RgbImage, (x0, y0, x1, y1): (u32, u32, u32, u32)) {
    let (w, h) = (x1 - x0, y1 - y0);
    if w == 0 || h == 0 {
        return;
    }
    let block = w.min(h).div_ceil(12).max(8);
    let (cols, rows) = ((w / block).max(1), (h / block).max(1));
    for row in 0..rows {
        let (cy0, cy1) = (y0 + row * h / rows, y0 + (row + 1) * h / rows);
        for col in 0..cols {
            let (cx0, cx1) = (x0 + col * w / cols, x0 + (col + 1) * w / cols);
            let mut sum = [0u64; 3];
            for y in cy0..cy1 {
                for x in cx0..cx1 {
                    let p = img.get_pixel(x, y);
                    for c in 0..3 {
                        sum[c] += u64::from(p[c]);
                    }
                }
            }
            let n = u64::from((cx1 - cx0) * (cy1 - cy0)).max(1);
            let avg = image::Rgb([(sum[0] / n) as u8, (sum[1] / n) as u8, (sum[2] / n) as u8]);
            for y in cy0..cy1 {
                for x in cx0..cx1 {
                    img.put_pixel(x, y, avg);
                }
            }
        }
    }
}

pub(super) fn resize(img: &RgbImage, width: u32) -> Result<RgbImage, String> {
    let (w, h) = img.dimensions();
    resize_to(img, width, height_at(w, h, width))
}

/// The height of a `w`x`h` image scaled to `width`, rounded.
fn height_at(w: u32, h: u32, width: u32) -> u32 {
    ((u64::from(h) * u64::from(width) + u64::from(w) / 2) / u64::from(w)).max(1) as u32
}

/// `img` resized to exactly `width`x`height` (callers never ask for a larger size).
fn resize_to(img: &RgbImage, width: u32, height: u32) -> Result<RgbImage, String> {
    if (width, height) == img.dimensions() {
        return Ok(img.clone());
    }
    let (w, h) = img.dimensions();
    let src = fr::images::ImageRef::new(w, h, img.as_raw(), fr::PixelType::U8x3)
        .map_err(|e| e.to_string())?;
    let mut dst = fr::images::Image::new(width, height, fr::PixelType::U8x3);
    let options =
        fr::ResizeOptions::new().resize_alg(fr::ResizeAlg::Convolution(fr::FilterType::Lanczos3));
    fr::Resizer::new()
        .resize(&src, &mut dst, &options)
        .map_err(|e| e.to_string())?;
    RgbImage::from_raw(width, height, dst.into_vec())
        .ok_or_else(|| "resize produced no image".to_string())
}

/// Encodes pixels as a baseline JPEG: a JFIF header, the image data, nothing else.
pub(crate) fn encode_jpeg(img: &RgbImage, quality: u8) -> Result<Vec<u8>, String> {
    let (w, h) = img.dimensions();
    let (w16, h16) = (u16::try_from(w), u16::try_from(h));
    let (Ok(w16), Ok(h16)) = (w16, h16) else {
        return Err(format!("{w}x{h} is too large for JPEG"));
    };
    let mut out = Vec::with_capacity((w * h / 4) as usize);
    let encoder = jpeg_encoder::Encoder::new(&mut out, quality);
    encoder
        .encode(img.as_raw(), w16, h16, jpeg_encoder::ColorType::Rgb)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

/// Decodes once and derives every size and the placeholder.
pub(crate) fn derive(
    bytes: &[u8],
    regions: &[Region],
    config: &ImageConfig,
) -> Result<Derived, String> {
    let Stored {
        pixels: mut img,
        orientation,
        full,
    } = decode_stored(bytes, config, Some(config.largest_width()))?;
    let stored = img.dimensions();
    let turned = turns(orientation);
    let upright_of = |(a, b): (u32, u32)| if turned { (b, a) } else { (a, b) };
    // Regions are cut from the pixels as decoded (at full scale or reduced), rounded
    // outwards there, so they cover at least what they cover at full scale.
    let (dw, dh) = upright_of(stored);
    let rects: Vec<_> = regions
        .iter()
        .map(|r| {
            (
                to_stored(region_pixels(r, dw, dh), orientation, stored),
                r.method,
            )
        })
        .collect();
    // Sizes follow the source's own, upright.
    let (w, h) = upright_of(full);
    redact_pixels(&mut img, &rects, config.redact_color);
    // Never upscaled: small sources collapse to one size. Listed smallest first, as the
    // configuration lists them.
    let mut widths: Vec<u32> = config.widths.iter().map(|&t| t.min(w)).collect();
    widths.sort_unstable();
    widths.dedup();
    // Largest first, each smaller size made from the one before rather than from the
    // source: at 4000 px, 1200 -> 400 reads a ninth of the pixels 4000 -> 400 would. Heights
    // follow the source's proportions, so every size is as if made from it.
    let mut made: Vec<RgbImage> = Vec::new();
    for &width in widths.iter().rev() {
        let height = height_at(w, h, width);
        let (sw, sh) = if turned {
            (height, width)
        } else {
            (width, height)
        };
        let from = made.last().unwrap_or(&img);
        made.push(resize_to(from, sw, sh)?);
    }
    drop(img);
    // Resampling blends the outside into a region's edge: fills are laid again on each
    // size's own grid, then checked in the very pixels the encoder is given.
    let fill = config.redact_color;
    let made: Vec<RgbImage> = made
        .into_iter()
        .rev()
        .map(|m| {
            let mut m = upright(m, orientation);
            super::fill::refill(&mut m, regions, fill);
            m
        })
        .collect();
    let sizes = made
        .iter()
        .map(|resized| {
            super::fill::check(resized, regions, fill)?;
            Ok(Encoded {
                width: resized.width(),
                height: resized.height(),
                bytes: encode_jpeg(resized, config.quality)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    // The placeholder comes from the smallest derivative: cheap, and already redacted.
    let smallest = made.first().ok_or("no image width is configured")?;
    let tiny = resize(smallest, config.placeholder_width.min(smallest.width()))?;
    let mut blurred = image::imageops::blur(&tiny, 1.6);
    super::fill::refill(&mut blurred, regions, fill);
    super::fill::check(&blurred, regions, fill)?;
    let placeholder = Encoded {
        width: blurred.width(),
        height: blurred.height(),
        bytes: encode_jpeg(&blurred, 60)?,
    };
    Ok(Derived { sizes, placeholder })
}

#[cfg(test)]
mod tests {
    use super::super::decode::{decode, reduced_scale};
    use super::*;

    fn config() -> ImageConfig {
        crate::config::Config::parse(
            "title = \"T\"\nbase_url = \"https://x.org/\"\n",
            std::path::Path::new("."),
            std::path::Path::new("casebook.toml"),
        )
        .unwrap()
        .images
    }

    fn checkerboard(w: u32, h: u32) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| {
            if (x / 4 + y / 4) % 2 == 0 {
                image::Rgb([255, 255, 0])
            } else {
                image::Rgb([0, 0, 255])
            }
        })
    }

    #[test]
    fn fill_leaves_only_the_colour() {
        let mut img = checkerboard(100, 80);
        let r = Region {
            x: 0.2,
            y: 0.25,
            w: 0.5,
            h: 0.5,
            method: RedactMethod::Fill,
        };
        redact(&mut img, &[r], [0, 0, 0]);
        let (x0, y0, x1, y1) = region_pixels(&r, 100, 80);
        assert_eq!((x0, y0, x1, y1), (20, 20, 70, 60));
        for y in y0..y1 {
            for x in x0..x1 {
                assert_eq!(img.get_pixel(x, y).0, [0, 0, 0]);
            }
        }
        assert_ne!(img.get_pixel(5, 5).0, [0, 0, 0]);
    }

    #[test]
    fn pixelate_blocks_are_at_least_a_twelfth_of_the_shorter_side() {
        let mut img = checkerboard(240, 240);
        let r = Region {
            x: 0.0,
            y: 0.0,
            w: 0.5,
            h: 1.0,
            method: RedactMethod::Pixelate,
        };
        redact(&mut img, &[r], [0, 0, 0]);
        // Region 120x240: blocks of 10 px; every block is one colour.
        for by in (0..240).step_by(10) {
            for bx in (0..120).step_by(10) {
                let first = *img.get_pixel(bx, by);
                for y in by..by + 10 {
                    for x in bx..bx + 10 {
                        assert_eq!(*img.get_pixel(x, y), first);
                    }
                }
            }
        }
    }

    #[test]
    fn uneven_regions_have_no_narrow_edge_cells() {
        let mut img = checkerboard(125, 125);
        let r = Region {
            x: 0.0,
            y: 0.0,
            w: 1.0,
            h: 1.0,
            method: RedactMethod::Pixelate,
        };
        redact(&mut img, &[r], [0, 0, 0]);
        let row: Vec<_> = (0..125).map(|x| *img.get_pixel(x, 60)).collect();
        let mut run = 1;
        for x in 1..125 {
            if row[x] == row[x - 1] {
                run += 1;
            } else {
                assert!(run >= 11, "a cell of {run} px ends at {x}");
                run = 1;
            }
        }
        assert!(run >= 11, "the last cell is {run} px");
    }

    #[test]
    fn derive_never_upscales_and_makes_a_tiny_placeholder() {
        let img = checkerboard(300, 200);
        let bytes = encode_jpeg(&img, 90).unwrap();
        let d = derive(&bytes, &[], &config()).unwrap();
        assert_eq!(
            d.sizes.len(),
            1,
            "300 px wide: both 400 and 1200 collapse to 300"
        );
        assert_eq!((d.sizes[0].width, d.sizes[0].height), (300, 200));
        assert_eq!(d.placeholder.width, 24);
    }

    #[test]
    fn smaller_sizes_made_from_larger_ones_match_the_source() {
        // Heights as the source's proportions give them, and pixels close to a direct
        // resize of the source.
        let img = RgbImage::from_fn(2401, 1799, |x, y| {
            image::Rgb([(x / 10) as u8, (y / 8) as u8, ((x + y) / 17) as u8])
        });
        let bytes = encode_jpeg(&img, 95).unwrap();
        let mut config = config();
        config.widths = vec![400, 1200];
        let d = derive(&bytes, &[], &config).unwrap();
        let dims: Vec<(u32, u32)> = d.sizes.iter().map(|s| (s.width, s.height)).collect();
        assert_eq!(
            dims,
            [
                (400, height_at(2401, 1799, 400)),
                (1200, height_at(2401, 1799, 1200))
            ]
        );
        let small = decode(&d.sizes[0].bytes, &config).unwrap();
        let direct = resize(&decode(&bytes, &config).unwrap(), 400).unwrap();
        let mean = difference(&small, &direct);
        assert!(mean < 2.0, "mean difference {mean}");
    }

    /// Like the synthetic camera photographs: smooth shading, a few sharp-edged shapes,
    /// light noise.
    fn photo_like(w: u32, h: u32) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| {
            let noise = ((x.wrapping_mul(7919) ^ y.wrapping_mul(104_729)) % 5) as u8;
            let (cx, cy) = (x as i64 - i64::from(w) / 3, y as i64 - i64::from(h) / 2);
            let disc = cx * cx + cy * cy < i64::from(h * h / 9);
            let band = (x / 37 + y / 53) % 5 == 0;
            let base = [(x * 200 / w) as u8, (y * 180 / h) as u8, 90];
            let [r, g, b] = if disc {
                [230, 200, 40]
            } else if band {
                [30, 60, 160]
            } else {
                base
            };
            image::Rgb([r.saturating_add(noise), g.saturating_add(noise), b + noise])
        })
    }

    #[test]
    fn large_jpegs_are_decoded_at_the_smallest_scale_still_twice_as_wide() {
        let mut config = config();
        config.widths = vec![50, 120];
        let bytes = encode_jpeg(&photo_like(1000, 600), 92).unwrap();
        // 1000 wide for 120 (twice: 240): 1/4 gives 250, 1/8 would give 125.
        let stored = decode_stored(&bytes, &config, Some(120)).unwrap();
        assert_eq!(stored.pixels.dimensions(), (250, 150));
        assert_eq!(stored.full, (1000, 600));
        // Without a width to reach, or with less than twice the width to spare: full scale.
        let full = decode_stored(&bytes, &config, None).unwrap();
        assert_eq!(full.pixels.dimensions(), (1000, 600));
        let wide = decode_stored(&bytes, &config, Some(251)).unwrap();
        assert_eq!(wide.pixels.dimensions(), (1000, 600));
        assert_eq!(reduced_scale((1000, 600), false, 250), 4);
        assert_eq!(reduced_scale((1000, 600), true, 250), 8, "600 wide upright");
        assert_eq!(reduced_scale((1000, 600), false, 0), 8);
        // Sizes follow the source's, and the pixels are close to those a full-scale decode
        // gives: before encoding, and through the encoder alike.
        let d = derive(&bytes, &[], &config).unwrap();
        let dims: Vec<(u32, u32)> = d.sizes.iter().map(|s| (s.width, s.height)).collect();
        assert_eq!(dims, [(50, 30), (120, 72)]);
        let from_full = resize(&full.pixels, 120).unwrap();
        let mean = difference(&resize(&stored.pixels, 120).unwrap(), &from_full);
        assert!(mean < 1.0, "mean difference before encoding {mean}");
        let published = decode(&d.sizes[1].bytes, &config).unwrap();
        let encoded = encode_jpeg(&from_full, config.quality).unwrap();
        let mean = difference(&published, &decode(&encoded, &config).unwrap());
        assert!(mean < 3.0, "mean difference after encoding {mean}");
    }

    #[test]
    fn regions_cover_the_same_pixels_when_decoded_at_a_reduced_scale() {
        // Stored sideways and turned upright, so the region is mapped into the stored
        // frame of the reduced image too.
        let mut config = config();
        config.widths = vec![300];
        config.redact_color = [255, 0, 255];
        let stored = photo_like(2400, 1280);
        let mut bytes = Vec::new();
        let mut encoder = jpeg_encoder::Encoder::new(&mut bytes, 92);
        encoder
            .add_app_segment(1, &exif_orientation(Orientation::Rotate90))
            .unwrap();
        encoder
            .encode(stored.as_raw(), 2400, 1280, jpeg_encoder::ColorType::Rgb)
            .unwrap();
        // Upright 1280x2400: twice 300 is reached at 1/2 (640 wide).
        let reduced = decode_stored(&bytes, &config, Some(300)).unwrap();
        assert_eq!(reduced.pixels.dimensions(), (1200, 640));
        let region = Region {
            x: 0.25,
            y: 0.1,
            w: 0.5,
            h: 0.3,
            method: RedactMethod::Fill,
        };
        let d = derive(&bytes, &[region], &config).unwrap();
        let published = decode(&d.sizes[0].bytes, &config).unwrap();
        assert_eq!(published.dimensions(), (300, 563));
        // Inside the region (less the edge, which JPEG blurs): the fill colour only.
        let (x0, y0, x1, y1) = region_pixels(&region, 300, 563);
        for y in y0 + 8..y1 - 8 {
            for x in x0 + 8..x1 - 8 {
                let [r, g, b] = published.get_pixel(x, y).0;
                assert!(r > 230 && g < 25 && b > 230, "({x}, {y}) is {r} {g} {b}");
            }
        }
        // Everywhere: as from a full-scale decode, redacted there.
        let mut full = decode(&bytes, &config).unwrap();
        redact(&mut full, &[region], [255, 0, 255]);
        let expected = encode_jpeg(&resize(&full, 300).unwrap(), config.quality).unwrap();
        let mean = difference(&published, &decode(&expected, &config).unwrap());
        assert!(mean < 3.0, "mean difference {mean}");
    }

    #[test]
    fn huge_headers_fail_fast() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/photos-real/broken/huge-dimensions.png"
        ))
        .unwrap();
        let err = decode(&bytes, &config()).unwrap_err();
        assert!(err.contains("limit"), "{err}");
    }

    /// Every pixel distinct: (x, y) in red and green, a mix in blue.
    fn gradient(w: u32, h: u32) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| {
            image::Rgb([(x * 5) as u8, (y * 9) as u8, ((x * 7 + y * 3) % 251) as u8])
        })
    }

    const ORIENTATIONS: [Orientation; 8] = [
        Orientation::NoTransforms,
        Orientation::FlipHorizontal,
        Orientation::Rotate180,
        Orientation::FlipVertical,
        Orientation::Rotate90FlipH,
        Orientation::Rotate90,
        Orientation::Rotate270FlipH,
        Orientation::Rotate270,
    ];

    #[test]
    fn regions_redacted_in_the_stored_frame_land_where_they_would_upright() {
        let regions = [
            (0.0, 0.0, 0.31, 0.2),
            (0.55, 0.4, 0.45, 0.6),
            (0.123, 0.777, 0.3, 0.1),
            (0.3, 0.1, 0.4, 0.35),
        ];
        for orientation in ORIENTATIONS {
            let stored = gradient(37, 23);
            let upright_first = upright(stored.clone(), orientation);
            let (w, h) = upright_first.dimensions();
            for &(x, y, rw, rh) in &regions {
                let r = Region {
                    x,
                    y,
                    w: rw,
                    h: rh,
                    method: RedactMethod::Fill,
                };
                // Redacted upright, as before...
                let mut expected = upright_first.clone();
                redact(&mut expected, &[r], [1, 2, 3]);
                // ...and redacted as stored, then turned upright: the very same pixels.
                let mut turned_after = stored.clone();
                let rect = to_stored(region_pixels(&r, w, h), orientation, stored.dimensions());
                redact_pixels(&mut turned_after, &[(rect, RedactMethod::Fill)], [1, 2, 3]);
                assert!(
                    upright(turned_after, orientation) == expected,
                    "{orientation:?} {r:?}"
                );
                // Pixelated as stored: nothing outside the region changes, and inside it
                // only a few flat cells remain of the distinct pixels.
                let mut pixelated = stored.clone();
                redact_pixels(&mut pixelated, &[(rect, RedactMethod::Pixelate)], [0, 0, 0]);
                let pixelated = upright(pixelated, orientation);
                let (x0, y0, x1, y1) = region_pixels(&r, w, h);
                let mut inside = std::collections::HashSet::new();
                for (px, py, p) in pixelated.enumerate_pixels() {
                    if (x0..x1).contains(&px) && (y0..y1).contains(&py) {
                        inside.insert(*p);
                    } else {
                        assert_eq!(p, upright_first.get_pixel(px, py), "{orientation:?}");
                    }
                }
                let area = ((x1 - x0) * (y1 - y0)) as usize;
                assert!(inside.len() * 16 <= area.max(16), "{orientation:?} {r:?}");
            }
        }
    }

    #[test]
    fn portrait_sources_come_out_upright_at_every_size() {
        // A 60x40 source stored sideways, tagged to be turned: derivatives are 40 wide.
        let mut config = config();
        config.widths = vec![20, 30, 400];
        for orientation in ORIENTATIONS {
            // Smooth, so that JPEG's loss stays small; brighter to the right and below, so
            // a turn the wrong way shows.
            let stored = RgbImage::from_fn(60, 40, |x, y| {
                image::Rgb([(x * 4) as u8, (y * 6) as u8, 128])
            });
            let mut bytes = Vec::new();
            let mut encoder = jpeg_encoder::Encoder::new(&mut bytes, 95);
            let exif = exif_orientation(orientation);
            encoder.add_app_segment(1, &exif).unwrap();
            encoder
                .encode(stored.as_raw(), 60, 40, jpeg_encoder::ColorType::Rgb)
                .unwrap();
            let d = derive(&bytes, &[], &config).unwrap();
            let dims: Vec<(u32, u32)> = d.sizes.iter().map(|e| (e.width, e.height)).collect();
            if turns(orientation) {
                assert_eq!(dims, [(20, 30), (30, 45), (40, 60)], "{orientation:?}");
            } else {
                assert_eq!(dims, [(20, 13), (30, 20), (60, 40)], "{orientation:?}");
            }
            // The largest is the source turned upright (within JPEG's loss).
            let largest = decode(&d.sizes[2].bytes, &config).unwrap();
            let expected = upright(
                decode_stored(&bytes, &config, None).unwrap().pixels,
                orientation,
            );
            let d = difference(&largest, &expected);
            assert!(d < 3.0, "{orientation:?}: {d}");
            // Turned any other way, it would differ plainly.
            let wrong = upright(
                decode_stored(&bytes, &config, None).unwrap().pixels,
                Orientation::Rotate180,
            );
            if orientation != Orientation::Rotate180 && !turns(orientation) {
                assert!(difference(&largest, &wrong) > 20.0, "{orientation:?}");
            }
        }
    }

    /// Mean absolute difference of two images of the same size.
    fn difference(a: &RgbImage, b: &RgbImage) -> f64 {
        assert_eq!(a.dimensions(), b.dimensions());
        let sum: u64 = a
            .as_raw()
            .iter()
            .zip(b.as_raw())
            .map(|(x, y)| u64::from(x.abs_diff(*y)))
            .sum();
        sum as f64 / a.as_raw().len() as f64
    }

    /// An EXIF block holding only an orientation tag.
    fn exif_orientation(orientation: Orientation) -> Vec<u8> {
        let value = (1..=8u8)
            .find(|&v| Orientation::from_exif(v) == Some(orientation))
            .unwrap();
        let mut exif = b"Exif\0\0II".to_vec();
        exif.extend_from_slice(&42u16.to_le_bytes());
        exif.extend_from_slice(&8u32.to_le_bytes());
        exif.extend_from_slice(&1u16.to_le_bytes());
        exif.extend_from_slice(&0x0112u16.to_le_bytes());
        exif.extend_from_slice(&3u16.to_le_bytes());
        exif.extend_from_slice(&1u32.to_le_bytes());
        exif.extend_from_slice(&u32::from(value).to_le_bytes());
        exif.extend_from_slice(&0u32.to_le_bytes());
        exif
    }

    #[test]
    fn the_pipeline_hands_the_encoder_solid_fills_at_every_size() {
        // Busy pixels and fractional edges at every width, turned and not: derive checks
        // each size and the placeholder, and fails if a region is not solid.
        let mut config = config();
        config.widths = vec![97, 250, 613];
        config.redact_color = [255, 0, 255];
        let img = RgbImage::from_fn(1231, 797, |x, y| {
            image::Rgb([
                (x * 7 % 256) as u8,
                (y * 13 % 256) as u8,
                ((x ^ y) % 256) as u8,
            ])
        });
        let bytes = encode_jpeg(&img, 92).unwrap();
        let region = |x, y, w, h| Region {
            x,
            y,
            w,
            h,
            method: RedactMethod::Fill,
        };
        let regions = [
            region(0.113, 0.071, 0.377, 0.419),
            region(0.6, 0.5, 0.31, 0.45),
        ];
        let derived = derive(&bytes, &regions, &config).unwrap();
        assert_eq!(derived.sizes.len(), 3);
    }
}
