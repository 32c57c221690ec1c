//! Read what was checked: a `static/` file and a photograph swapped for links to a file
//! outside the site at many moments during a build never put a byte of that file into the
//! output; the build publishes the original or stops with an error naming the file. And
//! `serve` serves no byte of it either.

#![cfg(unix)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::{Run, SiteTest};

const CASE: &str = "content/cases/c-001/index.md";

/// Bytes that appear nowhere else: what must never be published.
fn secret() -> Vec<u8> {
    b"OUTSIDE-THE-SITE-never-publish-this-0xC0FFEE\n".repeat(2048)
}

/// Whether any file below `dir` holds `needle`.
fn anything_holds(dir: &Path, needle: &[u8]) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            std::fs::read(e.path()).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle))
        })
        .map(|e| e.path().display().to_string())
        .collect()
}

/// Puts a link to `target` in place of `path`, in one rename (as an attacker would).
fn swap_for_link(path: &Path, target: &Path) {
    let tmp = path.with_extension("swap-tmp");
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn files_swapped_for_links_during_a_build_never_publish_the_outside_file() {
    let big: Vec<u8> = (0..4u32 << 20).map(|i| (i % 253) as u8).collect();
    let photo = crate::support::patterned_png(1200, 900);
    let site = SiteTest::fixture("minimal")
        .write_bytes("static/big.bin", &big)
        .write_bytes("content/cases/c-001/photo.png", &photo)
        .photos(
            CASE,
            "[[photos]]\nfile = \"photo.png\"\nalt = \"A generated pattern\"\n",
        );
    let outside = tempfile::tempdir().unwrap();
    let secret_file = outside.path().join("secret.bin");
    std::fs::write(&secret_file, secret()).unwrap();
    let needle = &secret()[..64];
    let (static_file, photo_file) = (
        site.root().join("static/big.bin"),
        site.root().join("content/cases/c-001/photo.png"),
    );
    // How long a build takes here, to spread the swaps over it.
    let started = Instant::now();
    site.build().success();
    let span = started.elapsed().max(Duration::from_millis(50));
    let tries = 50;
    let (mut published, mut refused) = (0, 0);
    for i in 0..tries {
        std::fs::write(&static_file, &big).unwrap();
        std::fs::write(&photo_file, &photo).unwrap();
        // A new output half the time, an update of the old one otherwise.
        if i % 2 == 0 {
            let _ = std::fs::remove_dir_all(site.public());
        }
        let child = Command::new(env!("CARGO_BIN_EXE_casebook"))
            .args(["build", "--root"])
            .arg(site.root())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(span.mul_f64(i as f64 / tries as f64 * 1.2));
        swap_for_link(&static_file, &secret_file);
        swap_for_link(&photo_file, &secret_file);
        let run = Run::from(child.wait_with_output().unwrap());
        let leaks = anything_holds(&site.public(), needle);
        assert!(
            leaks.is_empty(),
            "try {i}: the outside file reached {leaks:?}"
        );
        if run.code == 0 {
            published += 1;
            let out = site.public().join("big.bin");
            assert!(
                !out.exists() || std::fs::read(&out).unwrap() == big,
                "try {i}: big.bin published with other bytes"
            );
        } else {
            refused += 1;
            assert!(
                run.stderr.contains("big.bin") || run.stderr.contains("photo.png"),
                "try {i}: the error names neither file\n{}",
                run.stderr
            );
        }
        std::fs::remove_file(&static_file).unwrap();
        std::fs::remove_file(&photo_file).unwrap();
    }
    eprintln!("{tries} swaps: {published} builds published, {refused} stopped with an error");
    assert_eq!(std::fs::read(&secret_file).unwrap(), secret());
}

#[test]
fn serve_drops_a_static_file_replaced_by_a_link() {
    let site = SiteTest::fixture("minimal").write("static/notes.txt", "the site's own notes\n");
    let outside = tempfile::tempdir().unwrap();
    let secret_file = outside.path().join("secret.txt");
    std::fs::write(&secret_file, secret()).unwrap();
    let server = crate::serve::start(&site);
    let before = crate::support::http::request(server.addr, "GET", "/notes.txt");
    assert_eq!(before.status, 200);
    assert_eq!(before.body, b"the site's own notes\n");
    swap_for_link(&site.root().join("static/notes.txt"), &secret_file);
    // Before and after the rebuild the change causes: never the outside bytes.
    let until = Instant::now() + Duration::from_secs(3);
    let mut last = 0;
    while Instant::now() < until {
        let r = crate::support::http::request(server.addr, "GET", "/notes.txt");
        assert!(
            !r.body.windows(64).any(|w| w == &secret()[..64]),
            "the outside file was served"
        );
        last = r.status;
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(last, 404, "a static file replaced by a link is dropped");
    server.stop();
}
