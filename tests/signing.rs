//! Signed releases: keys, signing, verifying a copy (folder and URL, whole and one case),
//! withdrawal, and the /verify/ page's check in a browser.

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::Digest;

use crate::proofs::{proof_of, proof_shard, rewrite_proof};
use crate::support::browser::{Browser, serve};
use crate::support::{Run, SiteTest, tree};

const CASE: &str = "content/cases/c-001/index.md";

pub(crate) fn casebook(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_casebook"));
    cmd.args(args)
        .env_remove("CASEBOOK_KEY_PASSWORD")
        .env_remove("CASEBOOK_SIGNING_KEY");
    for (k, v) in env {
        cmd.env(k, v);
    }
    Run::from(cmd.output().unwrap())
}

/// A key pair outside the site: (folder, secret key file, public key line).
pub(crate) fn keys(password: Option<&str>) -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("keys");
    let keys_arg = keys.to_str().unwrap();
    let run = match password {
        Some(p) => casebook(&["keygen", keys_arg], &[("CASEBOOK_KEY_PASSWORD", p)]),
        None => casebook(&["keygen", keys_arg, "--unencrypted"], &[]),
    };
    run.success();
    let public = std::fs::read_to_string(keys.join("casebook.pub")).unwrap();
    let line = public.lines().nth(1).unwrap().to_string();
    assert!(
        run.stdout.contains(&format!("public_key = \"{line}\"")),
        "{}",
        run.stdout
    );
    (dir, keys.join("casebook.key"), line)
}

/// The minimal fixture with two photographs on c-001 and the site's public key.
pub(crate) fn signed_site(public_key: &str) -> SiteTest {
    let site = SiteTest::fixture("minimal")
        .copy_in("photos-real/cameras/Canon_40D.jpg", "content/cases/c-001/p1.jpg")
        .copy_in("photos-real/cameras/Nikon_D70.jpg", "content/cases/c-001/p2.jpg")
        .photos(
            CASE,
            "[[photos]]\nfile = \"p1.jpg\"\nalt = \"Test photo one\"\nsensitivity = \"none\"\n\n[[photos]]\nfile = \"p2.jpg\"\nalt = \"Test photo two\"\nsensitivity = \"graphic\"\n",
        );
    let config = std::fs::read_to_string(site.root().join("casebook.toml")).unwrap();
    site.write(
        "casebook.toml",
        &format!("{config}\n[signing]\npublic_key = \"{public_key}\"\n"),
    )
}

pub(crate) fn sign(site: &SiteTest, key: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "build",
        "--root",
        site.root().to_str().unwrap(),
        "--sign",
        key.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    casebook(&args, &[])
}

pub(crate) fn verify(target: &str, key: &str, extra: &[&str]) -> Run {
    let mut args = vec!["verify", target, "--pubkey", key];
    args.extend_from_slice(extra);
    casebook(&args, &[])
}

pub(crate) fn public(site: &SiteTest) -> String {
    site.public().to_str().unwrap().to_string()
}

/// Flips one byte of a published file.
fn tamper(site: &SiteTest, rel: &str, at: usize) {
    let path = site.public().join(rel);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = at.min(bytes.len() - 1);
    bytes[at] ^= 0x01;
    std::fs::write(&path, bytes).unwrap();
}

fn photo_file(site: &SiteTest) -> String {
    let manifest: serde_json::Value = serde_json::from_str(&site.file("manifest.json")).unwrap();
    manifest["images"][0]["path"].as_str().unwrap().to_string()
}

#[test]
fn a_signed_build_verifies_and_every_kind_of_tampering_fails() {
    let (_keys, key, line) = keys(None);
    let site = signed_site(&line);
    sign(&site, &key, &["--release-label", "test release 1"]).success();
    assert!(site.exists("manifest.json.minisig"));
    assert_eq!(
        site.file(".well-known/casebook.pub").lines().nth(1),
        Some(line.as_str())
    );
    let ok = verify(&public(&site), &line, &[]);
    ok.success();
    assert!(
        ok.stdout.contains("signature good") && ok.stdout.contains("test release 1"),
        "{}",
        ok.stdout
    );

    let signature = site.file("manifest.json.minisig");
    let manifest = site.file("manifest.json");
    let photo = photo_file(&site);
    let cases: [(&str, usize, &str); 4] = [
        (photo.as_str(), 500, "SHA-256"),
        ("cases/c-001/index.html", 200, "SHA-256"),
        (
            "manifest.json",
            40,
            "the signature does not match manifest.json",
        ),
        ("manifest.json.minisig", 120, "signature"),
    ];
    for (rel, at, message) in cases {
        tamper(&site, rel, at);
        let run = verify(&public(&site), &line, &[]);
        run.failure(1).stderr_has(message);
        if rel.starts_with("manifest") {
            // A bad signature is reported before anything else, and alone.
            assert!(!run.stderr.contains("differs from"), "{}", run.stderr);
        } else {
            assert!(run.stderr.contains(rel), "{rel}: {}", run.stderr);
        }
        // Put the copy back: the manifest and signature from their saved bytes, a page or
        // photo by flipping the same bit again.
        std::fs::write(site.public().join("manifest.json"), &manifest).unwrap();
        std::fs::write(site.public().join("manifest.json.minisig"), &signature).unwrap();
        if !rel.starts_with("manifest") {
            tamper(&site, rel, at);
        }
        verify(&public(&site), &line, &[]).success();
    }
    // Another key's public half: the signature is not the publisher's.
    let (_other, _, other_line) = keys(None);
    verify(&public(&site), &other_line, &[])
        .failure(1)
        .stderr_has("signed with another key");

    // A stripped signature is "unsigned", never "ok", when a key is given.
    std::fs::remove_file(site.public().join("manifest.json.minisig")).unwrap();
    verify(&public(&site), &line, &[])
        .failure(1)
        .stderr_has("unsigned");
    let keyless = casebook(&["verify", &public(&site)], &[]);
    keyless.success();
    assert!(keyless.stdout.contains("not signed"), "{}", keyless.stdout);
}

#[test]
fn a_signature_for_another_manifest_fails() {
    let (_keys, key, line) = keys(None);
    let site = signed_site(&line);
    sign(&site, &key, &[]).success();
    let old_signature = site.file("manifest.json.minisig");
    let about = site.root().join("content/about.md");
    let text = std::fs::read_to_string(&about).unwrap();
    std::fs::write(&about, format!("{text}\nOne more line.\n")).unwrap();
    sign(&site, &key, &[]).success();
    std::fs::write(site.public().join("manifest.json.minisig"), old_signature).unwrap();
    verify(&public(&site), &line, &[])
        .failure(1)
        .stderr_has("manifest.json.minisig");
}

#[test]
fn signed_builds_are_byte_identical_and_the_stock_minisign_tool_accepts_them() {
    let (_keys, key, line) = keys(None);
    let site = signed_site(&line);
    sign(&site, &key, &["--release-label", "r1"]).success();
    let first = tree(&site.public());
    sign(&site, &key, &["--release-label", "r1"]).success();
    assert!(first == tree(&site.public()), "two signed builds differ");
    let trusted = site.file("manifest.json.minisig");
    let trusted = trusted.lines().nth(2).unwrap();
    let manifest = site.file("manifest.json");
    let root = serde_json::from_str::<serde_json::Value>(&manifest).unwrap()["merkle_root"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        trusted.contains(&format!("merkle_root={root}")),
        "{trusted}"
    );
    assert!(
        !trusted.contains("timestamp="),
        "no clock time unless asked: {trusted}"
    );

    let minisign = Command::new("minisign")
        .args(["-Vm", "manifest.json", "-P", &line])
        .current_dir(site.public())
        .output();
    match minisign {
        Ok(out) => {
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "minisign -V failed: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                stdout.contains("Signature and comment signature verified"),
                "{stdout}"
            );
            assert!(stdout.contains(&root), "{stdout}");
        }
        Err(_) if std::env::var_os("CI").is_none() => {
            eprintln!(
                "minisign not found: the stock-tool check is skipped (Debian: apt-get install -y minisign)"
            );
        }
        Err(e) => panic!("minisign must be installed under CI (apt-get install -y minisign): {e}"),
    }
}

#[test]
fn bad_keys_and_passwords_are_refused_before_anything_is_written() {
    let (_keys, key, line) = keys(Some("correct horse"));
    let site = signed_site(&line);
    let root = site.root().to_str().unwrap().to_string();
    let build = |env: &[(&str, &str)], key: &Path| {
        casebook(
            &["build", "--root", &root, "--sign", key.to_str().unwrap()],
            env,
        )
    };
    build(&[("CASEBOOK_KEY_PASSWORD", "correct horse")], &key).success();
    let before = tree(&site.public());

    build(&[("CASEBOOK_KEY_PASSWORD", "wrong")], &key)
        .failure(1)
        .stderr_has("wrong password");
    let not_a_key = site.root().parent().unwrap().join("not-a-key.txt");
    std::fs::write(&not_a_key, "hello\n").unwrap();
    build(&[], &not_a_key)
        .failure(1)
        .stderr_has("not a minisign secret key");
    // The public key file is not the secret key.
    build(&[], &key.with_extension("pub"))
        .failure(1)
        .stderr_has("not a minisign secret key");
    // A key that is not the one the site publishes.
    let (_other_dir, other, _) = keys(None);
    build(&[], &other)
        .failure(1)
        .stderr_has("not the one casebook.toml publishes");
    // A key kept inside the site folder.
    std::fs::copy(&other, site.root().join("inside.key")).unwrap();
    build(&[], &site.root().join("inside.key"))
        .failure(1)
        .stderr_has("inside the site folder");
    // No public key in the config.
    let config = std::fs::read_to_string(site.root().join("casebook.toml")).unwrap();
    let unkeyed = config.split("\n[signing]").next().unwrap().to_string();
    std::fs::write(site.root().join("casebook.toml"), &unkeyed).unwrap();
    build(&[("CASEBOOK_KEY_PASSWORD", "correct horse")], &key)
        .failure(1)
        .stderr_has("signing.public_key");
    std::fs::write(
        site.root().join("casebook.toml"),
        format!("{unkeyed}\n[signing]\npublic_key = \"RWQnot-a-key\"\n"),
    )
    .unwrap();
    site.build().failure(1).stderr_has("signing.public_key");
    assert!(
        before == tree(&site.public()),
        "a refused build changed the output"
    );
}

#[test]
fn keygen_refuses_site_folders_and_existing_keys() {
    let site = SiteTest::fixture("minimal");
    let inside = site.root().join("keys");
    casebook(&["keygen", inside.to_str().unwrap(), "--unencrypted"], &[])
        .failure(1)
        .stderr_has("inside the site folder");
    let (dir, _, _) = keys(None);
    casebook(
        &[
            "keygen",
            dir.path().join("keys").to_str().unwrap(),
            "--unencrypted",
        ],
        &[],
    )
    .failure(1)
    .stderr_has("already exists");
}

#[test]
fn one_case_verifies_through_its_proof_in_a_folder_and_over_http() {
    let (_keys, key, line) = keys(None);
    let site = signed_site(&line);
    sign(&site, &key, &[]).success();
    let proof = proof_of(&site, "c-001");
    let paths: Vec<&str> = proof["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"cases/c-001/index.html"), "{paths:?}");
    assert!(
        paths.iter().filter(|p| p.ends_with(".jpg")).count() >= 4,
        "{paths:?}"
    );
    // The case page lists its photographs' hashes and links to the check of its proof.
    let page = site.file("cases/c-001/index.html");
    let photo = photo_file(&site);
    let manifest: serde_json::Value = serde_json::from_str(&site.file("manifest.json")).unwrap();
    let largest = manifest["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "derivative")
        .max_by_key(|i| i["width"].as_u64())
        .unwrap();
    assert!(
        page.contains(largest["sha256"].as_str().unwrap()),
        "the page lists its photographs' SHA-256"
    );
    assert!(page.contains("verify/?case=c-001"));

    let ok = verify(&public(&site), &line, &["--case", "c-001"]);
    ok.success();
    assert!(ok.stdout.contains("case c-001"), "{}", ok.stdout);

    let url = serve(&site.public());
    verify(&url, &line, &[]).success();
    verify(&url, &line, &["--case", "c-001"]).success();
    verify(&url, &line, &["--case", "c-999"])
        .failure(1)
        .stderr_has("no Merkle proof");

    tamper(&site, &photo, 300);
    verify(&url, &line, &["--case", "c-001"])
        .failure(1)
        .stderr_has(&photo);
    verify(&url, &line, &[]).failure(1).stderr_has(&photo);
    tamper(&site, &photo, 300);

    // A proof whose file entry was changed to match a changed photo leads elsewhere.
    let proof_path = site.public().join(proof_shard(&site, "c-001"));
    let text = std::fs::read_to_string(&proof_path).unwrap();
    rewrite_proof(&site, "c-001", |forged| {
        forged["files"][1]["sha256"] = serde_json::Value::from("0".repeat(64));
    });
    verify(&public(&site), &line, &["--case", "c-001"])
        .failure(1)
        .stderr_has("leads to a chunk");
    verify(&url, &line, &["--case", "c-001"])
        .failure(1)
        .stderr_has("leads to a chunk");
    // The whole-folder check reads every proof too.
    verify(&public(&site), &line, &[])
        .failure(1)
        .stderr_has("case `c-001`: the proof is broken");
    std::fs::write(&proof_path, text).unwrap();

    // A chunk list made to agree with a forged proof no longer leads to the signed root.
    let chunks_path = site.public().join("verify/chunks.json");
    let chunks_text = std::fs::read_to_string(&chunks_path).unwrap();
    let mut chunks: serde_json::Value = serde_json::from_str(&chunks_text).unwrap();
    chunks["chunks"][0] = serde_json::Value::from("1".repeat(64));
    std::fs::write(&chunks_path, chunks.to_string()).unwrap();
    verify(&url, &line, &["--case", "c-001"])
        .failure(1)
        .stderr_has("chunk list");
    verify(&public(&site), &line, &[])
        .failure(1)
        .stderr_has("chunks.json");
    std::fs::write(&chunks_path, &chunks_text).unwrap();
    std::fs::remove_file(&chunks_path).unwrap();
    verify(&url, &line, &["--case", "c-001"])
        .failure(1)
        .stderr_has("no Merkle chunk list");
    std::fs::write(&chunks_path, chunks_text).unwrap();

    // Files the manifest does not list are reported.
    std::fs::write(
        site.public().join("cases/c-001/extra.html"),
        "<p>planted</p>",
    )
    .unwrap();
    verify(&public(&site), &line, &[])
        .failure(1)
        .stderr_has("not listed in the manifest");
}

#[test]
fn a_withdrawn_case_leaves_every_output_but_its_tombstone() {
    let (_keys, key, line) = keys(None);
    let site = signed_site(&line);
    sign(&site, &key, &[]).success();
    let photos_before: Vec<String> = walk(&site.public())
        .into_iter()
        .filter(|p| p.starts_with("cases/c-001/") && p.ends_with(".jpg"))
        .collect();
    assert!(!photos_before.is_empty());
    let site = site.edit(
        CASE,
        "synthetic = true",
        "synthetic = true\nwithdrawn = { reason = \"family request\", date = 2026-12-01 }",
    );
    sign(&site, &key, &[]).success();

    let tombstone = site.file("cases/c-001/index.html");
    assert!(tombstone.contains("family request") && tombstone.contains("2026-12-01"));
    for gone in ["Case one", "Narrative of c-001", "Test photo"] {
        assert!(!tombstone.contains(gone), "the tombstone shows `{gone}`");
    }
    let files = walk(&site.public());
    for p in &photos_before {
        assert!(!files.contains(p), "{p} is still published");
    }
    assert!(
        !files
            .iter()
            .any(|p| p.starts_with("cases/c-001/") && p != "cases/c-001/index.html"),
        "{files:?}"
    );
    let sitemap = site.file("sitemap.xml");
    assert!(
        !sitemap.contains("c-001"),
        "sitemap lists the withdrawn case"
    );
    // No output but the tombstone, the record of the withdrawal and the proof mentions the
    // case: not the search shards, exports, feeds, lists or facet pages. The home page's
    // own link (`@/cases/c-001/index.md`) leads to the tombstone.
    let shard = proof_shard(&site, "c-001");
    let allowed = [
        "cases/c-001/index.html",
        "manifest.json",
        shard.as_str(),
        "index.html",
    ];
    for (f, bytes) in tree(&site.public()) {
        let text = String::from_utf8_lossy(&bytes);
        if allowed.contains(&f.as_str()) || f.ends_with(".jpg") {
            continue;
        }
        assert!(
            !text.contains("c-001") && !text.contains("Case one"),
            "{f} still mentions the withdrawn case"
        );
    }
    assert!(
        files
            .iter()
            .any(|f| f.starts_with("search/") && f.ends_with(".js")),
        "the search shards were checked"
    );
    let manifest: serde_json::Value = serde_json::from_str(&site.file("manifest.json")).unwrap();
    assert_eq!(
        manifest["withdrawn"],
        serde_json::json!([{ "case": "c-001", "date": "2026-12-01", "reason": "family request" }])
    );
    assert!(!site.file("manifest.json").contains("Case one"));
    verify(&public(&site), &line, &[]).success();
    verify(&public(&site), &line, &["--case", "c-001"]).success();
}

#[test]
fn withdrawal_errors_are_located() {
    let site = SiteTest::fixture("minimal").edit(
        CASE,
        "synthetic = true",
        "synthetic = true\nwithdrawn = { reason = \"\" }",
    );
    let run = site.build();
    run.failure(1)
        .stderr_has("needs a reason")
        .stderr_has("needs a date")
        .stderr_has("c-001/index.md:");
}

/// The /verify/ page's verdict on the case its address asks for, once it is given.
pub(crate) fn verify_verdict(browser: &mut Browser, url: &str) -> String {
    browser.goto(url);
    browser.wait_for("!!document.getElementById('verify-verdict')");
    browser
        .eval("document.getElementById('verify-result').innerText")
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn walk(dir: &Path) -> Vec<String> {
    tree(dir).into_iter().map(|(p, _)| p).collect()
}

#[test]
fn the_verify_page_checks_a_record_in_the_browser() {
    let (_keys, key, line) = keys(None);
    let site = signed_site(&line);
    sign(&site, &key, &[]).success();
    let page = site.file("verify/index.html");
    assert!(
        page.contains(&line),
        "the /verify/ page shows the public key"
    );
    assert!(page.contains("minisign -Vm manifest.json -P"));

    let Some(mut browser) = Browser::launch("the_verify_page_checks_a_record_in_the_browser")
    else {
        return;
    };
    let url = serve(&site.public());
    let good = verify_verdict(&mut browser, &format!("{url}verify/?case=c-001"));
    assert!(good.contains("The signature is valid"), "{good}");
    assert!(
        good.contains("Every file of this record is exactly"),
        "{good}"
    );
    assert!(!good.contains("DIFFERS"), "{good}");
    // Nothing is displayed: the page holds no image.
    let images = browser.eval("document.images.length").as_u64();
    assert_eq!(images, Some(0));

    let photo = photo_file(&site);
    tamper(&site, &photo, 300);
    let bad = verify_verdict(&mut browser, &format!("{url}verify/?case=c-001&again=1"));
    assert!(bad.contains("DIFFERS"), "{bad}");
    assert!(bad.contains("Some files of this record are not"), "{bad}");
    assert!(bad.contains(&photo), "{bad}");
    tamper(&site, &photo, 300);

    // A proof that was changed leads nowhere, whatever the files.
    let original = proof_of(&site, "c-001");
    rewrite_proof(&site, "c-001", |proof| {
        proof["hashes"][0] = serde_json::Value::from("0".repeat(64));
    });
    let forged = verify_verdict(
        &mut browser,
        &format!("{url}verify/?case=c-001&proof=changed"),
    );
    assert!(
        forged.contains("does not lead to the archive's root"),
        "{forged}"
    );
    assert!(
        forged.contains("Some files of this record are not"),
        "{forged}"
    );

    // An entry outside the tree cannot vouch for a file, even with a matching hash.
    let page = std::fs::read(site.public().join("cases/c-001/index.html")).unwrap();
    let sha256: String = sha2::Sha256::digest(&page)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    rewrite_proof(&site, "c-001", |proof| {
        *proof = original.clone();
        proof["files"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({
                "index": 1_000_000, "path": "cases/c-001/index.html",
                "sha256": sha256, "size": page.len()
            }));
    });
    let extra = verify_verdict(
        &mut browser,
        &format!("{url}verify/?case=c-001&proof=extra"),
    );
    assert!(
        extra.contains("does not lead to the archive's root"),
        "{extra}"
    );
}

#[test]
fn init_keeps_secret_keys_out_of_the_repository_and_timestamps_are_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let site_dir = dir.path().join("site");
    casebook(&["init", site_dir.to_str().unwrap()], &[]).success();
    let ignore = std::fs::read_to_string(site_dir.join(".gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "*.key"), "{ignore}");

    let (_keys, key, line) = keys(None);
    let site = signed_site(&line);
    sign(&site, &key, &["--timestamp"]).success();
    let trusted = site.file("manifest.json.minisig");
    let trusted = trusted.lines().nth(2).unwrap();
    assert!(trusted.contains(" timestamp=20"), "{trusted}");
    let run = verify(&public(&site), &line, &[]);
    run.success();
    assert!(run.stdout.contains("signed at 20"), "{}", run.stdout);
    // --release-label and --timestamp mean nothing without --sign.
    site.run(&["build", "--timestamp"]).failure(2);
    // minisign reads the signed comment trimmed: a label with spaces at its ends is refused.
    sign(&site, &key, &["--release-label", "r1 "])
        .failure(1)
        .stderr_has("without spaces at either end");
    // The key may be named by CASEBOOK_SIGNING_KEY instead of --sign.
    std::fs::remove_dir_all(site.public()).unwrap();
    let root = site.root().to_str().unwrap();
    casebook(
        &["build", "--root", root],
        &[("CASEBOOK_SIGNING_KEY", key.to_str().unwrap())],
    )
    .success();
    verify(&public(&site), &line, &[]).success();
}

#[test]
fn the_bundled_verify_page_says_whether_its_copy_is_signed() {
    let (_keys, key, line) = keys(None);
    let site = crate::support::bundled();
    site.build().success();
    let unsigned = site.file("verify/index.html");
    assert!(
        unsigned.contains("This archive is not signed"),
        "the unsigned copy says so"
    );
    let config = std::fs::read_to_string(site.root().join("casebook.toml")).unwrap();
    let site = site.write(
        "casebook.toml",
        &format!("{config}\n[signing]\npublic_key = \"{line}\"\n"),
    );
    sign(&site, &key, &[]).success();
    for page in ["verify/index.html", "ar/verify/index.html"] {
        let html = site.file(page);
        assert!(html.contains(&line), "{page} shows the key that signed it");
        for unsigned_claim in ["not signed", "without a signature", "دون توقيع", "غير موقّع"]
        {
            assert!(
                !html.contains(unsigned_claim),
                "{page} still says the signed archive is unsigned ({unsigned_claim})"
            );
        }
    }
}

#[test]
fn check_passes_a_site_that_signs_its_releases_and_still_finds_its_broken_links() {
    // `check` never signs, so the signature file the verify page links to is not in what it
    // built; a site with a public key publishes it with every signed release.
    let (_keys, _key, line) = keys(None);
    let site = signed_site(&line);
    site.run(&["check"]).success();
    let site = site.edit(CASE, "+++\n\n", "+++\n\n[elsewhere](/nowhere/)\n\n");
    site.run(&["check"])
        .failure(1)
        .stderr_has("broken link `/nowhere/`");
}
