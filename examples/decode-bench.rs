//! What one photograph costs, step by step, on one core (see `benches/decode.sh`).
//!
//! `cargo run --release --example decode-bench -- RUNS PHOTO.jpg...`
//!
//! For each source size it reports medians over RUNS rounds of the steps the image
//! pipeline takes (decoding with `image`'s decoder, resizing to 1200 and from that to 400
//! with Lanczos3, encoding both at quality 82, the default), and of the alternative issue 15 asked for:
//! decoding at a reduced scale in the decoder (DCT scaling, which `jpeg-decoder` can do and
//! `image`'s decoder cannot) to the smallest scale still 1200 wide, then resizing from that,
//! and how far its widest size differs from the one made now. (The pipeline itself decodes
//! at a reduced scale only while at least twice the largest width, for that difference.)

use std::collections::BTreeMap;
use std::time::Instant;

use fast_image_resize as fr;

const WIDEST: u32 = 1200;
const NARROW: u32 = 400;

fn resize(pixels: &[u8], (w, h): (u32, u32), width: u32) -> (Vec<u8>, (u32, u32)) {
    let height = ((u64::from(h) * u64::from(width) + u64::from(w) / 2) / u64::from(w)) as u32;
    let src = fr::images::ImageRef::new(w, h, pixels, fr::PixelType::U8x3).expect("a frame");
    let mut dst = fr::images::Image::new(width, height, fr::PixelType::U8x3);
    let lanczos = fr::ResizeAlg::Convolution(fr::FilterType::Lanczos3);
    fr::Resizer::new()
        .resize(
            &src,
            &mut dst,
            &fr::ResizeOptions::new().resize_alg(lanczos),
        )
        .expect("resized");
    (dst.into_vec(), (width, height))
}

fn encode(pixels: &[u8], (w, h): (u32, u32)) -> usize {
    let mut out = Vec::new();
    jpeg_encoder::Encoder::new(&mut out, 82)
        .encode(pixels, w as u16, h as u16, jpeg_encoder::ColorType::Rgb)
        .expect("encoded");
    out.len()
}

/// Resizes to both widths, the smaller from the larger, as the pipeline does.
fn both_widths(pixels: &[u8], size: (u32, u32)) -> [(Vec<u8>, (u32, u32)); 2] {
    let wide = resize(pixels, size, WIDEST.min(size.0));
    let narrow = resize(&wide.0, wide.1, NARROW);
    [wide, narrow]
}

fn seconds_of<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let started = Instant::now();
    let value = f();
    (value, started.elapsed().as_secs_f64())
}

/// Milliseconds per step: decode, resize, encode; then scaled decode, its resize; and the
/// mean difference (levels of 255) between the widest size made each way.
type Steps = [f64; 6];

fn measure(bytes: &[u8]) -> ((u32, u32), Steps) {
    let (full, decode) = seconds_of(|| {
        image::load_from_memory(bytes)
            .expect("a readable JPEG")
            .into_rgb8()
    });
    let size = full.dimensions();
    let (sizes, resize_full) = seconds_of(|| both_widths(full.as_raw(), size));
    let (_, encode_both) = seconds_of(|| sizes.iter().map(|(p, s)| encode(p, *s)).sum::<usize>());

    let (scaled, decode_scaled) = seconds_of(|| {
        let mut decoder = jpeg_decoder::Decoder::new(std::io::Cursor::new(bytes));
        decoder.read_info().expect("a JPEG header");
        let (w, h) = size;
        // The smallest of 8/8, 4/8, 2/8, 1/8 that is still at least WIDEST wide.
        let mut eighths = 8;
        while eighths > 1 && w * (eighths / 2) / 8 >= WIDEST {
            eighths /= 2;
        }
        let want = |n: u32| u16::try_from((n * eighths).div_ceil(8)).expect("a JPEG dimension");
        // The decoder picks the smallest scale at least this large.
        let (sw, sh) = decoder.scale(want(w), want(h)).expect("a scale");
        let pixels = decoder.decode().expect("decoded");
        (pixels, (u32::from(sw), u32::from(sh)))
    });
    let (scaled_sizes, resize_scaled) = seconds_of(|| both_widths(&scaled.0, scaled.1));
    let (now, alternative) = (&sizes[0].0, &scaled_sizes[0].0);
    let sum: f64 = now
        .iter()
        .zip(alternative)
        .map(|(a, b)| f64::from(a.abs_diff(*b)))
        .sum();
    let differ = sum / now.len() as f64;
    let ms = |s: f64| s * 1000.0;
    let steps = [
        ms(decode),
        ms(resize_full),
        ms(encode_both),
        ms(decode_scaled),
        ms(resize_scaled),
        differ,
    ];
    (size, steps)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: decode-bench RUNS PHOTO.jpg...";
    let runs: usize = args.next().and_then(|r| r.parse().ok()).expect(usage);
    let photos: Vec<Vec<u8>> = args
        .map(|path| std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect();
    assert!(!photos.is_empty(), "{usage}");
    // Per source size, per step, one figure a run (the mean over that size's photographs).
    let mut by_size: BTreeMap<(u32, u32), Vec<Steps>> = BTreeMap::new();
    for _ in 0..runs {
        let mut this_run: BTreeMap<(u32, u32), Vec<Steps>> = BTreeMap::new();
        for bytes in &photos {
            let (size, steps) = measure(bytes);
            this_run.entry(size).or_default().push(steps);
        }
        for (size, all) in this_run {
            let n = all.len() as f64;
            let mean: Steps = std::array::from_fn(|i| all.iter().map(|s| s[i]).sum::<f64>() / n);
            by_size.entry(size).or_default().push(mean);
        }
    }
    println!(
        "ms per photograph, one core, median of {runs}: \
         decode + resize + encode = now | DCT-scaled decode + resize + encode = alternative \
         | mean difference of the {WIDEST}-px size (levels)"
    );
    for ((w, h), runs) in by_size {
        let m: Steps = std::array::from_fn(|i| median(runs.iter().map(|s| s[i]).collect()));
        println!(
            "{w}x{h}: {:.1} + {:.1} + {:.1} = {:.1} | {:.1} + {:.1} + {:.1} = {:.1} | {:.2}",
            m[0],
            m[1],
            m[2],
            m[0] + m[1] + m[2],
            m[3],
            m[4],
            m[2],
            m[3] + m[4] + m[2],
            m[5]
        );
    }
}
