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
        crate::support::missing_tool(&format!(
            "bagit.py not found in {}: python3 -m pip install --target target/pybagit bagit==1.9.0 (or set CASEBOOK_BAGIT)",
            dir.display()
        ));
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
        .stdout_has(", signed;");

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
        .stdout_has(", signed;");

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

/// The `wacz` tool from PyPI (with warcio and cdxj-indexer, which it brings), or `None`
/// with how to get it: `.ci/run` installs it into `target/pywacz`.
fn pywacz() -> Option<std::path::PathBuf> {
    let dir = repo_root().join("target/pywacz");
    if dir.join("wacz").is_dir() {
        return Some(dir);
    }
    crate::support::missing_tool(
        "wacz not found in target/pywacz: python3 -m pip install --target target/pywacz wacz==0.6.0",
    );
    None
}

/// Runs Python code with the `wacz` tool's packages; its success and what it printed.
fn python(pythonpath: &Path, code: &str, args: &[&Path]) -> (bool, String) {
    let out = Command::new("python3")
        .args(["-c", code])
        .args(args)
        .env("PYTHONPATH", pythonpath)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

const WACZ_VALIDATE: &str =
    "import sys\nfrom wacz.main import main\nsys.exit(main(['validate', '-f', sys.argv[1]]))";
const WARCIO_CHECK: &str = "import sys\nfrom warcio.cli import main\nmain(['check', sys.argv[1]])";
/// Replays every address of the index as a web-archive player does: reads the record at the
/// index's offset and compares what it serves with the published file.
const REPLAY: &str = r#"import sys, json
from urllib.parse import unquote
from warcio.archiveiterator import ArchiveIterator
warc, index, site = sys.argv[1:4]
base = 'https://example.org/'
served = 0
with open(warc, 'rb') as fh:
    for line in open(index):
        fields = json.loads(line.split(' ', 2)[2])
        fh.seek(int(fields['offset']))
        record = next(iter(ArchiveIterator(fh)))
        url = record.rec_headers.get_header('WARC-Target-URI')
        assert url == fields['url'], (url, fields)
        if record.rec_type == 'revisit':
            assert record.rec_headers.get_header('WARC-Refers-To-Target-URI') + 'index.html' == url
            continue
        assert record.rec_type == 'response' and record.http_headers.get_statuscode() == '200'
        path = unquote(url[len(base):])
        if path == '' or path.endswith('/'):
            path += 'index.html'
        body = record.content_stream().read()
        assert body == open(site + '/' + path, 'rb').read(), url
        served += 1
print('served', served)
"#;

/// Indexes the WARC again, with the index writer the web-archiving tools use.
const CDXJ_INDEX: &str = "import sys\nfrom cdxj_indexer.main import main\nmain([sys.argv[1]])";

/// A CDXJ index as sorted (key, timestamp, fields) entries.
fn cdxj(text: &str) -> Vec<(String, String, serde_json::Value)> {
    let mut entries: Vec<_> = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let mut parts = l.splitn(3, ' ');
            let key = parts.next().unwrap().to_string();
            let ts = parts.next().unwrap().to_string();
            let fields: serde_json::Value = serde_json::from_str(parts.next().unwrap()).unwrap();
            (key, ts, fields)
        })
        .collect();
    entries.sort_by(|a, b| (&a.0, &a.1, a.2.to_string()).cmp(&(&b.0, &b.1, b.2.to_string())));
    entries
}

#[test]
fn a_build_packs_into_a_wacz_that_the_web_archiving_tools_validate_index_and_replay() {
    let (_keys, key, public_key) = keys(None);
    // A name that every tool spells differently in a URL: its key must still agree.
    let site = signed_site(&public_key).write("static/a b+c (1) ملف.txt", "synthetic\n");
    sign(&site, &key, &["--release-label", "2026-12 web archive"]).success();
    let out = tempfile::tempdir().unwrap();
    let wacz = out.path().join("site.wacz");
    let epoch = [("SOURCE_DATE_EPOCH", "1780000000")];
    let pack = |to: &Path| {
        casebook(
            &[
                "package",
                site.public().to_str().unwrap(),
                "--wacz",
                to.to_str().unwrap(),
            ],
            &epoch,
        )
    };
    pack(&wacz).success().stdout_has("WACZ ");

    // The same build packs into the same bytes.
    let again = out.path().join("again.wacz");
    pack(&again).success();
    assert!(std::fs::read(&wacz).unwrap() == std::fs::read(&again).unwrap());

    // Its parts, and what they say.
    let unpacked = out.path().join("unpacked");
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&wacz).unwrap()).unwrap();
    assert_eq!(
        archive
            .by_name("archive/data.warc.gz")
            .unwrap()
            .compression(),
        zip::CompressionMethod::Stored,
        "replay tools read WARC records from their offsets: the WARC must be stored"
    );
    archive.extract(&unpacked).unwrap();
    let index = std::fs::read_to_string(unpacked.join("indexes/index.cdx")).unwrap();
    let ours = cdxj(&index);
    let manifest: serde_json::Value = serde_json::from_str(&site.file("manifest.json")).unwrap();
    let home_and_case = ["org,example)/", "org,example)/cases/c-001"];
    for key in home_and_case {
        let entry = ours.iter().find(|e| e.0 == key).expect(key);
        assert_eq!(entry.2["mime"], "text/html");
        assert_eq!(entry.1, "20260528202640");
    }
    // Every published file is in the archive, at its address; every page also under index.html.
    let pages = tree(&site.public())
        .iter()
        .filter(|(p, _)| p.ends_with("index.html"))
        .count();
    let files = tree(&site.public()).len();
    assert_eq!(ours.len(), files + pages);
    let photo = manifest["images"][0]["path"].as_str().unwrap();
    assert!(ours.iter().any(
        |e| e.2["url"] == format!("https://example.org/{photo}") && e.2["mime"] == "image/jpeg"
    ));
    let package: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(unpacked.join("datapackage.json")).unwrap())
            .unwrap();
    assert_eq!(package["wacz_version"], "1.1.1");
    assert_eq!(package["mainPageURL"], "https://example.org/");
    assert_eq!(package["casebook"]["merkleRoot"], manifest["merkle_root"]);
    assert_eq!(package["casebook"]["publicKey"], public_key.as_str());
    let listed = std::fs::read_to_string(unpacked.join("pages/pages.jsonl")).unwrap();
    let first_page: serde_json::Value =
        serde_json::from_str(listed.lines().nth(1).unwrap()).unwrap();
    assert_eq!(first_page["url"], "https://example.org/");

    let Some(tools) = pywacz() else {
        return;
    };
    let (valid, said) = python(&tools, WACZ_VALIDATE, &[&wacz]);
    assert!(valid && said.contains("is valid"), "wacz validate: {said}");
    let warc = unpacked.join("archive/data.warc.gz");
    let (checked, said) = python(&tools, WARCIO_CHECK, &[&warc]);
    assert!(checked, "warcio check (every record's digests): {said}");
    let (indexed, said) = python(&tools, CDXJ_INDEX, &[&warc]);
    assert!(indexed, "{said}");
    assert_eq!(cdxj(&said), ours, "the index is not where the records are");
    let index_file = unpacked.join("indexes/index.cdx");
    let (replayed, said) = python(&tools, REPLAY, &[&warc, &index_file, &site.public()]);
    assert!(replayed, "replay: {said}");
    assert!(said.contains(&format!("served {files}")), "{said}");

    // One byte changed inside the archive: the validator refuses it.
    let mut bytes = std::fs::read(&wacz).unwrap();
    let at = bytes.len() / 3;
    bytes[at] ^= 0x01;
    let changed = out.path().join("changed.wacz");
    std::fs::write(&changed, bytes).unwrap();
    let (valid, said) = python(&tools, WACZ_VALIDATE, &[&changed]);
    assert!(!valid, "wacz validate accepted a changed byte: {said}");

    pack(&wacz).failure(1).stderr_has("already exists");
}
