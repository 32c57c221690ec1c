//! Per-case Merkle proofs (issue 43): published only by a signed build or one asked to
//! (`--proofs`), packed into shards found by the SHA-256 of the case id, and every shard
//! held to the manifest by `verify`, in a folder and over HTTP.

use sha2::Digest;

use crate::signing::{casebook, keys, public, sign, signed_site, verify};
use crate::support::browser::serve;
use crate::support::{Run, SiteTest};

/// The shard holding case `id`'s proof (`verify/proofs/<n>.json`), found as the browser
/// and `verify --case` find it: the first four bytes of the SHA-256 of the id, big-endian,
/// modulo the number of shards the index gives.
pub(crate) fn proof_shard(site: &SiteTest, id: &str) -> String {
    let index: serde_json::Value =
        serde_json::from_str(&site.file("verify/proofs/index.json")).unwrap();
    let shards = index["shards"].as_u64().unwrap();
    let digest = sha2::Sha256::digest(id.as_bytes());
    let n = u64::from(u32::from_be_bytes(digest[..4].try_into().unwrap())) % shards;
    format!("verify/proofs/{n}.json")
}

fn shard_json(site: &SiteTest, path: &str) -> serde_json::Value {
    serde_json::from_str(&site.file(path)).unwrap()
}

/// Case `id`'s proof, from its shard.
pub(crate) fn proof_of(site: &SiteTest, id: &str) -> serde_json::Value {
    let shard = shard_json(site, &proof_shard(site, id));
    (shard["proofs"].as_array().unwrap().iter())
        .find(|p| p["case"] == id)
        .unwrap_or_else(|| panic!("no proof of {id} in its shard"))
        .clone()
}

/// Changes case `id`'s proof in place, in its shard.
pub(crate) fn rewrite_proof(
    site: &SiteTest,
    id: &str,
    change: impl FnOnce(&mut serde_json::Value),
) {
    let path = proof_shard(site, id);
    let mut shard = shard_json(site, &path);
    let proof = (shard["proofs"].as_array_mut().unwrap().iter_mut())
        .find(|p| p["case"] == id)
        .unwrap();
    change(proof);
    std::fs::write(site.public().join(path), shard.to_string()).unwrap();
}

fn build(site: &SiteTest, extra: &[&str]) -> Run {
    let mut args = vec!["build", "--root", site.root().to_str().unwrap()];
    args.extend_from_slice(extra);
    casebook(&args, &[])
}

fn check(site: &SiteTest, extra: &[&str]) -> Run {
    let public = site.public();
    let mut args = vec!["verify", public.to_str().unwrap()];
    args.extend_from_slice(extra);
    casebook(&args, &[])
}

/// The minimal fixture with `n` more cases, so that the proofs take several shards.
fn many_cases(n: usize) -> SiteTest {
    let mut site = SiteTest::fixture("minimal");
    for i in 0..n {
        site = site.write(
            &format!("content/cases/m-{i:03}/index.md"),
            &format!(
                "+++\ntitle = \"Many {i}\"\ncase_id = \"m-{i:03}\"\nnumber = {}\nbranch = \"215\"\n\
                 photographed = 2012-03-04\nindicators = [\"beating\"]\nsynthetic = true\n+++\nText.\n",
                1000 + i
            ),
        );
    }
    site
}

#[test]
fn an_unsigned_build_publishes_no_proofs_unless_asked() {
    let site = SiteTest::fixture("minimal");
    build(&site, &[]).success();
    assert!(
        !site.exists("verify/proofs"),
        "an unsigned build made proofs"
    );
    assert!(!site.exists("verify/chunks.json"));
    // Nothing links to a check that cannot be made; the whole copy still verifies.
    let page = site.file("cases/c-001/index.html");
    assert!(
        !page.contains("?case="),
        "the case page offers a check it cannot make"
    );
    let verify_page = site.file("verify/index.html");
    assert!(verify_page.contains("publishes no per-case proofs"));
    assert!(!verify_page.contains("casebook-verify.js"));
    check(&site, &[]).success();
    check(&site, &["--case", "c-001"])
        .failure(1)
        .stderr_has("the index of the per-case Merkle proofs");

    build(&site, &["--proofs"]).success();
    assert!(site.exists("verify/proofs/index.json") && site.exists("verify/chunks.json"));
    assert_eq!(proof_of(&site, "c-003")["case"], "c-003");
    assert!(
        site.file("cases/c-001/index.html")
            .contains("verify/?case=c-001")
    );
    assert!(
        site.file("verify/index.html")
            .contains("casebook-verify.js")
    );
    check(&site, &[]).success();
    check(&site, &["--case", "c-001"]).success();

    // Built again without: the proofs go, and the pages say so again.
    build(&site, &[]).success();
    assert!(!site.exists("verify/proofs") && !site.exists("verify/chunks.json"));
    assert!(!site.file("cases/c-001/index.html").contains("?case="));
    check(&site, &[]).success();
}

#[test]
fn proofs_are_packed_in_shards_found_by_the_hash_of_the_case_id() {
    let site = many_cases(40);
    build(&site, &["--proofs"]).success();
    let index = shard_json(&site, "verify/proofs/index.json");
    // 45 cases, about 16 a shard: 4 shards, a power of two.
    assert_eq!(index["shards"], 4);
    let files: Vec<String> = std::fs::read_dir(site.public().join("verify/proofs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 5, "{files:?}");
    let mut cases = Vec::new();
    for n in 0..4 {
        let path = format!("verify/proofs/{n}.json");
        let shard = shard_json(&site, &path);
        assert_eq!(
            (shard["shard"].as_u64(), shard["shards"].as_u64()),
            (Some(n), Some(4))
        );
        for proof in shard["proofs"].as_array().unwrap() {
            let id = proof["case"].as_str().unwrap();
            assert_eq!(proof_shard(&site, id), path, "{id}");
            cases.push(id.to_string());
        }
    }
    cases.sort();
    assert_eq!(cases.len(), 45);
    assert_eq!(cases.first().map(String::as_str), Some("c-001"));
    check(&site, &[]).success();
    for id in ["c-001", "m-000", "m-039"] {
        check(&site, &["--case", id]).success();
    }
}

#[test]
fn every_shard_is_held_to_the_manifest_in_a_folder_and_over_http() {
    let site = many_cases(40);
    build(&site, &["--proofs"]).success();
    let url = serve(&site.public());
    let by_url = |extra: &[&str]| {
        let mut args = vec!["verify", url.as_str()];
        args.extend_from_slice(extra);
        casebook(&args, &[])
    };
    let both = |expect: &str| {
        check(&site, &[]).failure(1).stderr_has(expect);
        by_url(&[]).failure(1).stderr_has(expect);
    };
    let home = proof_shard(&site, "c-002");
    let other = (0..4)
        .map(|n| format!("verify/proofs/{n}.json"))
        .find(|p| *p != home)
        .unwrap();
    let (home_text, other_text) = (site.file(&home), site.file(&other));
    let write = |path: &str, text: &str| std::fs::write(site.public().join(path), text).unwrap();

    // A proof moved into another shard: where a visitor's browser would not look for it.
    let mut from = shard_json(&site, &home);
    let mut to = shard_json(&site, &other);
    let proofs = from["proofs"].as_array_mut().unwrap();
    let at = proofs.iter().position(|p| p["case"] == "c-002").unwrap();
    let moved = proofs.remove(at);
    to["proofs"].as_array_mut().unwrap().insert(0, moved);
    write(&home, &from.to_string());
    write(&other, &to.to_string());
    both("which belongs in shard");
    both("missing: the Merkle proof of case `c-002`");
    check(&site, &["--case", "c-002"])
        .failure(1)
        .stderr_has("no Merkle proof for case `c-002`");
    write(&other, &other_text);
    // Gone from every shard.
    both("missing: the Merkle proof of case `c-002`");
    write(&home, &home_text);
    check(&site, &[]).success();

    // A shard removed, broken, or another shard's bytes in its place.
    std::fs::remove_file(site.public().join(&other)).unwrap();
    both("missing: proof shard");
    write(&other, &other_text[..other_text.len() / 2]);
    both("not a proof shard");
    write(&other, &home_text);
    both("not shard");
    write(&other, &other_text);
    // An index that names another number of shards.
    let index = site.file("verify/proofs/index.json");
    write(
        "verify/proofs/index.json",
        &index.replace("\"shards\":4", "\"shards\":8"),
    );
    both("not shard 0 of 8");
    write(
        "verify/proofs/index.json",
        &index.replace("\"shards\":4", "\"shards\":3"),
    );
    both("not a power of two");
    write("verify/proofs/index.json", &index);
    // A file under verify/proofs/ that no shard is: a folder shows it.
    write("verify/proofs/c-001.json", &home_text);
    check(&site, &[])
        .failure(1)
        .stderr_has("c-001.json: not one of the 4 proof shards");
    std::fs::remove_file(site.public().join("verify/proofs/c-001.json")).unwrap();
    check(&site, &[]).success();
    by_url(&[]).success();
}

#[test]
fn a_signed_copy_without_its_proofs_fails() {
    let (_keys, key, line) = keys(None);
    let site = signed_site(&line);
    sign(&site, &key, &[]).success();
    verify(&public(&site), &line, &[]).success();
    std::fs::remove_dir_all(site.public().join("verify/proofs")).unwrap();
    verify(&public(&site), &line, &[])
        .failure(1)
        .stderr_has("missing: the index of the per-case Merkle proofs");
    // Without the key too: the signature beside the manifest says proofs were published.
    check(&site, &[])
        .failure(1)
        .stderr_has("missing: the index of the per-case Merkle proofs");
}
