//! Writes the photograph classes `benches/image-memory.sh` measures peak memory on, as a site
//! of one synthetic case per class (generated pixels only, nothing photographed):
//!
//! - `deep-png`: one 100-megapixel 16-bit RGBA PNG (800 MB decoded);
//! - `wide-png`: one 100-megapixel 8-bit RGB PNG (300 MB decoded);
//! - `grey16-png`: eight 100-megapixel 16-bit greyscale PNGs (200 MB each decoded, at its
//!   own depth), more than the budget holds at once;
//! - `tiff16`: one 40-megapixel 16-bit RGB TIFF;
//! - `many`: 32 JPEGs of 6000x4000 (72 MB each decoded), more than any machine has cores.
//!
//! `cargo run --release --example memory-images -- OUT CLASS`

use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(out), Some(class)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: memory-images OUT deep-png|wide-png|grey16-png|tiff16|many");
        std::process::exit(2);
    };
    let out = Path::new(out);
    let case = out.join("content/cases/mem-0001");
    std::fs::create_dir_all(&case).unwrap();
    std::fs::write(
        out.join("casebook.toml"),
        "title = \"Memory\"\nbase_url = \"https://example.org/\"\n\n[cases]\nsection = \"cases\"\nid_field = \"case_id\"\n\n[[cases.fields]]\nname = \"case_id\"\ntype = \"string\"\nrequired = true\n",
    )
    .unwrap();
    std::fs::write(
        out.join("content/_index.md"),
        "+++\ntitle = \"Memory\"\n+++\n",
    )
    .unwrap();
    std::fs::write(
        out.join("content/cases/_index.md"),
        "+++\ntitle = \"Cases\"\n+++\n",
    )
    .unwrap();
    let files: Vec<String> = match class.as_str() {
        "deep-png" => vec![write_png(&case, "deep.png", 10_000, 10_000, true)],
        "wide-png" => vec![write_png(&case, "wide.png", 10_000, 10_000, false)],
        "grey16-png" => (0..8)
            .map(|i| write_grey16_png(&case, i, 10_000, 10_000))
            .collect(),
        "tiff16" => vec![write_tiff16(&case, "deep.tiff", 7_746, 5_164)],
        "many" => (0..32)
            .map(|i| write_jpeg(&case, i, 6_000, 4_000))
            .collect(),
        other => panic!("unknown class {other}"),
    };
    let photos: String = files
        .iter()
        .map(|f| format!("[[photos]]\nfile = \"{f}\"\nalt = \"Generated test pattern\"\nsensitivity = \"none\"\n\n"))
        .collect();
    std::fs::write(
        case.join("index.md"),
        format!(
            "+++\ntitle = \"Memory test\"\ncase_id = \"mem-0001\"\n\n{photos}+++\nSynthetic.\n"
        ),
    )
    .unwrap();
}

fn write_png(dir: &Path, name: &str, w: u32, h: u32, deep_alpha: bool) -> String {
    use image::ImageEncoder;
    let file = std::io::BufWriter::new(std::fs::File::create(dir.join(name)).unwrap());
    let encoder = image::codecs::png::PngEncoder::new_with_quality(
        file,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Sub,
    );
    if deep_alpha {
        let mut buf = vec![0u16; (w * h * 4) as usize];
        for (i, px) in buf.chunks_exact_mut(4).enumerate() {
            let (x, y) = (i as u32 % w, i as u32 / w);
            px.copy_from_slice(&[(x * 6) as u16, (y * 6) as u16, 30_000, 65_535]);
        }
        let bytes: Vec<u8> = buf.iter().flat_map(|v| v.to_be_bytes()).collect();
        drop(buf);
        encoder
            .write_image(&bytes, w, h, image::ExtendedColorType::Rgba16)
            .unwrap();
    } else {
        let img = image::RgbImage::from_fn(w, h, |x, y| image::Rgb([x as u8, y as u8, 90]));
        encoder
            .write_image(img.as_raw(), w, h, image::ExtendedColorType::Rgb8)
            .unwrap();
    }
    name.to_string()
}

/// A 16-bit greyscale PNG with noise in its lowest bit, so that it does not compress to
/// nothing (77 MB): two fit in the default budget side by side, as the did.
fn write_grey16_png(dir: &Path, i: u32, w: u32, h: u32) -> String {
    use image::ImageEncoder;
    let name = format!("g{i}.png");
    let file = std::io::BufWriter::new(std::fs::File::create(dir.join(&name)).unwrap());
    let encoder = image::codecs::png::PngEncoder::new_with_quality(
        file,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Sub,
    );
    let mut bytes = vec![0u8; (w * h * 2) as usize];
    for (n, px) in bytes.chunks_exact_mut(2).enumerate() {
        let (x, y) = (n as u32 % w, n as u32 / w);
        let noise = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663) ^ i) >> 20;
        let v = (((x * 3 + y * 2) & 0xFFF8) | (noise & 1)) as u16;
        px.copy_from_slice(&v.to_be_bytes());
    }
    encoder
        .write_image(&bytes, w, h, image::ExtendedColorType::L16)
        .unwrap();
    name
}

fn write_tiff16(dir: &Path, name: &str, w: u32, h: u32) -> String {
    let img = image::ImageBuffer::<image::Rgb<u16>, Vec<u16>>::from_fn(w, h, |x, y| {
        image::Rgb([(x * 8) as u16, (y * 8) as u16, 20_000])
    });
    image::DynamicImage::ImageRgb16(img)
        .save(dir.join(name))
        .unwrap();
    name.to_string()
}

fn write_jpeg(dir: &Path, i: u32, w: u32, h: u32) -> String {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        let n = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663) ^ i) >> 9;
        image::Rgb([
            (x / 16) as u8 ^ (n as u8 & 15),
            (y / 16) as u8,
            (i * 9) as u8,
        ])
    });
    let name = format!("p{i:02}.jpg");
    img.save(dir.join(&name)).unwrap();
    name
}
