//! Decoding a source photograph within limits, and knowing beforehand what it will hold.
//!
//! Limits count decoded bytes (width × height × channels × bytes per sample), not only
//! pixels: a 16-bit RGBA pixel holds eight bytes, an 8-bit RGB one three.
//! [`memory_needed`] reads only a file's header, so a build can reserve the memory from
//! its budget (`budget.rs`) before reading the file. A source whose data ends before its
//! picture does is an error, never published padded with a flat colour: JPEGs are
//! decoded strictly for that.

use std::io::{BufReader, Cursor};
use std::path::Path;

use image::metadata::Orientation;
use image::{ColorType, DynamicImage, ImageDecoder, ImageReader, RgbImage};

use crate::config::ImageConfig;

/// Decodes `bytes` at full scale within the configured limits and returns the upright image.
#[cfg(test)]
pub(crate) fn decode(bytes: &[u8], limits: &ImageConfig) -> Result<RgbImage, String> {
    let stored = decode_stored(bytes, limits, None)?;
    Ok(upright(stored.pixels, stored.orientation))
}

/// Whether `bytes` is an image a build can derive from, within the configured limits: what
/// `casebook import` checks before copying a photograph into a case folder.
pub(crate) fn check_readable(bytes: &[u8], limits: &ImageConfig) -> Result<(), String> {
    decode_stored(bytes, limits, None).map(|_| ())
}

/// A decoded source, in the frame its file stores it in.
pub(super) struct Stored {
    /// At full scale, or reduced in the decoder (see `reduced_scale`).
    pub(super) pixels: RgbImage,
    /// How to turn it upright.
    pub(super) orientation: Orientation,
    /// The source's own width and height, as stored.
    pub(super) full: (u32, u32),
}

/// How a source's decoder holds more than its decoded pixels (measured per format in
/// `peak_tests.rs`).
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Component planes before colour conversion (one byte a sample) and, progressive,
    /// every coefficient (two bytes each, 64 per block) plus `jpeg_scans`'s bit per one.
    Jpeg {
        components: u64,
        progressive: bool,
    },
    /// The TIFF decoder decodes into a buffer of its own, then copies it.
    Tiff,
    /// The WebP decoder decodes into four bytes a pixel, then converts.
    WebP,
    Other,
}

/// What deriving from a source of `file_len` bytes, `w`x`h` pixels of `color`, holds at
/// its peak: the file (three times for a JPEG: `image`'s decoder copies it, and the decoders
/// read a sealed copy), the decoded pixels,
/// what the format's decoder holds beside them (`Kind`), an 8-bit RGB copy unless they
/// already are that, and the largest size with the buffers its resize and encoding use.
fn peak(
    file_len: u64,
    kind: Kind,
    (w, h): (u32, u32),
    color: ColorType,
    config: &ImageConfig,
) -> u64 {
    let pixels = u64::from(w) * u64::from(h);
    let decoded = pixels * u64::from(color.bytes_per_pixel());
    let rgb8 = if color == ColorType::Rgb8 {
        0
    } else {
        pixels * 3
    };
    let beside = match kind {
        Kind::Jpeg {
            components,
            progressive,
        } => {
            // Planes and coefficients are padded to whole blocks of 16 pixels at most.
            let padded = u64::from(w.div_ceil(16) * 16) * u64::from(h.div_ceil(16) * 16);
            let coefficients = if progressive {
                padded * components * 2
            } else {
                0
            };
            padded * components + coefficients + super::jpeg_scans::memory_needed(w, h, progressive)
        }
        Kind::Tiff => decoded,
        Kind::WebP => pixels * 4,
        Kind::Other => 0,
    };
    // Widths apply upright and the header does not say which way up: the largest size is
    // at most `widest` across and as tall as the source's proportions make it. Resizing
    // 8-bit pixels, fast_image_resize's first (vertical) pass fills a buffer as wide as the
    // source and as tall as that size: `widest` x the long side at most (36 MB for a
    // 10000x10000 source made 1200 wide).
    let long = u64::from(w.max(h));
    let widest = u64::from(config.largest_width()).min(long);
    let largest = widest * (widest * long).div_ceil(u64::from(w.min(h)).max(1)) * 3;
    let first_pass = widest * long * 3;
    let file = if matches!(kind, Kind::Jpeg { .. }) {
        3 * file_len
    } else {
        file_len
    };
    file + decoded + beside + rgb8 + 2 * largest + first_pass + (4 << 20)
}

/// What deriving from the photograph at `path` will hold at its peak, from its header
/// alone; an error if it is not an image casebook can read, or is over the limits.
pub(crate) fn memory_needed(root: &Path, path: &Path, limits: &ImageConfig) -> Result<u64, String> {
    // Beneath the site's folder, never through a link (the photograph may have been
    // swapped for one since the content was loaded).
    let (file, _) = crate::beneath::open(root, path).map_err(|e| format!("cannot read it: {e}"))?;
    let file_len = file
        .metadata()
        .map_err(|e| format!("cannot read it: {e}"))?
        .len();
    if file_len == 0 {
        return Err("the file is empty".into());
    }
    if file_len > limits.max_memory {
        return Err(too_large(file_len, limits));
    }
    let reader = ImageReader::new(BufReader::new(file))
        .with_guessed_format()
        .map_err(|e| format!("cannot read it: {e}"))?;
    let mut kind = match reader.format() {
        Some(image::ImageFormat::Tiff) => Kind::Tiff,
        Some(image::ImageFormat::WebP) => Kind::WebP,
        _ => Kind::Other,
    };
    let (size, color) = match reader.format() {
        None => return Err(NOT_AN_IMAGE.into()),
        // `image`'s JPEG decoder reads the whole file first; jpeg-decoder reads the header.
        Some(image::ImageFormat::Jpeg) => {
            let mut decoder = jpeg_decoder::Decoder::new(reader.into_inner());
            decoder.read_info().map_err(|e| format!("{DAMAGED}: {e}"))?;
            let info = decoder.info().ok_or(DAMAGED)?;
            let color = match info.pixel_format {
                jpeg_decoder::PixelFormat::L8 => ColorType::L8,
                jpeg_decoder::PixelFormat::L16 => ColorType::L16,
                jpeg_decoder::PixelFormat::RGB24 => ColorType::Rgb8,
                // Four channels, converted to RGB.
                jpeg_decoder::PixelFormat::CMYK32 => ColorType::Rgba8,
            };
            kind = Kind::Jpeg {
                components: u64::from(color.channel_count()),
                progressive: info.coding_process == jpeg_decoder::CodingProcess::DctProgressive,
            };
            ((u32::from(info.width), u32::from(info.height)), color)
        }
        Some(image::ImageFormat::Png) => {
            let mut decoder = png::Decoder::new(reader.into_inner());
            let info = decoder
                .read_header_info()
                .map_err(|e| format!("{DAMAGED}: {e}"))?;
            ((info.width, info.height), png_color(info))
        }
        Some(_) => {
            let decoder = reader.into_decoder().map_err(describe)?;
            (decoder.dimensions(), decoder.color_type())
        }
    };
    within_limits(size, color, limits)?;
    let need = peak(file_len, kind, size, color, limits);
    if need > limits.max_memory {
        return Err(too_large(need, limits));
    }
    Ok(need)
}

const NOT_AN_IMAGE: &str = "not an image casebook can read (JPEG, PNG, TIFF, WebP, GIF or BMP)";
const DAMAGED: &str = "the image data is damaged or truncated";

fn too_large(bytes: u64, limits: &ImageConfig) -> String {
    format!(
        "deriving from it needs {} MiB of memory, more than images.max_memory_mb = {}",
        bytes.div_ceil(1 << 20),
        limits.max_memory >> 20
    )
}

/// Refuses an image over the configured size or pixel count, or whose decoded pixels
/// alone would take more memory than allowed.
fn within_limits((w, h): (u32, u32), color: ColorType, limits: &ImageConfig) -> Result<(), String> {
    if w > limits.max_width || h > limits.max_height {
        return Err(format!(
            "the image is {w}x{h} pixels, larger than the configured limits (images.max_width, max_height: {}x{})",
            limits.max_width, limits.max_height
        ));
    }
    let pixels = u64::from(w) * u64::from(h);
    if pixels > limits.max_pixels {
        return Err(format!(
            "the image is {w}x{h} pixels, more than the limit of {} pixels (images.max_pixels)",
            limits.max_pixels
        ));
    }
    let decoded = pixels * u64::from(color.bytes_per_pixel());
    if decoded > limits.max_memory {
        return Err(format!(
            "the image is {w}x{h} pixels of {} bytes each ({color:?}): decoded, it takes {} MiB, more than images.max_memory_mb = {}",
            color.bytes_per_pixel(),
            decoded.div_ceil(1 << 20),
            limits.max_memory >> 20
        ));
    }
    Ok(())
}

/// Decodes the image as stored. With `widest`, the largest width (upright) that will be
/// made from it, a JPEG wide enough is decoded at the smallest of 1/2, 1/4 or 1/8 of its size
/// still at least twice that wide: the decoder then skips most of the inverse DCT, colour
/// conversion and upsampling, and the resize reads a quarter of the pixels or fewer.
pub(super) fn decode_stored(
    bytes: &[u8],
    limits: &ImageConfig,
    widest: Option<u32>,
) -> Result<Stored, String> {
    if bytes.is_empty() {
        return Err("the file is empty".into());
    }
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| e.to_string())?;
    if reader.format().is_none() {
        return Err(NOT_AN_IMAGE.into());
    }
    let is_jpeg = reader.format() == Some(image::ImageFormat::Jpeg);
    // Decoders fill what a cut-off JPEG lacks; a truncated source is an error to fix. A
    // sequential JPEG's decoders are given a sealed copy, which fails in them if cut short;
    // a progressive one is walked block by block first.
    let damaged = |e: String| format!("{DAMAGED}: {e}");
    let sealed = match is_jpeg {
        true => super::jpeg_seal::sealed(bytes).map_err(damaged)?,
        false => None,
    };
    if is_jpeg && sealed.is_none() {
        super::jpeg_scans::check(bytes).map_err(damaged)?;
    }
    let jpeg = sealed.as_deref().unwrap_or(bytes);
    let mut reader = reader;
    let mut l = image::Limits::default();
    l.max_image_width = Some(limits.max_width);
    l.max_image_height = Some(limits.max_height);
    l.max_alloc = Some(limits.max_memory);
    reader.limits(l);
    let mut decoder = reader.into_decoder().map_err(describe)?;
    let full = decoder.dimensions();
    let is_png = decoder_is_png(bytes);
    let color = match is_png {
        true => png::Decoder::new(Cursor::new(bytes))
            .read_header_info()
            .map_or(decoder.color_type(), png_color),
        false => decoder.color_type(),
    };
    within_limits(full, color, limits)?;
    // A missing or malformed orientation tag means "as stored".
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let reduced = widest
        .filter(|_| is_jpeg)
        .map(|widest| reduced_scale(full, turns(orientation), widest))
        .filter(|&eighths| eighths < 8)
        .and_then(|eighths| decode_jpeg_reduced(jpeg, full, eighths, limits));
    let pixels = match reduced {
        Some(pixels) => pixels,
        None if is_jpeg => match decode_jpeg_strictly(jpeg, full)? {
            Some(pixels) => pixels,
            None => {
                // The lenient decoder reads the file unsealed: walk it first.
                if sealed.is_some() {
                    super::jpeg_scans::check(bytes).map_err(damaged)?;
                }
                flatten(DynamicImage::from_decoder(decoder).map_err(describe)?)
            }
        },
        None if is_png => match decode_png_by_rows(bytes, full)? {
            Some(pixels) => pixels,
            None => flatten(DynamicImage::from_decoder(decoder).map_err(describe)?),
        },
        None => flatten(DynamicImage::from_decoder(decoder).map_err(describe)?),
    };
    Ok(Stored {
        pixels,
        orientation,
        full,
    })
}

/// Decodes a JPEG with zune-jpeg (the decoder `image` uses) in strict mode, where `image`
/// asks for the lenient one: a scan whose data runs out (into a seal, see `jpeg_seal`) is
/// then an error instead of rows padded with grey. `None` when the file breaks only rules
/// that do not touch its pixels (stray bytes between headers, an odd component count): the
/// lenient decoder then reads it, as before.
fn decode_jpeg_strictly(bytes: &[u8], (w, h): (u32, u32)) -> Result<Option<RgbImage>, String> {
    use zune_core::bytestream::ZCursor;
    use zune_core::colorspace::ColorSpace;
    use zune_core::options::DecoderOptions;
    let options = DecoderOptions::default()
        .set_strict_mode(true)
        .set_max_width(w as usize)
        .set_max_height(h as usize)
        .jpeg_set_out_colorspace(ColorSpace::RGB);
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), options);
    match decoder.decode() {
        Ok(pixels) => {
            let out = decoder.output_colorspace();
            match (out, RgbImage::from_raw(w, h, pixels)) {
                (Some(ColorSpace::RGB), Some(img)) => Ok(Some(img)),
                _ => Ok(None),
            }
        }
        Err(e) => {
            let message = e.to_string();
            let harmless = ["Extra bytes between headers", "number of components"];
            if harmless.iter().any(|h| message.contains(h)) {
                Ok(None)
            } else {
                Err(format!("{DAMAGED}: {message}"))
            }
        }
    }
}

fn decoder_is_png(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x89PNG\r\n\x1a\n")
}

/// What a PNG's pixels take as decoded: a PNG stored row after row (not interlaced) is
/// decoded a row at a time straight into 8-bit RGB (`decode_png_by_rows`), so only that is
/// ever held; an interlaced one is decoded whole, at its own depth.
fn png_color(info: &png::Info) -> ColorType {
    if !info.interlaced {
        return ColorType::Rgb8;
    }
    let deep = info.bit_depth == png::BitDepth::Sixteen;
    // A tRNS chunk gives grey and RGB an alpha channel when expanded.
    let color = match (info.color_type, info.trns.is_some()) {
        (png::ColorType::Grayscale, true) => png::ColorType::GrayscaleAlpha,
        (png::ColorType::Rgb, true) => png::ColorType::Rgba,
        (color, _) => color,
    };
    match (color, deep) {
        (png::ColorType::Grayscale, false) => ColorType::L8,
        (png::ColorType::Grayscale, true) => ColorType::L16,
        (png::ColorType::GrayscaleAlpha, false) => ColorType::La8,
        (png::ColorType::GrayscaleAlpha, true) => ColorType::La16,
        (png::ColorType::Rgb, false) => ColorType::Rgb8,
        (png::ColorType::Rgb, true) => ColorType::Rgb16,
        (png::ColorType::Rgba | png::ColorType::Indexed, false) => ColorType::Rgba8,
        (png::ColorType::Rgba | png::ColorType::Indexed, true) => ColorType::Rgba16,
    }
}

/// Decodes a PNG that is not interlaced one row at a time into 8-bit RGB on white: a
/// 100-megapixel 16-bit RGBA source then holds 300 MB, not the 800 MB of its own pixels
/// beside an 8-bit copy. Samples are converted as `image` converts them (rounded from 16
/// to 8 bits, then flattened on white), so the pixels are the ones its decoder would give.
/// `None` for an interlaced PNG, decoded whole by `image` instead; rows that run out
/// before the picture does are an error.
fn decode_png_by_rows(bytes: &[u8], (w, h): (u32, u32)) -> Result<Option<RgbImage>, String> {
    let damaged = |e: png::DecodingError| format!("{DAMAGED}: {e}");
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(damaged)?;
    if reader.info().interlaced || (reader.info().width, reader.info().height) != (w, h) {
        return Ok(None);
    }
    let (color, depth) = reader.output_color_type();
    let channels = match color {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Ok(None),
    };
    let sample_bytes = match depth {
        png::BitDepth::Eight => 1,
        png::BitDepth::Sixteen => 2,
        _ => return Ok(None),
    };
    let sample = |s: &[u8]| -> u8 {
        match s {
            [v] => *v,
            [hi, lo] => ((u32::from(u16::from_be_bytes([*hi, *lo])) + 128) / 257) as u8,
            _ => 0,
        }
    };
    let mut out = RgbImage::new(w, h);
    for y in 0..h {
        let row = reader
            .next_row()
            .map_err(damaged)?
            .ok_or_else(|| format!("{DAMAGED}: the data ends before the picture does"))?;
        let pixels = row.data().chunks_exact(channels * sample_bytes);
        for (x, px) in pixels.take(w as usize).enumerate() {
            let s = |i: usize| sample(&px[i * sample_bytes..(i + 1) * sample_bytes]);
            let (rgb, alpha) = match channels {
                1 => ([s(0); 3], 255),
                2 => ([s(0); 3], s(1)),
                3 => ([s(0), s(1), s(2)], 255),
                _ => ([s(0), s(1), s(2)], s(3)),
            };
            let a = u16::from(alpha);
            let on_white = rgb.map(|c| ((u16::from(c) * a + 255 * (255 - a)) / 255) as u8);
            out.put_pixel(x as u32, y, image::Rgb(on_white));
        }
    }
    Ok(Some(out))
}

/// The scale, in eighths (8, 4, 2 or 1), at which a JPEG stored `w`x`h` decodes smallest
/// while still at least twice `widest` pixels wide upright. The factor of two left for the
/// resize is what libvips and Pillow leave too: a reduced-scale decode is sharper and
/// blockier than a filter's, and resized by less than two it shows (measured at 4000 px
/// decoded at 2000 for 1200: a mean difference of 2.8 levels from the full-scale path,
/// against 0.4 with the factor of two; `benches/decode.sh`).
pub(super) fn reduced_scale((w, h): (u32, u32), turned: bool, widest: u32) -> u32 {
    let upright_width = if turned { h } else { w };
    let mut eighths = 8;
    while eighths > 1
        && widest > 0
        && (upright_width * (eighths / 2)).div_ceil(8) >= widest.saturating_mul(2)
    {
        eighths /= 2;
    }
    eighths
}

/// Decodes a JPEG stored `w`x`h` at `eighths`/8 of its size (each side rounded up), with
/// `jpeg-decoder`, which can scale in its inverse DCT (`image`'s decoder cannot). `None` when
/// that decoder cannot give RGB at that size, or fails: the caller then decodes at full
/// scale, and reports that decoder's errors as always.
fn decode_jpeg_reduced(
    bytes: &[u8],
    (w, h): (u32, u32),
    eighths: u32,
    limits: &ImageConfig,
) -> Option<RgbImage> {
    let (sw, sh) = ((w * eighths).div_ceil(8), (h * eighths).div_ceil(8));
    let mut decoder = jpeg_decoder::Decoder::new(bytes);
    decoder.set_max_decoding_buffer_size(usize::try_from(limits.max_memory).unwrap_or(usize::MAX));
    let want = (u16::try_from(sw).ok()?, u16::try_from(sh).ok()?);
    // It picks the smallest scale that reaches either side asked for: check it is this one.
    if decoder.scale(want.0, want.1).ok()? != want {
        return None;
    }
    let pixels = decoder.decode().ok()?;
    match decoder.info()?.pixel_format {
        jpeg_decoder::PixelFormat::RGB24 => RgbImage::from_raw(sw, sh, pixels),
        jpeg_decoder::PixelFormat::L8 => {
            let grey = image::GrayImage::from_raw(sw, sh, pixels)?;
            Some(DynamicImage::ImageLuma8(grey).into_rgb8())
        }
        // CMYK and 16-bit grey: left to the full-scale decoder.
        _ => None,
    }
}

pub(super) fn upright(img: RgbImage, orientation: Orientation) -> RgbImage {
    if orientation == Orientation::NoTransforms {
        return img;
    }
    let mut img = DynamicImage::ImageRgb8(img);
    img.apply_orientation(orientation);
    img.into_rgb8()
}

/// Whether turning the image upright swaps its width and height.
pub(super) fn turns(orientation: Orientation) -> bool {
    use Orientation::*;
    matches!(
        orientation,
        Rotate90 | Rotate270 | Rotate90FlipH | Rotate270FlipH
    )
}

fn describe(e: image::ImageError) -> String {
    match e {
        image::ImageError::Limits(l) => format!(
            "the image is larger than the configured limits (images.max_width, max_height, max_pixels, max_memory_mb): {l}"
        ),
        image::ImageError::Decoding(d) => format!("{DAMAGED}: {d}"),
        image::ImageError::Unsupported(u) => format!("unsupported image: {u}"),
        image::ImageError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            format!("{DAMAGED}: the data ends before the picture does")
        }
        other => other.to_string(),
    }
}

/// RGB on white: transparency has no meaning in a published photograph. Pixels with an
/// alpha channel are composited one by one, so no 8-bit RGBA copy is ever held beside
/// the decoded pixels and the result.
fn flatten(img: DynamicImage) -> RgbImage {
    use image::GenericImageView as _;
    if !img.color().has_alpha() {
        return img.into_rgb8();
    }
    let (w, h) = img.dimensions();
    let mut out = RgbImage::new(w, h);
    for ((_, _, p), o) in img.pixels().zip(out.pixels_mut()) {
        let a = u16::from(p[3]);
        for c in 0..3 {
            o[c] = ((u16::from(p[c]) * a + 255 * (255 - a)) / 255) as u8;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{DynamicImage, ImageBuffer, Luma, LumaA, Rgb, Rgba};

    fn png(img: &DynamicImage) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    /// Row by row or whole, a PNG decodes to the same 8-bit RGB on white.
    #[test]
    fn pngs_decoded_by_rows_match_the_whole_decode() {
        let (w, h) = (37, 23);
        let f = |x: u32, y: u32, k: u32| ((x * 7919 + y * 104_729 + k * 31) % 65_536) as u16;
        let images = [
            DynamicImage::ImageRgba16(ImageBuffer::from_fn(w, h, |x, y| {
                Rgba([f(x, y, 1), f(x, y, 2), f(x, y, 3), f(x, y, 4)])
            })),
            DynamicImage::ImageRgb16(ImageBuffer::from_fn(w, h, |x, y| {
                Rgb([f(x, y, 1), f(x, y, 2), f(x, y, 3)])
            })),
            DynamicImage::ImageLumaA8(ImageBuffer::from_fn(w, h, |x, y| {
                LumaA([f(x, y, 1) as u8, f(x, y, 5) as u8])
            })),
            DynamicImage::ImageLuma16(ImageBuffer::from_fn(w, h, |x, y| Luma([f(x, y, 9)]))),
            DynamicImage::ImageRgb8(ImageBuffer::from_fn(w, h, |x, y| {
                Rgb([x as u8, y as u8, f(x, y, 1) as u8])
            })),
        ];
        for img in images {
            let bytes = png(&img);
            let by_rows = decode_png_by_rows(&bytes, (w, h)).unwrap().unwrap();
            let whole = flatten(image::load_from_memory(&bytes).unwrap());
            assert!(by_rows == whole, "{:?}", img.color());
        }
        // Rows that run out are an error, not padding.
        let bytes = png(&DynamicImage::ImageRgb8(ImageBuffer::from_fn(
            400,
            300,
            |x, y| Rgb([(x * y) as u8, (x ^ y) as u8, (x + y) as u8]),
        )));
        let cut = &bytes[..bytes.len() * 6 / 10];
        assert!(decode_png_by_rows(cut, (400, 300)).is_err());
    }

    /// Cut short in each way decoders pad (the frame taller than its scan, the data cut
    /// and closed again, a progressive JPEG's last scans left out, no end at all): refused
    /// on the full-scale path and on the reduced-scale one alike.
    #[test]
    fn jpegs_cut_short_are_refused_at_full_and_reduced_scale() {
        let config = crate::config::Config::parse(
            "title = \"T\"\nbase_url = \"https://x.org/\"\n",
            std::path::Path::new("."),
            std::path::Path::new("casebook.toml"),
        )
        .unwrap()
        .images;
        let img = RgbImage::from_fn(640, 480, |x, y| {
            let n = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) >> 7;
            image::Rgb([(x / 3) as u8 ^ (n & 7) as u8, (y / 2) as u8, (n >> 8) as u8])
        });
        let encode = |progressive: bool| {
            let mut out = Vec::new();
            let mut encoder = jpeg_encoder::Encoder::new(&mut out, 90);
            encoder.set_progressive(progressive);
            encoder
                .encode(img.as_raw(), 640, 480, jpeg_encoder::ColorType::Rgb)
                .unwrap();
            out
        };
        let (baseline, progressive) = (encode(false), encode(true));
        for whole in [&baseline, &progressive] {
            let reduced = decode_stored(whole, &config, Some(100)).unwrap();
            assert_eq!(reduced.pixels.dimensions(), (320, 240), "the reduced path");
            decode_stored(whole, &config, None).unwrap();
        }
        let closed = |cut: &[u8]| [cut, &[0xFF, 0xD9]].concat();
        let sof = baseline.windows(2).position(|m| m == [0xFF, 0xC0]).unwrap();
        let mut taller = baseline.clone();
        taller[sof + 5..sof + 7].copy_from_slice(&720u16.to_be_bytes());
        let last_scan = progressive
            .windows(2)
            .rposition(|m| m == [0xFF, 0xDA])
            .unwrap();
        let scans_left_out = closed(&progressive[..last_scan]);
        let cases = [
            ("taller", taller),
            (
                "cut and closed",
                closed(&baseline[..baseline.len() * 7 / 10]),
            ),
            (
                "cut in its last rows",
                closed(&baseline[..baseline.len() - 40]),
            ),
            ("cut", baseline[..baseline.len() * 7 / 10].to_vec()),
            ("scans left out", scans_left_out),
            (
                "last scan cut",
                closed(&progressive[..progressive.len() - 300]),
            ),
        ];
        for (what, bytes) in cases {
            for widest in [None, Some(100)] {
                let err = decode_stored(&bytes, &config, widest).err();
                let err = err.unwrap_or_else(|| panic!("{what} ({widest:?}) was decoded"));
                assert!(err.starts_with(DAMAGED), "{what}: {err}");
            }
        }
    }
}

#[cfg(test)]
#[path = "peak_tests.rs"]
mod peak_tests;
