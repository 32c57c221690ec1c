//! `casebook package`: a built site as a BagIt 1.0 bag, validated by the Library of
//! Congress `bagit` tool (PyPI) and by `casebook verify` on its `data/`.

use std::path::Path;
use std::process::Command;

use crate::signing::{casebook, keys, sign, signed_site};
use crate::support::{Run, SiteTest, repo_root, tree};

/// `python3 -m bagit --validate BAG`, or `None` (with how to get it) when the tool is not
/// installed: `.ci/run` installs it into `target/pybagit` (`CASEBOOK_BAGIT` names another
/// folder holding `bagit.py`).
fn bagit_validate(bag: &Path) -> Option<bool> {
    let dir = std::env::var_os("CASEBOOK_BAGIT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/pybagit"));
    if !dir.join("bagit.py").is_file() {
        let message = format!(
            "bagit.py not found in {}: python3 -m pip install --target target/pybagit bagit==1.9.0 (or set CASEBOOK_BAGIT)",
            dir.display()
        );
        assert!(
            std::env::var_os("CI").is_none(),
            "{message}; it must run under CI"
        );
        eprintln!("bag validation skipped: {message}");
        return None;
    }
    let out = Command::new("python3")
        .args(["-m", "bagit", "--validate"])
        .arg(bag)
        .env("PYTHONPATH", &dir)
        .output()
        .unwrap();
    Some(out.status.success())
}

/// `casebook package SITE FLAG OUT` (`--bag` or `--zip`).
fn package(site: &Path, flag: &str, out: &Path) -> Run {
    casebook(
        &[
            "package",
            site.to_str().unwrap(),
            flag,
            out.to_str().unwrap(),
        ],
        &[],
    )
}

#[test]
fn a_signed_build_packs_into_a_bag_that_bagit_and_verify_accept_and_a_changed_byte_fails_both() {
    let (_keys, key, public_key) = keys(None);
    let site = signed_site(&public_key);
    sign(&site, &key, &["--release-label", "2026-12 deposit"]).success();
    let out = tempfile::tempdir().unwrap();
    let bag = out.path().join("bag");
    let public = site.public();
    package(&public, "--bag", &bag)
        .success()
        .stdout_has("signed");

    // The site byte for byte under data/, the manifests and the release in bag-info.txt.
    assert!(
        tree(&bag.join("data")) == tree(&public),
        "data/ is not the site"
    );
    assert_eq!(
        std::fs::read_to_string(bag.join("bagit.txt")).unwrap(),
        "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"
    );
    let manifest: serde_json::Value = serde_json::from_str(&site.file("manifest.json")).unwrap();
    let info = std::fs::read_to_string(bag.join("bag-info.txt")).unwrap();
    for line in [
        format!(
            "Casebook-Merkle-Root: {}",
            manifest["merkle_root"].as_str().unwrap()
        ),
        "Casebook-Release-Label: 2026-12 deposit".to_string(),
        format!("Casebook-Public-Key: {public_key}"),
        "Casebook-Signature-File: data/manifest.json.minisig".to_string(),
    ] {
        assert!(info.lines().any(|l| l == line), "{line} not in:\n{info}");
    }
    let listed = std::fs::read_to_string(bag.join("manifest-sha256.txt")).unwrap();
    assert_eq!(listed.lines().count(), tree(&public).len());
    let data = bag.join("data");
    casebook(
        &["verify", data.to_str().unwrap(), "--pubkey", &public_key],
        &[],
    )
    .success();
    if let Some(valid) = bagit_validate(&bag) {
        assert!(valid, "bagit.py --validate refused the bag");
    }

    // One byte changed inside the bag: both tools refuse it.
    let photo = manifest["images"][0]["path"].as_str().unwrap();
    let path = data.join(photo);
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    std::fs::write(&path, bytes).unwrap();
    casebook(
        &["verify", data.to_str().unwrap(), "--pubkey", &public_key],
        &[],
    )
    .failure(1);
    if let Some(valid) = bagit_validate(&bag) {
        assert!(!valid, "bagit.py --validate accepted a changed byte");
    }

    // A bag is written once: an existing bag is never added to.
    package(&public, "--bag", &bag)
        .failure(1)
        .stderr_has("already exists");
}

#[test]
fn a_copy_that_does_not_verify_is_not_packed() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let page = site.public().join("cases/c-001/index.html");
    let text = std::fs::read_to_string(&page).unwrap();
    std::fs::write(&page, text.replace("</main>", "<p>added</p></main>")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let bag = out.path().join("bag");
    package(&site.public(), "--bag", &bag).failure(1);
    assert!(!bag.join("bag-info.txt").exists());
}

#[test]
fn a_portable_signed_build_zips_into_one_file_that_unzips_opens_from_disk_and_verifies() {
    let (_keys, key, public_key) = keys(None);
    let site = signed_site(&public_key);
    let out = tempfile::tempdir().unwrap();
    let portable = out.path().join("portable");
    sign(
        &site,
        &key,
        &["--portable", "--output", portable.to_str().unwrap()],
    )
    .success();
    let zip = out.path().join("caesar-offline.zip");
    package(&portable, "--zip", &zip)
        .success()
        .stdout_has("signed");

    // Unzipped: one folder named like the zip, the site byte for byte, verifying with the
    // publisher's key, its links naming files so that it opens from disk.
    let unzipped = out.path().join("unzipped");
    zip::ZipArchive::new(std::fs::File::open(&zip).unwrap())
        .unwrap()
        .extract(&unzipped)
        .unwrap();
    let folder = unzipped.join("caesar-offline");
    assert!(
        tree(&folder) == tree(&portable),
        "the zip does not hold the site"
    );
    assert!(folder.join("manifest.json.minisig").is_file());
    casebook(
        &["verify", folder.to_str().unwrap(), "--pubkey", &public_key],
        &[],
    )
    .success();
    assert!(
        std::fs::read_to_string(folder.join("index.html"))
            .unwrap()
            .contains("cases/index.html")
    );

    // The same build zips into the same bytes.
    std::fs::create_dir(out.path().join("second")).unwrap();
    let again = out.path().join("second/caesar-offline.zip");
    package(&portable, "--zip", &again).success();
    assert!(std::fs::read(&zip).unwrap() == std::fs::read(&again).unwrap());

    // A build for a server (links naming folders) is refused, with what to do.
    sign(&site, &key, &[]).success();
    package(&site.public(), "--zip", &out.path().join("server.zip"))
        .failure(1)
        .stderr_has("not portable")
        .stderr_has("--portable");
}
