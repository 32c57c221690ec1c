//! Evidence photographs: no metadata, no source, upright, redacted at every size, broken
//! inputs rejected, graphic images hidden, manifest, verify, audit, cache.

use std::collections::HashSet;

use sha2::{Digest, Sha256};

use crate::support::{SiteTest, assert_same_as_fresh, attrs, copy_tree, tree};

const CASE: &str = "content/cases/c-001/index.md";

fn hex(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// JPEG markers up to the start of scan.
fn segments(bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    assert_eq!(&bytes[..2], &[0xFF, 0xD8], "not a JPEG");
    let mut out = Vec::new();
    let mut i = 2;
    loop {
        assert_eq!(bytes[i], 0xFF, "marker expected at {i}");
        let marker = bytes[i + 1];
        let len = u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]) as usize;
        out.push((marker, bytes[i + 4..i + 2 + len].to_vec()));
        if marker == 0xDA {
            return out;
        }
        i += 2 + len;
    }
}

fn published_jpegs(site: &SiteTest) -> Vec<(String, Vec<u8>)> {
    tree(&site.public())
        .into_iter()
        .filter(|(p, _)| p.ends_with(".jpg"))
        .collect()
}

/// The minimal fixture with real camera photographs attached to case c-001.
fn real_photos_site() -> (SiteTest, Vec<String>) {
    let sources = [
        "gps/DSCN0010.jpg",
        "gps/45-gps_ifd.jpg",
        "xmp/BlueSquare.jpg",
        "xmp/no_exif.jpg",
        "cameras/Canon_40D.jpg",
        "cameras/Nikon_D70.jpg",
        "cameras/BSG1.tiff",
        "odd-metadata/67-0_length_string.jpg",
        "odd-metadata/35-empty.jpg",
        "odd-metadata/image01137.jpg",
    ];
    let mut site = SiteTest::fixture("minimal");
    let mut tables = String::new();
    for (i, src) in sources.iter().enumerate() {
        let ext = src.rsplit('.').next().unwrap();
        let name = format!("p{i}.{ext}");
        site = site.copy_in(
            &format!("photos-real/{src}"),
            &format!("content/cases/c-001/{name}"),
        );
        tables.push_str(&format!("[[photos]]\nfile = \"{name}\"\nalt = \"Real test photo {i}\"\nsensitivity = \"none\"\n\n"));
    }
    (
        site.photos(CASE, &tables),
        sources.iter().map(|s| s.to_string()).collect(),
    )
}

#[test]
fn published_images_carry_no_metadata_and_no_source_bytes() {
    let (site, sources) = real_photos_site();
    site.build().success();
    let jpegs = published_jpegs(&site);
    assert_eq!(
        jpegs
            .iter()
            .filter(|(p, _)| p.ends_with(".blur.jpg"))
            .count(),
        10,
        "a placeholder per photograph"
    );
    assert!(
        jpegs.len() >= 20,
        "at least one size and a placeholder per photograph"
    );
    for (path, bytes) in &jpegs {
        for (marker, payload) in segments(bytes) {
            match marker {
                0xE0 => assert!(
                    payload.starts_with(b"JFIF\0") && payload.len() <= 16,
                    "{path}: APP0 is not a plain JFIF header"
                ),
                0xDB | 0xC0 | 0xC2 | 0xC4 | 0xDA => {}
                other => panic!("{path}: forbidden segment 0xFF{other:02X}"),
            }
        }
    }
    let source_hashes: HashSet<String> = sources
        .iter()
        .map(|s| {
            hex(&std::fs::read(
                crate::support::repo_root()
                    .join("tests/fixtures/photos-real")
                    .join(s),
            )
            .unwrap())
        })
        .collect();
    for (path, bytes) in tree(&site.public()) {
        assert!(
            !source_hashes.contains(&hex(&bytes)),
            "{path} is a source file"
        );
        assert!(
            !path.ends_with(".tiff") && !path.contains("/p0.jpg"),
            "{path} published under its source name"
        );
    }
    // casebook's own audit agrees.
    site.run(&["check"]).success();
}

#[test]
fn output_names_carry_a_content_hash_and_the_width() {
    let (site, _) = real_photos_site();
    site.build().success();
    let names: Vec<String> = published_jpegs(&site).into_iter().map(|(p, _)| p).collect();
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("cases/c-001/p0.") && n.ends_with(".400.jpg")),
        "{names:?}"
    );
    for n in &names {
        let file = n.rsplit('/').next().unwrap();
        let parts: Vec<&str> = file.split('.').collect();
        assert_eq!(parts.len(), 4, "{file}");
        assert_eq!(parts[1].len(), 8, "{file}");
        assert!(
            parts[2] == "blur" || parts[2].parse::<u32>().is_ok(),
            "{file}"
        );
    }
}

/// Mean absolute difference of two RGB images of the same size.
fn difference(a: &image::RgbImage, b: &image::RgbImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let sum: u64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    sum as f64 / a.as_raw().len() as f64
}

#[test]
fn orientation_tags_become_upright_pixels() {
    let mut site = SiteTest::fixture("minimal");
    let mut tables = String::new();
    for kind in ["landscape", "portrait"] {
        for n in [1, 3, 6, 8] {
            let name = format!("{kind}-{n}.jpg");
            site = site.copy_in(
                &format!("photos-real/orientation/{kind}_{n}.jpg"),
                &format!("content/cases/c-001/{name}"),
            );
            tables.push_str(&format!(
                "[[photos]]\nfile = \"{name}\"\nalt = \"{kind} {n}\"\n\n"
            ));
        }
    }
    let site = site.photos(CASE, &tables);
    site.build().success();
    let load = |kind: &str, n: u32| {
        let (path, bytes) = published_jpegs(&site)
            .into_iter()
            .find(|(p, _)| p.contains(&format!("/{kind}-{n}.")) && p.ends_with(".400.jpg"))
            .unwrap();
        (path, image::load_from_memory(&bytes).unwrap().to_rgb8())
    };
    for kind in ["landscape", "portrait"] {
        let (_, upright) = load(kind, 1);
        let (w, h) = upright.dimensions();
        assert_eq!(kind == "landscape", w > h, "{kind}_1 has the wrong shape");
        for n in [3, 6, 8] {
            let (path, img) = load(kind, n);
            assert_eq!(img.dimensions(), (w, h), "{path}");
            // Closer to the upright image than any wrong way up of itself.
            let right = difference(&upright, &img);
            for wrong in [
                image::imageops::rotate180(&img),
                image::imageops::flip_horizontal(&img),
                image::imageops::flip_vertical(&img),
            ] {
                let d = difference(&upright, &wrong);
                assert!(
                    right < d * 0.6,
                    "{path}: {right:.1} from upright, {d:.1} for a wrong orientation"
                );
            }
        }
    }
}

#[test]
fn redaction_holds_at_every_size() {
    let site = SiteTest::fixture("minimal").photos(
        CASE,
        "[[photos]]\nfile = \"pattern.png\"\nalt = \"Pattern; centre redacted\"\nredact = [ { x = 0.25, y = 0.25, w = 0.5, h = 0.5 } ]\n\n[[photos]]\nfile = \"pattern2.png\"\nalt = \"Pattern; centre pixelated\"\nredact = [ { x = 0.25, y = 0.25, w = 0.5, h = 0.5, method = \"pixelate\" } ]\n",
    );
    let bytes = crate::support::patterned_png(1600, 1200);
    std::fs::write(site.root().join("content/cases/c-001/pattern.png"), &bytes).unwrap();
    std::fs::write(site.root().join("content/cases/c-001/pattern2.png"), &bytes).unwrap();
    site.build().success();
    let mut checked = 0;
    for (path, bytes) in published_jpegs(&site) {
        let img = image::load_from_memory(&bytes).unwrap().to_rgb8();
        let (w, h) = img.dimensions();
        // The inside of the region, away from edges where resizing blends in the outside.
        let (x0, x1, y0, y1) = (w * 3 / 10, w * 7 / 10, h * 3 / 10, h * 7 / 10);
        let inside: Vec<&image::Rgb<u8>> = (y0..y1)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .map(|(x, y)| img.get_pixel(x, y))
            .collect();
        if path.ends_with(".blur.jpg") {
            // Placeholders are a few dozen pixels wide: no detail can survive in them.
            assert!(w <= 64, "{path}");
        } else if path.contains("/pattern.") {
            for p in &inside {
                assert!(
                    p.0.iter().all(|&c| c < 24),
                    "{path}: pattern survives inside the fill: {p:?}"
                );
            }
        } else {
            // Pixelated: the 3-pixel checkerboard averages away; neighbouring pixels agree.
            let mut jumps = 0;
            for y in y0..y1 {
                for x in x0..x1 - 1 {
                    let (a, b) = (img.get_pixel(x, y), img.get_pixel(x + 1, y));
                    if a.0.iter().zip(b.0).any(|(p, q)| p.abs_diff(q) > 60) {
                        jumps += 1;
                    }
                }
            }
            assert_eq!(
                jumps, 0,
                "{path}: the checkerboard shows through the pixelation"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 6);
}

#[test]
fn broken_inputs_are_clear_errors_and_leave_the_output_intact() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let before = tree(&site.public());
    let cases = [
        ("truncated.jpg", "damaged or truncated"),
        ("empty.jpg", "the file is empty"),
        ("not-an-image.jpg", "not an image"),
        ("huge-dimensions.png", "larger than the configured limits"),
    ];
    for (file, expected) in cases {
        let site = SiteTest::fixture("minimal")
            .copy_in(
                &format!("photos-real/broken/{file}"),
                &format!("content/cases/c-002/{file}"),
            )
            .photos(
                "content/cases/c-002/index.md",
                &format!("[[photos]]\nfile = \"{file}\"\nalt = \"x\"\n"),
            );
        site.build()
            .failure(1)
            .stderr_has(&format!(
                "content/cases/c-002/index.md:9:1: photos[0].file: photograph `{file}`:"
            ))
            .stderr_has(expected);
    }
    // The same failures leave an existing output untouched.
    let site = site
        .copy_in(
            "photos-real/broken/truncated.jpg",
            "content/cases/c-002/t.jpg",
        )
        .photos(
            "content/cases/c-002/index.md",
            "[[photos]]\nfile = \"t.jpg\"\nalt = \"x\"\n",
        );
    site.build().failure(1);
    assert!(tree(&site.public()) == before);
}

#[test]
fn files_outside_the_case_folder_are_refused() {
    for (file, expected) in [
        ("missing.jpg", "the file does not exist"),
        ("../c-002/index.md", "the path leaves the page's folder"),
        ("/etc/hostname", "the path leaves the page's folder"),
        ("link.jpg", "a link to somewhere outside"),
    ] {
        let site = SiteTest::fixture("minimal")
            .copy_in("photos-real/xmp/no_exif.jpg", "outside/secret.jpg")
            .photos(
                CASE,
                &format!("[[photos]]\nfile = \"{file}\"\nalt = \"x\"\n"),
            );
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            site.root().join("outside/secret.jpg"),
            site.root().join("content/cases/c-001/link.jpg"),
        )
        .unwrap();
        site.build()
            .failure(1)
            .stderr_has("content/cases/c-001/index.md:9:1: photos[0].file:")
            .stderr_has(expected);
    }
}

#[test]
fn a_pinned_source_hash_must_match() {
    let good = hex(&std::fs::read(
        crate::support::repo_root().join("tests/fixtures/photos-real/xmp/no_exif.jpg"),
    )
    .unwrap());
    let site = SiteTest::fixture("minimal")
        .copy_in("photos-real/xmp/no_exif.jpg", "content/cases/c-001/a.jpg")
        .photos(
            CASE,
            &format!("[[photos]]\nfile = \"a.jpg\"\nalt = \"x\"\nsource_sha256 = \"{good}\"\n"),
        );
    site.build().success();
    let bad = "0".repeat(64);
    let site = site.edit(CASE, &good, &bad);
    site.build()
        .failure(1)
        .stderr_has("photograph `a.jpg`: the file's SHA-256 is")
        .stderr_has(&bad);
}

#[test]
fn missing_alt_text_and_bad_regions_are_located() {
    let site = SiteTest::fixture("minimal")
        .copy_in("photos-real/xmp/no_exif.jpg", "content/cases/c-001/a.jpg")
        .photos(
            CASE,
            "[[photos]]\nfile = \"a.jpg\"\nredact = [ { x = 0.8, y = 0.1, w = 0.5, h = 0.2 } ]\n",
        );
    site.build()
        .failure(1)
        .stderr_has("index.md:9:1: photos[0].alt: photograph a.jpg has no alt text")
        .stderr_has("photos[0].redact[0]: the region is empty or extends beyond the image");
}

#[test]
fn graphic_photos_are_never_shown_unasked() {
    let site = SiteTest::fixture("minimal")
        .copy_in("photos-real/xmp/no_exif.jpg", "content/cases/c-001/g.jpg")
        .copy_in("photos-real/xmp/no_exif.jpg", "content/cases/c-001/s.jpg")
        .copy_in("photos-real/cameras/Canon_40D.jpg", "content/cases/c-001/n.jpg")
        .photos(CASE, "[[photos]]\nfile = \"g.jpg\"\nalt = \"Graphic one\"\n\n[[photos]]\nfile = \"s.jpg\"\nalt = \"Sensitive one\"\nsensitivity = \"sensitive\"\n\n[[photos]]\nfile = \"n.jpg\"\nalt = \"Plain one\"\nsensitivity = \"none\"\n");
    site.build().success();
    let page = site.html("cases/c-001/index.html");
    // Graphic (the case default): a blurred placeholder outside, the image inside a closed <details>.
    let graphic = attrs(
        &page,
        "figure.photo-graphic details.reveal:not([open]) img.photo-image",
        "alt",
    );
    assert_eq!(graphic, ["Graphic one"]);
    let placeholders = attrs(&page, "figure.photo-graphic summary img.placeholder", "src");
    assert!(placeholders[0].contains(".blur.jpg"), "{placeholders:?}");
    let blur = site.public().join("cases/c-001").join(&placeholders[0]);
    let tiny = image::open(blur).unwrap();
    assert!(
        tiny.width() <= 64,
        "the placeholder is only a few dozen pixels wide"
    );
    // Sensitive: a warning, no blur. None: shown directly.
    assert_eq!(
        crate::support::texts(&page, "figure.photo-sensitive .photo-warning").len(),
        1
    );
    assert!(attrs(&page, "figure.photo-sensitive details", "class").is_empty());
    assert_eq!(
        attrs(&page, "figure.photo-none > img.photo-image", "alt"),
        ["Plain one"]
    );
    // The opt-in script is external, and only on pages with graphic photographs.
    assert_eq!(attrs(&page, "script", "src"), ["../../casebook.js"]);
    assert!(attrs(&site.html("about/index.html"), "script", "src").is_empty());
    // Lists show only the placeholder of a graphic photograph.
    let list = site.html("cases/branch/215/index.html");
    let thumbs = attrs(&list, "img.thumb", "src");
    assert_eq!(thumbs.len(), 1);
    assert!(thumbs[0].ends_with(".blur.jpg"), "{thumbs:?}");
}

#[test]
fn the_manifest_ties_every_file_to_its_hash_and_every_image_to_its_source() {
    let site = SiteTest::fixture("minimal")
        .copy_in("photos-real/gps/DSCN0021.jpg", "content/cases/c-001/a.jpg")
        .photos(CASE, "[[photos]]\nfile = \"a.jpg\"\nalt = \"x\"\nredact = [ { x = 0.1, y = 0.1, w = 0.2, h = 0.2 } ]\n");
    site.build().success();
    let manifest: serde_json::Value = serde_json::from_str(&site.file("manifest.json")).unwrap();
    let files = manifest["files"].as_array().unwrap();
    // Every file but the manifest itself and the proofs and chunk list made from it.
    let on_disk: Vec<(String, Vec<u8>)> = tree(&site.public())
        .into_iter()
        .filter(|(p, _)| {
            p != "manifest.json" && p != "verify/chunks.json" && !p.starts_with("verify/proofs/")
        })
        .collect();
    assert_eq!(files.len(), on_disk.len());
    for (f, (path, bytes)) in files.iter().zip(&on_disk) {
        assert_eq!(f["path"], path.as_str());
        assert_eq!(f["sha256"], hex(bytes).as_str());
        assert_eq!(f["size"], bytes.len());
    }
    let source = hex(&std::fs::read(
        crate::support::repo_root().join("tests/fixtures/photos-real/gps/DSCN0021.jpg"),
    )
    .unwrap());
    let images = manifest["images"].as_array().unwrap();
    assert_eq!(images.len(), 3);
    for img in images {
        assert_eq!(img["source_sha256"], source.as_str());
        assert_eq!(img["source"], "content/cases/c-001/a.jpg");
        assert_eq!(img["redactions"][0]["w"], 0.2);
    }
    // Two builds, same manifest.
    let again = SiteTest::fixture("minimal")
        .copy_in("photos-real/gps/DSCN0021.jpg", "content/cases/c-001/a.jpg")
        .photos(CASE, "[[photos]]\nfile = \"a.jpg\"\nalt = \"x\"\nredact = [ { x = 0.1, y = 0.1, w = 0.2, h = 0.2 } ]\n");
    again.build().success();
    assert_eq!(site.file("manifest.json"), again.file("manifest.json"));
}

#[test]
fn verify_reports_every_changed_missing_or_extra_file() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let public = site.public().to_string_lossy().into_owned();
    let ok = site.run(&["verify", &public]);
    ok.success();
    assert!(ok.stdout.contains("match the Merkle root"), "{}", ok.stdout);
    std::fs::write(site.public().join("about/index.html"), "tampered").unwrap();
    std::fs::remove_file(site.public().join("robots.txt")).unwrap();
    std::fs::write(site.public().join("extra.html"), "x").unwrap();
    site.run(&["verify", &public])
        .failure(1)
        .stderr_has("about/index.html: size 8 differs from the manifest's")
        .stderr_has("robots.txt: listed in the manifest but missing")
        .stderr_has("extra.html: not listed in the manifest")
        .stderr_has("3 errors found");
}

#[test]
fn check_audits_the_built_output() {
    // Photographs dropped into static/ bypass the pipeline: the audit catches them.
    let site =
        SiteTest::fixture("minimal").copy_in("photos-real/gps/DSCN0010.jpg", "static/leak.jpg");
    std::fs::write(
        site.root().join("static/big.png"),
        crate::support::patterned_png(1600, 1200),
    )
    .unwrap();
    site.run(&["check"])
        .failure(1)
        .stderr_has("leak.jpg: image carries an APP1 segment (EXIF, GPS or XMP)")
        .stderr_has("big.png: image is 1600 px wide, wider than the largest configured width 1200");
    // Files already in public/ are audited too, and so is alt text.
    let site = SiteTest::fixture("minimal");
    site.build().success();
    std::fs::write(
        site.public().join("about/index.html"),
        "<p><img src=\"x.jpg\"></p>",
    )
    .unwrap();
    site.run(&["check"])
        .failure(1)
        .stderr_has("about/index.html: an <img> has no alt text");
}

fn cache_listing(site: &SiteTest) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(site.root().join(".casebook-cache/images"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn the_cache_re_derives_only_what_changed() {
    let site = SiteTest::fixture("minimal")
        .copy_in("photos-real/gps/DSCN0021.jpg", "content/cases/c-001/a.jpg")
        .copy_in("photos-real/gps/DSCN0042.jpg", "content/cases/c-001/b.jpg")
        .photos(CASE, "[[photos]]\nfile = \"a.jpg\"\nalt = \"a\"\nredact = [ { x = 0.1, y = 0.1, w = 0.2, h = 0.2 } ]\n\n[[photos]]\nfile = \"b.jpg\"\nalt = \"b\"\n");
    site.build().success();
    let first = cache_listing(&site);
    assert_eq!(first.len(), 6);
    let stamp = std::fs::metadata(site.root().join(".casebook-cache/images").join(&first[0]))
        .unwrap()
        .modified()
        .unwrap();
    let index = site.root().join(".casebook-cache/index.json");
    let index_stamp = std::fs::metadata(&index).unwrap().modified().unwrap();
    site.build().success();
    assert_eq!(cache_listing(&site), first, "a rebuild derives nothing new");
    assert_eq!(
        std::fs::metadata(&index).unwrap().modified().unwrap(),
        index_stamp,
        "an unchanged cache index is not written again"
    );
    assert_eq!(
        std::fs::metadata(site.root().join(".casebook-cache/images").join(&first[0]))
            .unwrap()
            .modified()
            .unwrap(),
        stamp
    );
    // A changed region re-derives that photograph alone: three new files.
    let site = site.edit(CASE, "w = 0.2", "w = 0.3");
    site.build().success();
    assert_eq!(cache_listing(&site).len(), 9);
    // The published files match a fresh build without a cache.
    let fresh = SiteTest::fixture("minimal")
        .copy_in("photos-real/gps/DSCN0021.jpg", "content/cases/c-001/a.jpg")
        .copy_in("photos-real/gps/DSCN0042.jpg", "content/cases/c-001/b.jpg")
        .photos(CASE, "[[photos]]\nfile = \"a.jpg\"\nalt = \"a\"\nredact = [ { x = 0.1, y = 0.1, w = 0.3, h = 0.2 } ]\n\n[[photos]]\nfile = \"b.jpg\"\nalt = \"b\"\n");
    assert_same_as_fresh(&site, fresh);
}

#[test]
fn removed_and_damaged_cache_files_are_derived_again() {
    let photos = "[[photos]]\nfile = \"a.jpg\"\nalt = \"a\"\n";
    let site = SiteTest::fixture("minimal")
        .copy_in("photos-real/gps/DSCN0021.jpg", "content/cases/c-001/a.jpg")
        .photos(CASE, photos);
    site.build().success();
    let images = site.root().join(".casebook-cache/images");
    let files = cache_listing(&site);
    assert_eq!(files.len(), 3);
    // Gone from the cache, while the index still lists it: the photograph is derived again.
    std::fs::remove_file(images.join(&files[0])).unwrap();
    std::fs::remove_dir_all(site.public()).unwrap();
    site.build().success().stdout_has("1 photograph derived");
    assert_eq!(cache_listing(&site), files);
    let fresh = SiteTest::fixture("minimal")
        .copy_in("photos-real/gps/DSCN0021.jpg", "content/cases/c-001/a.jpg")
        .photos(CASE, photos);
    assert_same_as_fresh(&site, fresh);
    // Cut short behind casebook's back: checked before it is published, and derived again.
    let damaged = images.join(&files[1]);
    let mut perms = std::fs::metadata(&damaged).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&damaged, perms).unwrap();
    std::fs::write(&damaged, b"short").unwrap();
    // The published copy of that file is removed, so the build must copy it out again.
    let prefix = &files[1][..8];
    let derivative = tree(&site.public())
        .into_iter()
        .map(|(path, _)| path)
        .find(|path| path.contains(&format!(".{prefix}.")))
        .unwrap();
    std::fs::remove_file(site.public().join(&derivative)).unwrap();
    let run = site.build();
    run.success()
        .stderr_has(&files[1])
        .stderr_has("this image cache file is damaged");
    assert_eq!(warnings(&run.stderr).len(), 1, "{}", run.stderr);
    assert_eq!(cache_listing(&site), files);
    let fresh = SiteTest::fixture("minimal")
        .copy_in("photos-real/gps/DSCN0021.jpg", "content/cases/c-001/a.jpg")
        .photos(CASE, photos);
    assert_same_as_fresh(&site, fresh);
}

#[test]
fn originals_are_never_copied_whatever_their_name() {
    // Listed under a misleading extension, unlisted without one, and an attachment of a page.
    let site = SiteTest::fixture("minimal")
        .copy_in(
            "photos-real/gps/DSCN0010.jpg",
            "content/cases/c-001/evidence.jfif",
        )
        .copy_in(
            "photos-real/gps/DSCN0010.jpg",
            "content/cases/c-001/evidence",
        )
        .copy_in(
            "photos-real/gps/DSCN0021.jpg",
            "content/docs/bundle/scan.bak",
        )
        .copy_in(
            "photos-real/gps/DSCN0021.jpg",
            "content/docs/bundle/other.jfif",
        )
        .write("content/cases/c-001/notes.txt", "case notes")
        .photos(CASE, "[[photos]]\nfile = \"evidence.jfif\"\nalt = \"x\"\n");
    site.build().success();
    for (path, bytes) in tree(&site.public()) {
        assert!(
            !bytes.starts_with(&[0xFF, 0xD8]) || path.ends_with(".jpg"),
            "{path} copied as it is"
        );
        if path.ends_with(".jpg") {
            assert!(
                segments(&bytes).iter().all(|(m, _)| *m != 0xE1),
                "{path} carries EXIF"
            );
        }
    }
    assert!(
        !site.exists("cases/c-001/notes.txt"),
        "case folders publish nothing as it is"
    );
    assert_eq!(site.file("docs/bundle/notes.txt"), "attached notes\n");
}

#[test]
fn the_audit_judges_images_by_content_and_knows_every_source() {
    // A GPS photograph under a misleading name in static/, and a source copied there.
    let site = SiteTest::fixture("minimal")
        .copy_in("photos-real/gps/DSCN0010.jpg", "static/other.jfif")
        .copy_in(
            "photos-real/gps/DSCN0042.jpg",
            "content/cases/c-001/unlisted.jpg",
        )
        .copy_in("photos-real/gps/DSCN0042.jpg", "static/copy.dat");
    site.run(&["check"])
        .failure(1)
        .stderr_has("other.jfif: image carries an APP1 segment")
        .stderr_has("copy.dat: is a copy of a source photograph");
}

#[test]
fn build_refuses_to_publish_a_listed_source_unchanged() {
    let site = SiteTest::fixture("minimal")
        .copy_in("photos-real/xmp/no_exif.jpg", "content/cases/c-001/a.jpg")
        .copy_in("photos-real/xmp/no_exif.jpg", "static/a-copy.bin")
        .photos(CASE, "[[photos]]\nfile = \"a.jpg\"\nalt = \"x\"\n");
    site.build()
        .failure(1)
        .stderr_has("a-copy.bin: would publish a source photograph unchanged");
}

#[test]
fn editing_a_published_image_cannot_reach_the_cache() {
    let site = SiteTest::fixture("minimal")
        .copy_in("photos-real/gps/DSCN0021.jpg", "content/cases/c-001/a.jpg")
        .photos(CASE, "[[photos]]\nfile = \"a.jpg\"\nalt = \"x\"\n");
    site.build().success();
    let (path, _) = published_jpegs(&site)
        .into_iter()
        .find(|(p, _)| p.ends_with(".400.jpg"))
        .unwrap();
    let file = site.public().join(&path);
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0xFF;
    std::fs::write(&file, &bytes).unwrap();
    site.build().success();
    site.run(&["verify", &site.public().to_string_lossy()])
        .success();
}

#[test]
fn markdown_images_are_refused_with_a_located_error() {
    let site = SiteTest::fixture("minimal").edit(
        "content/about.md",
        "Write to us.",
        "Write to us. ![a scan](scan.jpg)",
    );
    site.build()
        .failure(1)
        .stderr_has("content/about.md:13:14: the Markdown image `scan.jpg` would be published without redaction");
}

#[test]
fn four_shards_and_their_merged_caches_build_the_same_bytes_as_one_build() {
    let (single, _) = real_photos_site();
    let whole = single.build();
    assert!(
        whole.success().stdout.contains("10 photographs derived"),
        "{}",
        whole.stdout
    );
    let (merged, _) = real_photos_site();
    let mut photos = 0;
    for i in 1..=4 {
        // Each shard in its own copy of the site, as a CI job runs on its own machine.
        let (job, _) = real_photos_site();
        let run = job.run(&["build", "--shard", &format!("{i}/4")]);
        let line = &run.success().stdout;
        assert!(line.starts_with(&format!("shard {i}/4: ")), "{line}");
        photos += line
            .split_whitespace()
            .nth(2)
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap();
        assert!(line.contains(" of 10 "), "{line}");
        assert!(!job.public().exists(), "a shard writes no site");
        let cache = job.root().join(".casebook-cache");
        assert!(cache.join(format!("index.shard-{i}-of-4.json")).exists());
        copy_tree(&cache, &merged.root().join(".casebook-cache"));
    }
    assert_eq!(photos, 10, "the shards share the photographs out exactly");
    // The merged caches hold every derivative: the final build derives nothing, and its
    // own index replaces the shards'.
    let built = merged.build();
    assert!(
        !built.success().stdout.contains("derived"),
        "{}",
        built.stdout
    );
    assert!(tree(&merged.public()) == tree(&single.public()));
    let cache = merged.root().join(".casebook-cache");
    assert!(cache.join("index.json").exists());
    assert!(!cache.join("index.shard-1-of-4.json").exists());

    for bad in ["0/4", "5/4", "2", "a/b"] {
        merged
            .run(&["build", "--shard", bad])
            .failure(2)
            .stderr_has("shard");
    }
}

#[test]
fn progress_counts_only_the_photographs_derived_with_rate_and_time_left() {
    let mut tables = String::new();
    let mut site = SiteTest::fixture("minimal");
    for i in 0..20u32 {
        let name = format!("g{i}.png");
        site = site.write_bytes(
            &format!("content/cases/c-001/{name}"),
            &crate::support::patterned_png(40 + i, 30),
        );
        tables.push_str(&format!(
            "[[photos]]\nfile = \"{name}\"\nalt = \"Generated {i}\"\n\n"
        ));
    }
    let site = site.photos(CASE, &tables);
    let first = site.build();
    let lines: Vec<&str> = first
        .success()
        .stderr
        .lines()
        .filter(|l| l.starts_with("images: "))
        .collect();
    // Not a terminal: a line per tenth, each with the rate and the time left.
    assert_eq!(lines.len(), 10, "{}", first.stderr);
    assert!(lines[0].starts_with("images: 2/20 ("), "{lines:?}");
    assert!(lines[9].starts_with("images: 20/20 ("), "{lines:?}");
    assert!(
        lines
            .iter()
            .all(|l| l.contains("/s, ") && l.ends_with(" left)"))
    );
    // One photograph changed: the others come from the cache and are not counted, so the
    // run is too short for a progress report.
    let site = site.write_bytes(
        "content/cases/c-001/g3.png",
        &crate::support::patterned_png(99, 30),
    );
    let second = site.build();
    assert!(
        !second.success().stderr.contains("images: "),
        "{}",
        second.stderr
    );
    assert!(
        second.stdout.contains("1 photograph derived"),
        "{}",
        second.stdout
    );
}

/// A noisy generated picture (nothing photographed), so that a cut lands in its data.
fn noisy(w: u32, h: u32) -> image::RgbImage {
    image::RgbImage::from_fn(w, h, |x, y| {
        let n = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) >> 7;
        image::Rgb([(x * 3) as u8 ^ n as u8, (y * 5) as u8, (n >> 8) as u8])
    })
}

fn encoded(img: &image::RgbImage, format: image::ImageFormat) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, format).unwrap();
    out.into_inner()
}

#[test]
fn truncated_sources_of_every_format_are_located_errors() {
    let img = noisy(240, 180);
    let jpeg = encoded(&img, image::ImageFormat::Jpeg);
    // A JPEG cut short, then given back its end marker: decoders pad the missing rows.
    let mut jpeg_end_restored = jpeg[..jpeg.len() * 6 / 10].to_vec();
    jpeg_end_restored.extend_from_slice(&[0xFF, 0xD9]);
    // A frame taller than its scan, and a progressive JPEG without its last scan, closed.
    let mut taller = jpeg.clone();
    let sof = taller.windows(2).position(|m| m == [0xFF, 0xC0]).unwrap();
    taller[sof + 5..sof + 7].copy_from_slice(&360u16.to_be_bytes());
    let mut progressive = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut progressive, 90);
    encoder.set_progressive(true);
    encoder
        .encode(img.as_raw(), 240, 180, jpeg_encoder::ColorType::Rgb)
        .unwrap();
    let last_scan = progressive
        .windows(2)
        .rposition(|m| m == [0xFF, 0xDA])
        .unwrap();
    let mut scans_left_out = progressive[..last_scan].to_vec();
    scans_left_out.extend_from_slice(&[0xFF, 0xD9]);
    let mut sources = vec![
        ("cut-and-closed.jpg", jpeg_end_restored),
        ("taller.jpg", taller),
        ("scans-left-out.jpg", scans_left_out),
    ];
    for (name, format) in [
        ("cut.jpg", image::ImageFormat::Jpeg),
        ("cut.png", image::ImageFormat::Png),
        ("cut.tiff", image::ImageFormat::Tiff),
        ("cut.webp", image::ImageFormat::WebP),
        ("cut.gif", image::ImageFormat::Gif),
        ("cut.bmp", image::ImageFormat::Bmp),
    ] {
        let whole = encoded(&img, format);
        sources.push((name, whole[..whole.len() * 6 / 10].to_vec()));
    }
    for (name, bytes) in sources {
        let site = SiteTest::fixture("minimal")
            .write_bytes(&format!("content/cases/c-002/{name}"), &bytes)
            .photos(
                "content/cases/c-002/index.md",
                &format!("[[photos]]\nfile = \"{name}\"\nalt = \"x\"\n"),
            );
        let run = site.build();
        assert_eq!(run.code, 1, "{name} was published:\n{}", run.stderr);
        run.stderr_has(&format!(
            "content/cases/c-002/index.md:9:1: photos[0].file: photograph `{name}`:"
        ));
        assert!(
            run.stderr.contains("damaged or truncated") || run.stderr.contains("cannot"),
            "{name}: {}",
            run.stderr
        );
    }
    // The whole files are fine.
    let site = SiteTest::fixture("minimal")
        .write_bytes("content/cases/c-002/whole.jpg", &jpeg)
        .photos(
            "content/cases/c-002/index.md",
            "[[photos]]\nfile = \"whole.jpg\"\nalt = \"x\"\n",
        );
    site.build().success();
}

/// The header of a PNG of `w`x`h` 16-bit RGBA pixels, and no pixels: enough for casebook to
/// know what decoding it would take.
fn png_header_only(w: u32, h: u32, interlaced: bool) -> Vec<u8> {
    fn chunk(out: &mut Vec<u8>, kind: &[u8], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let crc = crc32(&out[start..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[16, 6, 0, 0, u8::from(interlaced)]);
    chunk(&mut out, b"IHDR", &ihdr);
    // The start of the pixel data: decoders read the header up to here.
    chunk(&mut out, b"IDAT", &[0x78, 0x9C, 0x63, 0x60, 0x00, 0x00]);
    chunk(&mut out, b"IEND", &[]);
    out
}

#[test]
fn memory_limits_count_decoded_bytes_not_pixels() {
    // 12 megapixels, well inside max_pixels, but 8 bytes each: 92 MiB decoded. Interlaced,
    // a PNG is decoded whole, at its own depth.
    let site = SiteTest::fixture("minimal")
        .write_bytes(
            "content/cases/c-002/deep.png",
            &png_header_only(4000, 3000, true),
        )
        .photos(
            "content/cases/c-002/index.md",
            "[[photos]]\nfile = \"deep.png\"\nalt = \"x\"\n",
        );
    let config = std::fs::read_to_string(site.root().join("casebook.toml")).unwrap();
    let site = site.write(
        "casebook.toml",
        &format!("{config}\n[images]\nmax_memory_mb = 64\n"),
    );
    site.build()
        .failure(1)
        .stderr_has("photograph `deep.png`")
        .stderr_has("4000x3000 pixels of 8 bytes each")
        .stderr_has("images.max_memory_mb = 64");
    site.run(&["check"]).failure(1).stderr_has("max_memory_mb");
    // Stored row after row, it is decoded a row at a time into 8-bit RGB (34 MiB): within
    // the budget, so what stops it is its missing pixel data.
    let site = site.write_bytes(
        "content/cases/c-002/deep.png",
        &png_header_only(4000, 3000, false),
    );
    let run = site.build();
    run.failure(1).stderr_has("damaged or truncated");
    assert!(!run.stderr.contains("max_memory_mb"), "{}", run.stderr);
}

/// The minimal fixture with one photograph, `a.jpg` under `name`, in case c-001.
fn one_photo_site(name: &str) -> SiteTest {
    SiteTest::fixture("minimal")
        .copy_in(
            "photos-real/gps/DSCN0021.jpg",
            &format!("content/cases/c-001/{name}"),
        )
        .photos(
            CASE,
            &format!("[[photos]]\nfile = \"{name}\"\nalt = \"a\"\nredact = [ {{ x = 0.1, y = 0.1, w = 0.3, h = 0.2 }} ]\n"),
        )
}

/// Flips bytes in the middle of the cache file that is published as `*.<width>.jpg`,
/// keeping its size; returns its name.
fn tamper_with_cached(site: &SiteTest, label: &str) -> String {
    let (path, _) = published_jpegs(site)
        .into_iter()
        .find(|(p, _)| p.ends_with(&format!(".{label}.jpg")))
        .unwrap();
    let prefix = path.rsplit('/').next().unwrap().split('.').nth(1).unwrap();
    let name = cache_listing(site)
        .into_iter()
        .find(|n| n.starts_with(prefix))
        .unwrap();
    let file = site.root().join(".casebook-cache/images").join(&name);
    let mut perms = std::fs::metadata(&file).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&file, perms).unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    for b in &mut bytes[n / 2..n / 2 + 16] {
        *b ^= 0x5A;
    }
    std::fs::write(&file, &bytes).unwrap();
    name
}

fn warnings(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect()
}

#[test]
fn a_cached_derivative_changed_in_place_is_derived_again_for_a_new_output() {
    let site = one_photo_site("a.jpg");
    site.build().success();
    let name = tamper_with_cached(&site, "400");
    std::fs::remove_dir_all(site.public()).unwrap();
    let run = site.build();
    run.success();
    let warned = warnings(&run.stderr);
    assert_eq!(warned.len(), 1, "{}", run.stderr);
    assert!(
        warned[0].contains(&name) && warned[0].contains("a.jpg"),
        "{}",
        warned[0]
    );
    let cached = std::fs::read(site.root().join(".casebook-cache/images").join(&name)).unwrap();
    assert_eq!(
        format!("{}.jpg", hex(&cached)),
        name,
        "the cache file is mended"
    );
    assert_same_as_fresh(&site, one_photo_site("a.jpg"));
    site.run(&["verify", &site.public().to_string_lossy()])
        .success();
}

#[test]
fn a_cached_derivative_changed_in_place_is_derived_again_when_an_update_publishes_it() {
    let site = one_photo_site("a.jpg");
    site.build().success();
    let name = tamper_with_cached(&site, "blur");
    // Renamed: the same cache files, published under new paths in the existing output.
    let site = site
        .copy_in("photos-real/gps/DSCN0021.jpg", "content/cases/c-001/b.jpg")
        .remove("content/cases/c-001/a.jpg")
        .edit(CASE, "file = \"a.jpg\"", "file = \"b.jpg\"");
    let run = site.build();
    run.success();
    let warned = warnings(&run.stderr);
    assert_eq!(warned.len(), 1, "{}", run.stderr);
    assert!(
        warned[0].contains(&name) && warned[0].contains("b.jpg"),
        "{}",
        warned[0]
    );
    assert_same_as_fresh(&site, one_photo_site("b.jpg"));
}

#[test]
fn a_warm_build_that_publishes_nothing_new_reads_no_cache_file() {
    let site = one_photo_site("a.jpg");
    site.build().success();
    let before = tree(&site.public());
    let name = tamper_with_cached(&site, "400");
    let file = site.root().join(".casebook-cache/images").join(&name);
    let tampered = std::fs::read(&file).unwrap();
    let run = site.build();
    run.success();
    assert!(warnings(&run.stderr).is_empty(), "{}", run.stderr);
    // Not hashed, so not noticed: the published copy was never taken from it.
    assert_eq!(std::fs::read(&file).unwrap(), tampered);
    assert!(tree(&site.public()) == before);
}

#[test]
fn a_hostile_or_broken_cache_index_is_discarded_and_rebuilt() {
    let site = one_photo_site("a.jpg");
    site.build().success();
    let cache = site.root().join(".casebook-cache");
    let index = cache.join("index.json");
    let text = std::fs::read_to_string(&index).unwrap();
    let names = cache_listing(&site);
    // Every file the jobs name, pointed outside the cache folder.
    let outside = cache.join("x");
    std::fs::write(&outside, b"not an image").unwrap();
    let hostile = text
        .replacen(names[0].trim_end_matches(".jpg"), "../x", 1)
        .replacen(names[1].trim_end_matches(".jpg"), "/etc/passwd", 1);
    assert_ne!(hostile, text);
    std::fs::write(&index, &hostile).unwrap();
    std::fs::remove_dir_all(site.public()).unwrap();
    let run = site.build();
    run.success();
    let warned = warnings(&run.stderr);
    assert_eq!(warned.len(), 1, "{}", run.stderr);
    assert!(
        warned[0].contains("index.json")
            && (warned[0].contains("`../x`") || warned[0].contains("`/etc/passwd`")),
        "{}",
        warned[0]
    );
    assert_eq!(std::fs::read(&outside).unwrap(), b"not an image");
    let rebuilt = std::fs::read_to_string(&index).unwrap();
    assert!(!rebuilt.contains("../x") && !rebuilt.contains("/etc/passwd"));
    assert_same_as_fresh(&site, one_photo_site("a.jpg"));
    // An index that does not parse: the same.
    std::fs::write(&index, b"{ not json").unwrap();
    std::fs::remove_dir_all(site.public()).unwrap();
    let run = site.build();
    run.success();
    let warned = warnings(&run.stderr);
    assert_eq!(warned.len(), 1, "{}", run.stderr);
    assert!(warned[0].contains("index.json"), "{}", warned[0]);
    assert!(serde_json::from_slice::<serde_json::Value>(&std::fs::read(&index).unwrap()).is_ok());
    assert_same_as_fresh(&site, one_photo_site("a.jpg"));
}

#[test]
fn verify_redactions_finds_a_fill_painted_over_in_the_published_pixels() {
    let site = one_photo_site("a.jpg");
    site.build().success();
    let public = site.public().to_string_lossy().into_owned();
    let run = site.run(&["verify", "--redactions", &public]);
    run.success()
        .stdout_has("fill redactions in 3 published images");
    assert!(!run.stdout.contains("ok: 0 "), "{}", run.stdout);
    // The 400 px derivative's region painted with noise and the JPEG encoded again.
    let (path, bytes) = published_jpegs(&site)
        .into_iter()
        .find(|(p, _)| p.ends_with(".400.jpg"))
        .unwrap();
    let mut img = image::load_from_memory(&bytes).unwrap().to_rgb8();
    let (w, h) = img.dimensions();
    for y in h / 10..h * 3 / 10 {
        for x in w / 10..w * 4 / 10 {
            let v = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)) >> 7;
            img.put_pixel(x, y, image::Rgb([v as u8, (v >> 8) as u8, (v >> 16) as u8]));
        }
    }
    let mut painted = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut painted, 90)
        .encode_image(&img)
        .unwrap();
    std::fs::write(site.public().join(&path), &painted).unwrap();
    let run = site.run(&["verify", "--redactions", &public]);
    run.failure(1)
        .stderr_has(&path)
        .stderr_has("redaction region 0 (`redact[0]`) is not solid #000000");
    // Only that image fails.
    assert_eq!(
        run.stderr.matches("redaction region").count(),
        1,
        "{}",
        run.stderr
    );
    // A coloured fill over the sharpest pattern, at fractional edges, passes: JPEG's
    // ringing stays outside the interior checked.
    let site = SiteTest::fixture("minimal")
        .photos(
            CASE,
            "[[photos]]\nfile = \"pattern.png\"\nalt = \"Pattern\"\nredact = [ { x = 0.1234, y = 0.2345, w = 0.3456, h = 0.4567 }, { x = 0.6, y = 0.05, w = 0.3, h = 0.3, method = \"pixelate\" } ]\n",
        )
        .write_bytes(
            "content/cases/c-001/pattern.png",
            &crate::support::patterned_png(1600, 1200),
        );
    let config = std::fs::read_to_string(site.root().join("casebook.toml")).unwrap();
    let site = site.write(
        "casebook.toml",
        &format!("{config}\n[images]\nredact_color = \"#ff00ff\"\n"),
    );
    site.build().success();
    let public = site.public().to_string_lossy().into_owned();
    site.run(&["verify", "--redactions", &public])
        .success()
        .stdout_has("ok: 2 fill redactions in 3 published images");
}
