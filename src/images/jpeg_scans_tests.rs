use super::{check, next_marker};
use image::RgbImage;
use jpeg_encoder::{ColorType, Encoder, SamplingFactor};

/// A noisy generated picture (nothing photographed), so that every block holds data.
fn noisy(w: u32, h: u32) -> RgbImage {
    RgbImage::from_fn(w, h, |x, y| {
        let n = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) >> 7;
        image::Rgb([(x * 3) as u8 ^ n as u8, (y * 5) as u8, (n >> 8) as u8])
    })
}

fn encode(img: &RgbImage, progressive: bool, sampling: SamplingFactor, restart: u16) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = Encoder::new(&mut out, 90);
    encoder.set_progressive(progressive);
    encoder.set_sampling_factor(sampling);
    encoder.set_restart_interval(restart);
    let (w, h) = (img.width() as u16, img.height() as u16);
    encoder.encode(img.as_raw(), w, h, ColorType::Rgb).unwrap();
    out
}

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

const PROGRESSIVE: [&str; 3] = [
    "progressive/prog.jpg",
    "progressive/prog-rst.jpg",
    "progressive/prog-grey.jpg",
];

/// Where each scan (its SOS marker) starts.
fn scan_starts(bytes: &[u8]) -> Vec<usize> {
    let (mut at, mut starts) = (2, Vec::new());
    loop {
        at = next_marker(bytes, at);
        match bytes[at + 1] {
            0xD9 => return starts,
            0xD0..=0xD7 => at += 2,
            m => {
                if m == 0xDA {
                    starts.push(at);
                }
                at += 2 + usize::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]));
            }
        }
    }
}

fn closed(cut: &[u8]) -> Vec<u8> {
    [cut, &[0xFF, 0xD9]].concat()
}

#[test]
fn whole_jpegs_of_every_kind_pass() {
    use SamplingFactor::*;
    for (w, h) in [(1, 1), (8, 8), (37, 23), (241, 181)] {
        let img = noisy(w, h);
        for sampling in [R_4_4_4, R_4_2_2, R_4_2_0, R_4_4_0, R_4_1_1, F_4_1] {
            for progressive in [false, true] {
                for restart in [0, 3] {
                    let bytes = encode(&img, progressive, sampling, restart);
                    let what = format!("{w}x{h} {sampling:?} {progressive} {restart}");
                    assert_eq!(check(&bytes), Ok(()), "{what}");
                }
            }
        }
        let mut grey = Vec::new();
        let luma: Vec<u8> = img.pixels().map(|p| p[1]).collect();
        Encoder::new(&mut grey, 80)
            .encode(&luma, w as u16, h as u16, ColorType::Luma)
            .unwrap();
        assert_eq!(check(&grey), Ok(()));
        let mut by_image = std::io::Cursor::new(Vec::new());
        img.write_to(&mut by_image, image::ImageFormat::Jpeg)
            .unwrap();
        assert_eq!(check(by_image.get_ref()), Ok(()));
    }
    for dir in ["cameras", "gps", "odd-metadata", "orientation", "xmp"] {
        let path = format!(
            "{}/tests/fixtures/photos-real/{dir}",
            env!("CARGO_MANIFEST_DIR")
        );
        for entry in std::fs::read_dir(path).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jpg") {
                let bytes = std::fs::read(&path).unwrap();
                assert_eq!(check(&bytes), Ok(()), "{}", path.display());
            }
        }
    }
    for path in PROGRESSIVE {
        assert_eq!(check(&fixture(path)), Ok(()), "{path}");
    }
}

#[test]
fn a_frame_taller_than_its_scan_is_refused() {
    let bytes = encode(&noisy(64, 48), false, SamplingFactor::R_4_2_0, 0);
    let sof = bytes.windows(2).position(|m| m == [0xFF, 0xC0]).unwrap();
    let mut taller = bytes.clone();
    taller[sof + 5..sof + 7].copy_from_slice(&96u16.to_be_bytes());
    let err = check(&taller).unwrap_err();
    assert!(
        err.contains("ends before the picture does (at block row 4 of 6)"),
        "{err}"
    );
}

#[test]
fn baseline_jpegs_cut_anywhere_are_refused_closed_again_or_not() {
    for restart in [0, 2] {
        let bytes = encode(&noisy(48, 40), false, SamplingFactor::R_4_2_0, restart);
        let data = scan_starts(&bytes)[0] + 14;
        for cut in data..bytes.len() - 2 {
            assert!(check(&closed(&bytes[..cut])).is_err(), "{restart}: {cut}");
            assert!(check(&bytes[..cut]).is_err(), "{restart}: {cut}");
        }
    }
}

#[test]
fn progressive_jpegs_missing_scans_or_cut_within_one_are_refused() {
    let generated = encode(&noisy(61, 37), true, SamplingFactor::R_4_2_0, 0);
    let files = PROGRESSIVE.map(fixture);
    for (i, bytes) in files.iter().chain([&generated]).enumerate() {
        let starts = scan_starts(bytes);
        assert!(starts.len() > 4, "{i}");
        // Whole scans left out, the file closed again after them.
        for &start in &starts[1..] {
            let err = check(&closed(&bytes[..start])).unwrap_err();
            assert!(err.contains("scans are missing"), "{i}: {err}");
        }
        // Cut inside any scan, the last one included.
        for cut in starts[0] + 8..bytes.len() - 2 {
            assert!(check(&closed(&bytes[..cut])).is_err(), "{i}: {cut}");
        }
    }
}
