//! The memory a derivation holds at its peak, measured (every allocation of the deriving
//! thread counted), against what `memory_needed` reserves for it: for every pixel format.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use image::{DynamicImage, ImageBuffer, ImageFormat, Luma, LumaA, Rgb, Rgba};

use super::memory_needed;
use crate::images::pipeline::derive;

/// Counts each thread's allocations: what it holds now, and the most it held.
struct Meter;

thread_local! {
    static NOW: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

fn count(delta: i64) {
    let _ = NOW.try_with(|now| {
        now.set(now.get() + delta);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now.get())));
    });
}

// SAFETY: every call goes to `System` unchanged; only sizes are counted.
unsafe impl GlobalAlloc for Meter {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as i64));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        count(new as i64 - layout.size() as i64);
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static METER: Meter = Meter;

/// The most this thread holds while `f` runs, beyond what it held before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = NOW.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let out = f();
    let peak = PEAK.with(Cell::get) - before;
    (out, peak.max(0) as u64)
}

fn value(x: u32, y: u32, k: u32) -> u16 {
    ((x * 7919 + y * 104_729 + k * 31) % 65_536) as u16
}

fn encoded(img: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, format).unwrap();
    out.into_inner()
}

/// A PNG written by the `png` crate: palette, and transparency given by a tRNS chunk.
fn png_with(w: u32, h: u32, color: png::ColorType, depth: png::BitDepth, trns: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(color);
    encoder.set_depth(depth);
    if color == png::ColorType::Indexed {
        encoder.set_palette(
            (0..=255u8)
                .flat_map(|i| [i, 255 - i, i / 2])
                .collect::<Vec<_>>(),
        );
    }
    if !trns.is_empty() {
        encoder.set_trns(trns.to_vec());
    }
    let samples = match color {
        png::ColorType::Rgb => 3,
        _ => 1,
    };
    let row = (w * samples * depth as u32).div_ceil(8);
    let data: Vec<u8> = (0..row * h).map(|i| (i * 37 % 251) as u8).collect();
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&data)
        .unwrap();
    out
}

#[test]
fn the_reservation_covers_what_every_pixel_format_holds() {
    let (w, h) = (3000, 2000);
    let mut config = crate::config::Config::parse(
        "title = \"T\"\nbase_url = \"https://x.org/\"\n",
        std::path::Path::new("."),
        std::path::Path::new("casebook.toml"),
    )
    .unwrap()
    .images;
    config.widths = vec![300];
    let rgb8 = DynamicImage::ImageRgb8(ImageBuffer::from_fn(w, h, |x, y| {
        Rgb([value(x, y, 1) as u8, value(x, y, 2) as u8, (x / 12) as u8])
    }));
    let l16 = DynamicImage::ImageLuma16(ImageBuffer::from_fn(w, h, |x, y| Luma([value(x, y, 9)])));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "png L8",
            encoded(&DynamicImage::ImageLuma8(l16.to_luma8()), ImageFormat::Png),
        ),
        ("png L16", encoded(&l16, ImageFormat::Png)),
        (
            "png L16 smooth",
            encoded(
                &DynamicImage::ImageLuma16(ImageBuffer::from_fn(w, h, |x, y| {
                    Luma([(x * 6 + y) as u16])
                })),
                ImageFormat::Png,
            ),
        ),
        (
            "png La8",
            encoded(
                &DynamicImage::ImageLumaA8(ImageBuffer::from_fn(w, h, |x, y| {
                    LumaA([x as u8, y as u8])
                })),
                ImageFormat::Png,
            ),
        ),
        (
            "png La16",
            encoded(
                &DynamicImage::ImageLumaA16(ImageBuffer::from_fn(w, h, |x, y| {
                    LumaA([value(x, y, 1), value(x, y, 2)])
                })),
                ImageFormat::Png,
            ),
        ),
        ("png Rgb8", encoded(&rgb8, ImageFormat::Png)),
        (
            "png Rgb16",
            encoded(&DynamicImage::ImageRgb16(rgb8.to_rgb16()), ImageFormat::Png),
        ),
        (
            "png Rgba8",
            encoded(&DynamicImage::ImageRgba8(rgb8.to_rgba8()), ImageFormat::Png),
        ),
        (
            "png Rgba16",
            encoded(
                &DynamicImage::ImageRgba16(ImageBuffer::from_fn(w, h, |x, y| {
                    Rgba([
                        value(x, y, 1),
                        value(x, y, 2),
                        value(x, y, 3),
                        value(x, y, 4),
                    ])
                })),
                ImageFormat::Png,
            ),
        ),
        (
            "png palette",
            png_with(w, h, png::ColorType::Indexed, png::BitDepth::Eight, &[]),
        ),
        (
            "png palette tRNS",
            png_with(
                w,
                h,
                png::ColorType::Indexed,
                png::BitDepth::Eight,
                &[0, 128, 255],
            ),
        ),
        (
            "png 1-bit grey",
            png_with(w, h, png::ColorType::Grayscale, png::BitDepth::One, &[]),
        ),
        (
            "png L16 tRNS",
            png_with(
                w,
                h,
                png::ColorType::Grayscale,
                png::BitDepth::Sixteen,
                &[0, 7],
            ),
        ),
        (
            "png Rgb16 tRNS",
            png_with(
                w,
                h,
                png::ColorType::Rgb,
                png::BitDepth::Sixteen,
                &[0, 7, 0, 8, 0, 9],
            ),
        ),
        ("tiff Rgb8", encoded(&rgb8, ImageFormat::Tiff)),
        (
            "tiff Rgb16",
            encoded(
                &DynamicImage::ImageRgb16(rgb8.to_rgb16()),
                ImageFormat::Tiff,
            ),
        ),
        ("tiff L16", encoded(&l16, ImageFormat::Tiff)),
        (
            "tiff Rgba16",
            encoded(
                &DynamicImage::ImageRgba16(rgb8.to_rgba16()),
                ImageFormat::Tiff,
            ),
        ),
        ("webp Rgb8", encoded(&rgb8, ImageFormat::WebP)),
        (
            "webp Rgba8",
            encoded(
                &DynamicImage::ImageRgba8(rgb8.to_rgba8()),
                ImageFormat::WebP,
            ),
        ),
        (
            "gif",
            encoded(&DynamicImage::ImageRgba8(rgb8.to_rgba8()), ImageFormat::Gif),
        ),
        ("bmp", encoded(&rgb8, ImageFormat::Bmp)),
        ("jpeg", encoded(&rgb8, ImageFormat::Jpeg)),
        (
            "jpeg grey",
            encoded(&DynamicImage::ImageLuma8(l16.to_luma8()), ImageFormat::Jpeg),
        ),
        ("jpeg progressive", {
            let mut out = Vec::new();
            let mut encoder = jpeg_encoder::Encoder::new(&mut out, 90);
            encoder.set_progressive(true);
            encoder.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_4_4);
            encoder
                .encode(
                    rgb8.as_bytes(),
                    w as u16,
                    h as u16,
                    jpeg_encoder::ColorType::Rgb,
                )
                .unwrap();
            out
        }),
    ];
    // A tall source: its largest size is taller than wide, and the resize's first pass
    // holds a buffer as tall as that size and as wide as the source.
    let tall = DynamicImage::ImageLuma16(ImageBuffer::from_fn(800, 9000, |x, y| {
        Luma([value(x, y, 3)])
    }));
    let cases = [
        cases,
        vec![("png L16 tall", encoded(&tall, ImageFormat::Png))],
    ]
    .concat();
    let dir = tempfile::tempdir().unwrap();
    let mut short = Vec::new();
    for (what, bytes) in cases {
        let path = dir.path().join("source");
        std::fs::write(&path, &bytes).unwrap();
        let need = memory_needed(dir.path(), &path, &config).unwrap();
        // The source's bytes are read before deriving starts, and counted in `need`.
        let (derived, held) = peak_of(|| derive(&bytes, &[], &config));
        derived.unwrap_or_else(|e| panic!("{what}: {e}"));
        let held = held + bytes.len() as u64;
        eprintln!(
            "{what}: reserved {} KiB, held {} KiB",
            need >> 10,
            held >> 10
        );
        if held > need {
            short.push(format!("{what}: reserved {need}, held {held}"));
        }
    }
    assert!(short.is_empty(), "{short:#?}");
}
