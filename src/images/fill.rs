//! The second line of defence behind the redaction code: every `fill` region is filled
//! again on each derivative's own pixel grid after resizing (resampling blends the
//! outside into a region's edge), then checked, pixel by pixel, in the very buffer handed
//! to the encoder. A pixel inside a region that is not exactly the fill colour fails the
//! build, naming the region. Both cost the regions' area, not the image's.

use image::RgbImage;

use crate::content::photos::{RedactMethod, Region};

/// A pixel rectangle `(x0, y0, x1, y1)`, ends excluded.
pub(super) type Rect = (u32, u32, u32, u32);

/// The pixel rectangle of a region, rounded outwards so no partly covered pixel survives.
pub(super) fn region_pixels(r: &Region, width: u32, height: u32) -> Rect {
    let x0 = (r.x * f64::from(width)).floor().max(0.0) as u32;
    let y0 = (r.y * f64::from(height)).floor().max(0.0) as u32;
    let x1 = ((r.x + r.w) * f64::from(width))
        .ceil()
        .min(f64::from(width)) as u32;
    let y1 = ((r.y + r.h) * f64::from(height))
        .ceil()
        .min(f64::from(height)) as u32;
    (x0, y0, x1.max(x0), y1.max(y0))
}

/// Fills every `fill` region of `img` (upright, at its own size), rounded outwards as the
/// redaction code rounds, so a pixel the region's edge crosses is filled too.
pub(super) fn refill(img: &mut RgbImage, regions: &[Region], fill: [u8; 3]) {
    let (w, h) = img.dimensions();
    for r in regions.iter().filter(|r| r.method == RedactMethod::Fill) {
        let (x0, y0, x1, y1) = region_pixels(r, w, h);
        for y in y0..y1 {
            for x in x0..x1 {
                img.put_pixel(x, y, image::Rgb(fill));
            }
        }
    }
}

/// The pixels entirely inside a region on a `width` x `height` grid, `(x0, y0, x1, y1)`
/// with ends excluded: a pixel the region's edge crosses is left out, so the set is one
/// any correct redaction covers, however it rounds.
pub(crate) fn inner_pixels(r: &Region, width: u32, height: u32) -> (u32, u32, u32, u32) {
    let (w, h) = (f64::from(width), f64::from(height));
    let x0 = (r.x * w).ceil().clamp(0.0, w) as u32;
    let y0 = (r.y * h).ceil().clamp(0.0, h) as u32;
    let x1 = ((r.x + r.w) * w).floor().clamp(0.0, w) as u32;
    let y1 = ((r.y + r.h) * h).floor().clamp(0.0, h) as u32;
    (x0, y0, x1.max(x0), y1.max(y0))
}

/// Checks that every pixel inside each `fill` region of `img` (upright) is exactly `fill`;
/// the error names the region's index in `redact` and the first pixel that is not.
pub(super) fn check(img: &RgbImage, regions: &[Region], fill: [u8; 3]) -> Result<(), String> {
    let (w, h) = img.dimensions();
    for (i, r) in regions.iter().enumerate() {
        if r.method != RedactMethod::Fill {
            continue;
        }
        let (x0, y0, x1, y1) = inner_pixels(r, w, h);
        for y in y0..y1 {
            for x in x0..x1 {
                let p = img.get_pixel(x, y).0;
                if p != fill {
                    return Err(format!(
                        "redaction region {i} (`redact[{i}]`) is not solid {} in the {w}x{h} derivative: pixel ({x}, {y}) is {}; nothing was published",
                        colour(fill),
                        colour(p)
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `#rrggbb`.
pub(crate) fn colour([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(x: f64, y: f64, w: f64, h: f64) -> Region {
        Region {
            x,
            y,
            w,
            h,
            method: RedactMethod::Fill,
        }
    }

    #[test]
    fn the_inner_set_leaves_out_pixels_the_edge_crosses() {
        // 0.105 * 100 = 10.5: pixel 10 is crossed, 11 is the first wholly inside.
        assert_eq!(
            inner_pixels(&region(0.105, 0.2, 0.3, 0.5), 100, 10),
            (11, 2, 40, 7)
        );
        // Thinner than a pixel: empty, never inverted.
        let (x0, _, x1, _) = inner_pixels(&region(0.101, 0.0, 0.005, 1.0), 100, 10);
        assert_eq!(x0, x1);
    }

    #[test]
    fn one_pixel_off_inside_a_region_fails_naming_the_region() {
        let regions = [
            region(0.0, 0.0, 0.2, 0.2),
            Region {
                method: RedactMethod::Pixelate,
                ..region(0.75, 0.8, 0.2, 0.15)
            },
            region(0.3, 0.25, 0.4, 0.5),
        ];
        let mut img = RgbImage::from_fn(200, 120, |x, y| image::Rgb([x as u8, y as u8, 7]));
        refill(&mut img, &regions, [255, 0, 255]);
        check(&img, &regions, [255, 0, 255]).unwrap();
        // One pixel inside the third region, off by one.
        img.put_pixel(100, 60, image::Rgb([255, 1, 255]));
        let err = check(&img, &regions, [255, 0, 255]).unwrap_err();
        assert!(
            err.contains("region 2") && err.contains("(100, 60)") && err.contains("#ff01ff"),
            "{err}"
        );
        // Pixelated regions are not fills: not checked against the colour.
        let mut img = RgbImage::new(200, 120);
        refill(&mut img, &regions, [255, 0, 255]);
        img.put_pixel(170, 105, image::Rgb([9, 9, 9]));
        check(&img, &regions, [255, 0, 255]).unwrap();
    }
}
