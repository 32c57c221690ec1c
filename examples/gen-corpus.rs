//! Generates a synthetic archive in the bundled site's schema, for benchmarks.
//!
//! `cargo run --release --example gen-corpus -- --cases 11000 --out /tmp/corpus`
//! `... --cases 1000 --photos 1 --photo-size 1600x1200 --out /tmp/photos` (image benchmark)
//! `... --cases 11000 --photos 5 --photo-size camera --out /tmp/archive` (camera sizes, mixed
//! from 1600x1200 to 4000x3000, one in five portrait through an EXIF orientation tag;
//! generated in parallel)
//! `... --add-photos content/cases` (gives the bundled sample cases their photographs)
//! `... --cases 11000 --out /tmp/corpus --hugo /tmp/hugo-corpus` (the same cases as a Hugo
//! site too: taxonomies for the same facets, lists paginated by 50, for benchmarks beside
//! Hugo)
//!
//! The output is deterministic (a fixed-seed generator), so runs are comparable. Every case
//! is marked synthetic; no names are generated. Photographs are shapes and noise with the
//! word SYNTHETIC drawn across them: never a picture of a person.

// Helpers in the support modules are shared across this crate's modules, not exported.
#![allow(unreachable_pub)]

use std::fmt::Write as _;
use std::path::PathBuf;

const CONFIG: &str = include_str!("../casebook.toml");
const BRANCHES: [&str; 5] = ["s1", "s2", "s3", "s4", "s5"];
const AGES: [&str; 6] = ["under-20", "20-29", "30-39", "40-49", "50-plus", "unknown"];
const INDICATORS: [&str; 6] = [
    "starvation",
    "strangulation",
    "beating",
    "eye-injury",
    "mutilation",
    "untreated-wounds",
];
const STATUSES: [&str; 3] = ["unidentified", "identified", "under-review"];
const WORDS: [&str; 24] = [
    "the",
    "record",
    "notes",
    "bruising",
    "across",
    "back",
    "marked",
    "emaciation",
    "card",
    "beside",
    "body",
    "reads",
    "branch",
    "number",
    "examination",
    "shows",
    "ligature",
    "mark",
    "neck",
    "wrists",
    "restraint",
    "injuries",
    "consistent",
    "with",
];

/// xorshift64*: small, fast and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A 5x7 bitmap of the letters needed for "SYNTHETIC", one row per byte (low 5 bits).
fn glyph(c: char) -> [u8; 7] {
    match c {
        'S' => [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E],
        'Y' => [0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04],
        'N' => [0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x11],
        'T' => [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        'H' => [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        'E' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F],
        'I' => [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E],
        'C' => [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E],
        _ => [0; 7],
    }
}

/// A synthetic "photograph": a gradient, soft shapes, noise, a bright patterned patch where
/// the redaction region goes, and SYNTHETIC written across it.
fn synthetic_photo(
    rng: &mut Rng,
    width: u32,
    height: u32,
    region: (f64, f64, f64, f64),
) -> image::RgbImage {
    let base = [
        60 + rng.below(80) as u8,
        60 + rng.below(80) as u8,
        60 + rng.below(80) as u8,
    ];
    let mut img = image::RgbImage::from_fn(width, height, |x, y| {
        let t = (x + y) as f32 / (width + height) as f32;
        image::Rgb([
            (base[0] as f32 * (0.6 + 0.6 * t)) as u8,
            (base[1] as f32 * (0.7 + 0.4 * t)) as u8,
            (base[2] as f32 * (0.8 + 0.3 * t)) as u8,
        ])
    });
    for _ in 0..6 {
        let (cx, cy) = (
            rng.below(width as usize) as i64,
            rng.below(height as usize) as i64,
        );
        let (rx, ry) = (
            20 + rng.below((width / 4) as usize) as i64,
            20 + rng.below((height / 4) as usize) as i64,
        );
        let shade = [
            rng.below(255) as u8,
            rng.below(255) as u8,
            rng.below(255) as u8,
        ];
        for y in (cy - ry).max(0)..(cy + ry).min(height as i64) {
            for x in (cx - rx).max(0)..(cx + rx).min(width as i64) {
                let (dx, dy) = ((x - cx) as f64 / rx as f64, (y - cy) as f64 / ry as f64);
                if dx * dx + dy * dy <= 1.0 {
                    let p = img.get_pixel_mut(x as u32, y as u32);
                    for c in 0..3 {
                        p[c] = ((u16::from(p[c]) + u16::from(shade[c])) / 2) as u8;
                    }
                }
            }
        }
    }
    // The patch a redaction must hide: a loud checkerboard.
    let (x0, y0) = (
        (region.0 * width as f64) as u32,
        (region.1 * height as f64) as u32,
    );
    let (x1, y1) = (
        ((region.0 + region.2) * width as f64) as u32,
        ((region.1 + region.3) * height as f64) as u32,
    );
    for y in y0..y1.min(height) {
        for x in x0..x1.min(width) {
            let on = ((x - x0) / 6 + (y - y0) / 6) % 2 == 0;
            img.put_pixel(
                x,
                y,
                if on {
                    image::Rgb([250, 220, 40])
                } else {
                    image::Rgb([30, 200, 240])
                },
            );
        }
    }
    for p in img.pixels_mut() {
        let n = rng.below(17) as i16 - 8;
        for c in 0..3 {
            p[c] = (i16::from(p[c]) + n).clamp(0, 255) as u8;
        }
    }
    // SYNTHETIC across the lower third, in white on a dark band.
    let scale = (width / 60).max(2);
    let text = "SYNTHETIC";
    let text_w = text.len() as u32 * 6 * scale;
    let (tx, ty) = ((width.saturating_sub(text_w)) / 2, height * 2 / 3);
    for y in ty.saturating_sub(scale)..(ty + 8 * scale).min(height) {
        for x in tx.saturating_sub(scale)..(tx + text_w).min(width) {
            img.put_pixel(x, y, image::Rgb([20, 20, 20]));
        }
    }
    for (i, c) in text.chars().enumerate() {
        let rows = glyph(c);
        for (ry, row) in rows.iter().enumerate() {
            for rx in 0..5u32 {
                if row & (0x10 >> rx) != 0 {
                    for dy in 0..scale {
                        for dx in 0..scale {
                            let (x, y) = (
                                tx + (i as u32 * 6 + rx) * scale + dx,
                                ty + ry as u32 * scale + dy,
                            );
                            if x < width && y < height {
                                img.put_pixel(x, y, image::Rgb([245, 245, 245]));
                            }
                        }
                    }
                }
            }
        }
    }
    img
}

fn encode(img: &image::RgbImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::new();
    jpeg_encoder::Encoder::new(&mut out, quality)
        .encode(
            img.as_raw(),
            img.width() as u16,
            img.height() as u16,
            jpeg_encoder::ColorType::Rgb,
        )
        .expect("encode");
    out
}

/// Writes photographs into every case folder below `dir` and adds their [[photos]] entries.
fn add_photos(dir: &std::path::Path) {
    let mut rng = Rng(0x5EED_CA5E_0000_0001);
    let mut folders: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read the cases folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("index.md").is_file())
        .collect();
    folders.sort();
    for folder in folders {
        let index = folder.join("index.md");
        let text = std::fs::read_to_string(&index).unwrap();
        if text.contains("[[photos]]") {
            continue;
        }
        let count = 1 + rng.below(3);
        let mut entries = String::new();
        for n in 1..=count {
            let region = (0.3, 0.08 + 0.05 * rng.below(3) as f64, 0.4, 0.3);
            let img = synthetic_photo(&mut rng, 640, 480, region);
            let file = format!("photo-{n}.jpg");
            std::fs::write(folder.join(&file), encode(&img, 55)).unwrap();
            // The second photograph of a case shows the pixelate method.
            let method = if n == 2 {
                ", method = \"pixelate\""
            } else {
                ""
            };
            entries.push_str(&format!(
                "\n[[photos]]\nfile = \"{file}\"\nalt = \"Synthetic sample image {n}: generated shapes and noise; the upper region is redacted\"\ncaption = \"SYNTHETIC. A generated image standing in for a case photograph.\"\nredact = [ {{ x = {:.2}, y = {:.2}, w = {:.2}, h = {:.2}{method} }} ]\n",
                region.0, region.1, region.2, region.3
            ));
        }
        // Front matter ends at the second `+++`: append the tables just before it.
        let close = text[3..]
            .find("\n+++")
            .map(|i| i + 3)
            .expect("front matter");
        let updated = format!(
            "{}{}{}",
            &text[..close],
            entries.trim_end_matches('\n'),
            &text[close..]
        );
        std::fs::write(&index, updated).unwrap();
    }
}

fn main() {
    let mut cases = 1000usize;
    let mut photos = 0usize;
    // `None`: camera sizes, mixed.
    let mut photo_size = Some((1600u32, 1200u32));
    let mut out = PathBuf::from("corpus");
    let mut hugo: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--cases" => cases = args.next().and_then(|v| v.parse().ok()).expect("--cases N"),
            "--out" => out = PathBuf::from(args.next().expect("--out DIR")),
            "--hugo" => hugo = Some(PathBuf::from(args.next().expect("--hugo DIR"))),
            "--photos" => {
                photos = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--photos N")
            }
            "--photo-size" => {
                let v = args.next().expect("--photo-size WxH|camera");
                photo_size = (v != "camera").then(|| {
                    let (w, h) = v.split_once('x').expect("--photo-size WxH|camera");
                    (w.parse().expect("width"), h.parse().expect("height"))
                });
            }
            "--figure" => {
                // One synthetic image, e.g. for a figure on an ordinary page.
                let path = PathBuf::from(args.next().expect("--figure FILE"));
                let mut rng = Rng(0xF16_0000_0001);
                let img = synthetic_photo(&mut rng, 800, 600, (0.3, 0.1, 0.4, 0.3));
                std::fs::write(&path, encode(&img, 60)).unwrap();
                return;
            }
            "--add-photos" => {
                add_photos(&PathBuf::from(args.next().expect("--add-photos DIR")));
                return;
            }
            "-h" | "--help" => {
                println!("gen-corpus --cases N --out DIR");
                return;
            }
            other => panic!("unknown argument {other}; usage: gen-corpus --cases N --out DIR"),
        }
    }
    if out.exists() {
        std::fs::remove_dir_all(&out).expect("remove the previous corpus");
    }
    let content = out.join("content");
    std::fs::create_dir_all(content.join("cases")).unwrap();
    std::fs::write(out.join("casebook.toml"), CONFIG).unwrap();
    std::fs::write(
        content.join("_index.md"),
        "+++\ntitle = \"Benchmark corpus\"\n+++\nA generated corpus. See [the cases](@/cases/_index.md).\n",
    )
    .unwrap();
    std::fs::write(
        content.join("cases/_index.md"),
        "+++\ntitle = \"Cases\"\nweight = 1\n+++\nSynthetic benchmark cases.\n",
    )
    .unwrap();
    // The bundled figures page's charts, over the generated cases.
    std::fs::write(
        content.join("figures.md"),
        "+++\ntitle = \"Figures\"\nweight = 5\ntemplate = \"figures.html\"\n\n\
         [[extra.charts]]\nfield = \"photographed\"\nby = \"month\"\n\n\
         [[extra.charts]]\nfacet = \"branch\"\n\n[[extra.charts]]\nfacet = \"indicator\"\n\n\
         [[extra.charts]]\nfacet = \"age\"\n\n[[extra.charts]]\nfacet = \"status\"\n+++\n\
         Charts of the generated cases.\n",
    )
    .unwrap();
    for (i, title) in ["Report", "Methodology", "Sources"].iter().enumerate() {
        std::fs::write(
            content.join(format!("{}.md", title.to_lowercase())),
            format!("+++\ntitle = \"{title}\"\nweight = {}\ndate = 2014-01-2{i}\n+++\n## Overview\n\nText.\n\n## Details\n\nMore text.\n", i + 2),
        )
        .unwrap();
    }

    if let Some(dir) = &hugo {
        hugo_site(dir);
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut camera_photos: Vec<CameraPhoto> = Vec::new();
    for n in 1..=cases {
        let id = format!("syn-{n:06}");
        let branch = BRANCHES[rng.below(BRANCHES.len())];
        let year = 2011 + rng.below(3);
        let month = 1 + rng.below(12);
        let day = 1 + rng.below(28);
        let mut indicators: Vec<&str> = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let ind = INDICATORS[rng.below(INDICATORS.len())];
            if !indicators.contains(&ind) {
                indicators.push(ind);
            }
        }
        let mut body = String::from(
            "This is a synthetic sample record; it does not describe a real person.\n\n",
        );
        for p in 0..3 {
            for w in 0..50 {
                body.push_str(WORDS[rng.below(WORDS.len())]);
                body.push(if w == 49 { '.' } else { ' ' });
            }
            body.push_str(if p == 2 { "\n" } else { "\n\n" });
        }
        let mut text = String::new();
        writeln!(text, "+++").unwrap();
        writeln!(
            text,
            "title = \"Sample case {} (synthetic)\"",
            id.to_uppercase()
        )
        .unwrap();
        writeln!(
            text,
            "description = \"Synthetic benchmark record from branch {branch}.\""
        )
        .unwrap();
        writeln!(text, "case_id = \"{id}\"").unwrap();
        writeln!(text, "detainee_number = {}", 100_000 + n).unwrap();
        writeln!(text, "branch = \"{branch}\"").unwrap();
        writeln!(text, "forensic_number = {}", 1 + rng.below(9999)).unwrap();
        writeln!(
            text,
            "hospital = \"{}\"",
            if rng.below(2) == 0 { "601" } else { "tishreen" }
        )
        .unwrap();
        writeln!(text, "photographed = {year}-{month:02}-{day:02}").unwrap();
        writeln!(
            text,
            "sex = \"{}\"",
            if rng.below(200) == 0 {
                "female"
            } else {
                "male"
            }
        )
        .unwrap();
        writeln!(text, "age_range = \"{}\"", AGES[rng.below(AGES.len())]).unwrap();
        let quoted: Vec<String> = indicators.iter().map(|i| format!("\"{i}\"")).collect();
        writeln!(text, "indicators = [{}]", quoted.join(", ")).unwrap();
        writeln!(text, "status = \"{}\"", STATUSES[rng.below(STATUSES.len())]).unwrap();
        writeln!(text, "synthetic = true").unwrap();
        let dir = content.join("cases").join(&id);
        std::fs::create_dir_all(&dir).unwrap();
        for p in 1..=photos {
            camera_photos.push(CameraPhoto {
                file: dir.join(format!("photo-{p}.jpg")),
                seed: 0xCA3E_0000_0000_0001 + 2 * ((n as u64) << 8 | p as u64),
                size: photo_size,
            });
            writeln!(text, "[[photos]]").unwrap();
            writeln!(text, "file = \"photo-{p}.jpg\"").unwrap();
            writeln!(text, "alt = \"Synthetic benchmark image {p}\"").unwrap();
            writeln!(
                text,
                "redact = [ {{ x = 0.3, y = 0.05, w = 0.4, h = 0.3 }} ]"
            )
            .unwrap();
        }
        writeln!(text, "+++").unwrap();
        text.push_str(&body);
        std::fs::write(dir.join("index.md"), &text).unwrap();
        if let Some(hugo) = &hugo {
            let sex = if text.contains("sex = \"female\"") {
                "female"
            } else {
                "male"
            };
            let age = text
                .lines()
                .find_map(|l| l.strip_prefix("age_range = "))
                .unwrap_or("\"unknown\"");
            let status = text
                .lines()
                .find_map(|l| l.strip_prefix("status = "))
                .unwrap_or("\"unidentified\"");
            let page = format!(
                "+++\ntitle = \"Sample case {} (synthetic)\"\ndate = {year}-{month:02}-{day:02}\n\
                 branches = [\"{branch}\"]\nyears = [\"{year}\"]\nindicators = [{}]\n\
                 sexes = [\"{sex}\"]\nages = [{age}]\nstatuses = [{status}]\n+++\n{body}",
                id.to_uppercase(),
                quoted.join(", "),
            );
            let dir = hugo.join("content/cases").join(&id);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("index.md"), page).unwrap();
        }
    }
    {
        use rayon::prelude::*;
        camera_photos.par_iter().for_each(CameraPhoto::write);
    }
    println!("wrote {cases} synthetic cases to {}", out.display());
}

/// A photograph at a camera size (or a fixed one), made from its own seed so that
/// photographs can be made in parallel and still be the same on every run.
struct CameraPhoto {
    file: PathBuf,
    seed: u64,
    /// A fixed size (`--photo-size WxH`, always landscape), or `None` for camera sizes.
    size: Option<(u32, u32)>,
}

impl CameraPhoto {
    const SIZES: [(u32, u32); 4] = [(1600, 1200), (2048, 1536), (3264, 2448), (4000, 3000)];

    fn write(&self) {
        // Odd and distinct for every photograph; the first outputs are discarded because
        // neighbouring seeds start alike.
        let mut rng = Rng(self.seed);
        for _ in 0..4 {
            rng.next();
        }
        let (w, h) = self
            .size
            .unwrap_or_else(|| Self::SIZES[rng.below(Self::SIZES.len())]);
        // One in five camera photographs is portrait: stored landscape, with EXIF
        // orientation 6 (turn 90° clockwise to show), as cameras store them. The patch a
        // redaction must hide is drawn where the displayed image's region falls in the
        // stored pixels.
        let portrait = self.size.is_none() && rng.below(5) == 0;
        let region = if portrait {
            (0.05, 0.3, 0.3, 0.4)
        } else {
            (0.3, 0.05, 0.4, 0.3)
        };
        let img = synthetic_photo(&mut rng, w, h, region);
        let mut out = Vec::new();
        let mut encoder = jpeg_encoder::Encoder::new(&mut out, 85);
        if portrait {
            encoder
                .add_app_segment(1, &exif_orientation(6))
                .expect("EXIF segment");
        }
        encoder
            .encode(
                img.as_raw(),
                w as u16,
                h as u16,
                jpeg_encoder::ColorType::Rgb,
            )
            .expect("encode");
        std::fs::write(&self.file, out).unwrap();
    }
}

/// An EXIF block holding only an orientation tag.
fn exif_orientation(orientation: u16) -> Vec<u8> {
    let mut exif = b"Exif\0\0II".to_vec();
    exif.extend_from_slice(&42u16.to_le_bytes());
    exif.extend_from_slice(&8u32.to_le_bytes()); // IFD0 follows the header
    exif.extend_from_slice(&1u16.to_le_bytes()); // one entry
    exif.extend_from_slice(&0x0112u16.to_le_bytes()); // Orientation
    exif.extend_from_slice(&3u16.to_le_bytes()); // SHORT
    exif.extend_from_slice(&1u32.to_le_bytes()); // one value
    exif.extend_from_slice(&u32::from(orientation).to_le_bytes());
    exif.extend_from_slice(&0u32.to_le_bytes()); // no next IFD
    exif
}

/// A Hugo site for the same cases: the same facets as taxonomies, lists paginated by 50,
/// and plain templates that show what casebook's lists and case pages show.
fn hugo_site(dir: &std::path::Path) {
    if dir.exists() {
        std::fs::remove_dir_all(dir).expect("remove the previous Hugo corpus");
    }
    let layouts = dir.join("layouts/_default");
    std::fs::create_dir_all(&layouts).unwrap();
    std::fs::create_dir_all(dir.join("content/cases")).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "baseURL = \"https://example.org/\"\ntitle = \"Benchmark corpus\"\n\
         paginate = 50\ndisableKinds = [\"RSS\"]\n\n[taxonomies]\nbranch = \"branches\"\n\
         year = \"years\"\nindicator = \"indicators\"\nsex = \"sexes\"\nage = \"ages\"\n\
         status = \"statuses\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("content/cases/_index.md"),
        "+++\ntitle = \"Cases\"\n+++\nSynthetic benchmark cases.\n",
    )
    .unwrap();
    let files = [
        (
            "baseof.html",
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{{ .Title }}</title></head>\
             <body><nav><a href=\"/\">Home</a> <a href=\"/cases/\">Cases</a></nav><main>{{ block \"main\" . }}{{ end }}</main></body></html>",
        ),
        (
            "single.html",
            "{{ define \"main\" }}<h1>{{ .Title }}</h1><dl>{{ range $k, $v := .Params }}<dt>{{ $k }}</dt><dd>{{ $v }}</dd>{{ end }}</dl>{{ .Content }}{{ end }}",
        ),
        (
            "list.html",
            "{{ define \"main\" }}<h1>{{ .Title }}</h1>{{ .Content }}<ul>{{ range .Paginator.Pages }}<li><a href=\"{{ .RelPermalink }}\">{{ .Title }}</a> {{ .Date.Format \"2006-01-02\" }}</li>{{ end }}</ul>{{ template \"_internal/pagination.html\" . }}{{ end }}",
        ),
        (
            "terms.html",
            "{{ define \"main\" }}<h1>{{ .Title }}</h1><ul>{{ range .Data.Terms.ByCount }}<li><a href=\"{{ .Page.RelPermalink }}\">{{ .Page.Title }}</a> {{ .Count }}</li>{{ end }}</ul>{{ end }}",
        ),
    ];
    for (name, text) in files {
        std::fs::write(layouts.join(name), text).unwrap();
    }
}
