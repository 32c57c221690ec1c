use super::sealed;
use image::RgbImage;
use jpeg_encoder::{ColorType, Encoder, SamplingFactor};

fn noisy(w: u32, h: u32) -> RgbImage {
    RgbImage::from_fn(w, h, |x, y| {
        let n = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) >> 7;
        image::Rgb([(x * 3) as u8 ^ n as u8, (y * 5) as u8, (n >> 8) as u8])
    })
}

fn encode(img: &RgbImage, sampling: SamplingFactor, restart: u16) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = Encoder::new(&mut out, 90);
    encoder.set_sampling_factor(sampling);
    encoder.set_restart_interval(restart);
    let (w, h) = (img.width() as u16, img.height() as u16);
    encoder.encode(img.as_raw(), w, h, ColorType::Rgb).unwrap();
    out
}

/// Both decoders casebook uses, as it uses them (zune-jpeg strictly; jpeg-decoder).
fn zune(bytes: &[u8]) -> Result<Vec<u8>, String> {
    use zune_core::bytestream::ZCursor;
    let options = zune_core::options::DecoderOptions::default().set_strict_mode(true);
    zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), options)
        .decode()
        .map_err(|e| e.to_string())
}

fn jpeg_decoder(bytes: &[u8]) -> Result<Vec<u8>, String> {
    jpeg_decoder::Decoder::new(bytes)
        .decode()
        .map_err(|e| e.to_string())
}

fn real_jpegs() -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for dir in ["cameras", "gps", "odd-metadata", "orientation", "xmp"] {
        let dir = format!(
            "{}/tests/fixtures/photos-real/{dir}",
            env!("CARGO_MANIFEST_DIR")
        );
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jpg") {
                files.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    files
}

/// A whole file's sealed copy decodes, in both decoders, to exactly its own pixels.
#[test]
fn a_sealed_whole_jpeg_decodes_to_the_same_pixels() {
    use SamplingFactor::*;
    let mut files = real_jpegs();
    for (w, h) in [(1, 1), (8, 8), (37, 23), (241, 181)] {
        for sampling in [R_4_4_4, R_4_2_2, R_4_2_0, R_4_4_0, R_4_1_1, F_4_1] {
            for restart in [0, 1, 3] {
                let what = format!("{w}x{h} {sampling:?} restart {restart}");
                files.push((what, encode(&noisy(w, h), sampling, restart)));
            }
        }
        let mut grey = Vec::new();
        let luma: Vec<u8> = noisy(w, h).pixels().map(|p| p[1]).collect();
        Encoder::new(&mut grey, 80)
            .encode(&luma, w as u16, h as u16, ColorType::Luma)
            .unwrap();
        files.push((format!("{w}x{h} grey"), grey));
    }
    for (what, bytes) in files {
        let Some(copy) = sealed(&bytes).unwrap() else {
            assert!(what.contains("4_1"), "{what} was not sealed");
            continue;
        };
        assert_ne!(copy, bytes, "{what}: sealed");
        assert_eq!(zune(&copy), zune(&bytes), "{what}: zune-jpeg");
        let expected = jpeg_decoder(&bytes).unwrap();
        assert_eq!(jpeg_decoder(&copy), Ok(expected), "{what}: jpeg-decoder");
    }
}

/// Cut anywhere in its data, closed again or not, a sequential JPEG either fails in both
/// decoders or (cut only where the seal's ones stand in for its own last bits) decodes to
/// exactly the whole file's pixels: never to a picture the file does not hold.
#[test]
fn a_sealed_jpeg_cut_anywhere_fails_in_both_decoders() {
    use SamplingFactor::*;
    let mut refused = 0;
    for (sampling, restart) in [(R_4_2_0, 0), (R_4_2_0, 2), (R_4_4_4, 1), (R_4_2_2, 0)] {
        let bytes = encode(&noisy(48, 40), sampling, restart);
        let whole = (zune(&bytes).unwrap(), jpeg_decoder(&bytes).unwrap());
        let data = bytes.windows(2).position(|m| m == [0xFF, 0xDA]).unwrap() + 14;
        for cut in data..bytes.len() - 2 {
            for file in [
                [&bytes[..cut], &[0xFF, 0xD9]].concat(),
                bytes[..cut].to_vec(),
            ] {
                let what = format!("{sampling:?} {restart}: cut at {cut} of {}", bytes.len());
                let Ok(Some(copy)) = sealed(&file) else {
                    refused += 1;
                    continue;
                };
                match (zune(&copy), jpeg_decoder(&copy)) {
                    (Err(_), Err(_)) => refused += 1,
                    (Ok(a), Ok(b)) => assert_eq!((a, b), whole, "{what}"),
                    (a, b) => panic!("{what}: {:?} / {:?}", a.map(|_| ()), b.map(|_| ())),
                }
            }
        }
    }
    assert!(refused > 3000, "{refused}");
}

#[test]
fn a_component_without_a_scan_is_refused_and_progressive_files_are_left_to_the_walk() {
    let bytes = encode(&noisy(16, 16), SamplingFactor::R_4_2_0, 0);
    // Three components declared, scan of one: the frame says 3, the scan names only Y.
    let sos = bytes.windows(2).position(|m| m == [0xFF, 0xDA]).unwrap();
    let mut one = bytes.clone();
    one[sos + 4] = 1;
    let err = sealed(&one).unwrap_err();
    assert!(err.contains("scans are missing"), "{err}");
    let mut progressive = Vec::new();
    let mut encoder = Encoder::new(&mut progressive, 90);
    encoder.set_progressive(true);
    encoder
        .encode(noisy(16, 16).as_raw(), 16, 16, ColorType::Rgb)
        .unwrap();
    assert_eq!(sealed(&progressive), Ok(None));
    assert!(sealed(b"not a jpeg").is_err());
}
