//! Trusted timestamps (RFC 3161): a signed build stamped by local authorities (`openssl ts`
//! behind a small HTTP responder), each token checked by `casebook verify` and by
//! `openssl ts -verify` alone; a changed signature, a token of another release and a wrong
//! anchor fail; an authority that fails fails the build unless `--tsa-optional`.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;

use crate::signing::{casebook, keys, public, sign, signed_site, verify, verify_verdict};
use crate::support::tsa::{Answer, Authority, have_openssl};

const SIGNATURE: &str = "manifest.json.minisig";

/// `openssl ts -verify` of the `n`th token of a built site against `root`.
fn openssl_accepts(public: &Path, n: usize, root: &Path) -> bool {
    let out = Command::new("openssl")
        .args(["ts", "-verify", "-in"])
        .arg(public.join(format!("{SIGNATURE}.{n}.tsr")))
        .arg("-data")
        .arg(public.join(SIGNATURE))
        .arg("-CAfile")
        .arg(root)
        .output()
        .unwrap();
    out.status.success()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_signed_build_is_stamped_and_each_token_verifies_with_casebook_and_openssl() {
    if !have_openssl("a_signed_build_is_stamped") {
        return;
    }
    // The second sends its own certificate twice (a common OpenSSL set-up).
    let (first, second) = (
        Authority::start("first"),
        Authority::start_with("second", true),
    );
    let (_keys, key, line) = keys(None);
    let site = signed_site(&line);
    sign(&site, &key, &["--tsa", &first.url, "--tsa", &second.url]).success();
    let out = site.public();
    assert!(
        openssl_accepts(&out, 1, &first.root),
        "openssl accepts token 1"
    );
    assert!(
        openssl_accepts(&out, 2, &second.root),
        "openssl accepts token 2"
    );
    assert!(
        !openssl_accepts(&out, 2, &first.root),
        "and not under another root"
    );

    let roots = [
        "--tsa-cert",
        path(&first.root),
        "--tsa-cert",
        path(&second.root),
    ];
    let ok = verify(&public(&site), &line, &roots);
    ok.success();
    for name in ["first test TSA", "second test TSA"] {
        let said = ok
            .stdout
            .lines()
            .find(|l| l.starts_with("time-stamped by") && l.contains(name))
            .unwrap_or_else(|| panic!("{name}: {}", ok.stdout));
        assert!(said.contains(": existed no later than 20"), "{said}");
        assert!(said.ends_with('Z'), "UTC: {said}");
    }
    // The tokens are not in the manifest (made after it).
    let manifest = site.file("manifest.json");
    assert!(!manifest.contains(".tsr"), "no token in the manifest");

    // The same release signed again keeps the tokens it has, with their earlier time: no
    // authority is asked.
    let token = |n: usize| std::fs::read(out.join(format!("{SIGNATURE}.{n}.tsr"))).unwrap();
    let (first_token, asked) = (token(1), first.requests.load(Ordering::SeqCst));
    sign(&site, &key, &["--tsa", &first.url, "--tsa", &second.url]).success();
    assert_eq!(token(1), first_token, "kept");
    assert_eq!(
        first.requests.load(Ordering::SeqCst),
        asked,
        "not asked again"
    );
    // A token changed in the output (or brought in) is never published again: asked anew.
    std::fs::write(out.join(format!("{SIGNATURE}.1.tsr")), b"planted").unwrap();
    sign(&site, &key, &["--tsa", &first.url, "--tsa", &second.url]).success();
    assert_eq!(first.requests.load(Ordering::SeqCst), asked + 1);
    assert!(openssl_accepts(&out, 1, &first.root));

    // A wrong anchor: the second authority leads to no root given.
    verify(&public(&site), &line, &["--tsa-cert", path(&first.root)])
        .failure(1)
        .stderr_has("does not lead to any anchor")
        .stderr_has(&format!("{SIGNATURE}.2.tsr"));
    // Without any root the tokens are still checked, and the output says what was not.
    let unanchored = verify(&public(&site), &line, &[]);
    unanchored
        .success()
        .stdout_has("were not checked against a root you trust");

    // A token of another release: another site's signature, stamped by the same authority.
    let other =
        signed_site(&line).write("content/extra.md", "+++\ntitle = \"Extra\"\n+++\nMore.\n");
    sign(&other, &key, &["--tsa", &first.url]).success();
    let ours = std::fs::read(out.join(format!("{SIGNATURE}.1.tsr"))).unwrap();
    std::fs::copy(
        other.public().join(format!("{SIGNATURE}.1.tsr")),
        out.join(format!("{SIGNATURE}.1.tsr")),
    )
    .unwrap();
    verify(&public(&site), &line, &roots)
        .failure(1)
        .stderr_has("over other bytes");
    assert!(!openssl_accepts(&out, 1, &first.root));
    std::fs::write(out.join(format!("{SIGNATURE}.1.tsr")), &ours).unwrap();

    // A changed signature: its tokens no longer match it, even with no key given.
    let signature = std::fs::read(out.join(SIGNATURE)).unwrap();
    let mut changed = signature.clone();
    let at = changed.len() - 3;
    changed[at] ^= 1;
    std::fs::write(out.join(SIGNATURE), &changed).unwrap();
    let keyless = casebook(
        &[
            "verify",
            &public(&site),
            "--tsa-cert",
            path(&first.root),
            "--tsa-cert",
            path(&second.root),
        ],
        &[],
    );
    keyless.failure(1).stderr_has("over other bytes");
    std::fs::write(out.join(SIGNATURE), &signature).unwrap();

    // A token changed inside (its signed time, say) no longer holds.
    let mut forged = ours.clone();
    let at = forged.windows(2).position(|w| w == b"20").unwrap();
    forged[at + 3] = if forged[at + 3] == b'9' { b'8' } else { b'9' };
    std::fs::write(out.join(format!("{SIGNATURE}.1.tsr")), &forged).unwrap();
    verify(&public(&site), &line, &roots)
        .failure(1)
        .stderr_has("time-stamp token");
    std::fs::write(out.join(format!("{SIGNATURE}.1.tsr")), &ours).unwrap();
    verify(&public(&site), &line, &roots).success();

    // The site's own casebook.toml can name the roots: verify run in the site folder.
    let anchors = format!(
        "[signing]\ntsa_certs = [\"{}\", \"{}\"]\n",
        path(&first.root),
        path(&second.root)
    );
    let site = site.edit("casebook.toml", "[signing]\n", &anchors);
    let run = Command::new(env!("CARGO_BIN_EXE_casebook"))
        .args(["verify", "public", "--pubkey", &line])
        .current_dir(site.root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(!stdout.contains("were not checked"), "{stdout}");
    assert_eq!(stdout.matches("time-stamped by").count(), 2, "{stdout}");
}

#[test]
fn an_authority_that_fails_fails_the_build_unless_it_is_optional() {
    if !have_openssl("an_authority_that_fails") {
        return;
    }
    let authority = Authority::start("flaky");
    let (_keys, key, line) = keys(None);
    let site = signed_site(&line);
    sign(&site, &key, &[]).success();
    let before = site.file("manifest.json.minisig");

    for (answer, said) in [
        (Answer::Failure, "answered 500"),
        (Answer::Garbage, "a bad token"),
    ] {
        authority.answer(answer);
        sign(&site, &key, &["--tsa", &authority.url])
            .failure(1)
            .stderr_has("time-stamp authority 1")
            .stderr_has(said)
            .stderr_has("--tsa-optional");
        assert_eq!(
            site.file("manifest.json.minisig"),
            before,
            "the output is left as it was"
        );
        assert!(!site.exists(&format!("{SIGNATURE}.1.tsr")));
    }
    // Nothing listens there.
    let down = "http://127.0.0.1:9/";
    sign(&site, &key, &["--tsa", down])
        .failure(1)
        .stderr_has("cannot reach");

    // Optional: a warning, and the good authority's token keeps its number.
    authority.answer(Answer::Token);
    let run = sign(
        &site,
        &key,
        &["--tsa", down, "--tsa", &authority.url, "--tsa-optional"],
    );
    run.success().stderr_has("cannot reach");
    assert!(!site.exists(&format!("{SIGNATURE}.1.tsr")));
    assert!(site.exists(&format!("{SIGNATURE}.2.tsr")));
    verify(
        &public(&site),
        &line,
        &["--tsa-cert", path(&authority.root)],
    )
    .success()
    .stdout_has("flaky test TSA");

    // A build without --tsa publishes no stale token.
    sign(&site, &key, &[]).success();
    assert!(!site.exists(&format!("{SIGNATURE}.2.tsr")));
    // --tsa asks for a signature to stamp.
    casebook(
        &[
            "build",
            "--root",
            path(site.root()),
            "--tsa",
            &authority.url,
        ],
        &[],
    )
    .failure(2);
}

#[test]
fn the_verify_page_shows_when_each_authority_stamped_the_release_in_both_languages() {
    use crate::support::SiteTest;
    use crate::support::browser::{Browser, serve};
    if !have_openssl("the_verify_page_shows_when") {
        return;
    }
    let authority = Authority::start("browser");
    let (_keys, key, line) = keys(None);
    let site = signed_site(&line);
    sign(&site, &key, &["--tsa", &authority.url]).success();
    // The bilingual fixture, signed and stamped the same way.
    let bilingual = SiteTest::fixture("i18n");
    let config = std::fs::read_to_string(bilingual.root().join("casebook.toml")).unwrap();
    let bilingual = bilingual.write(
        "casebook.toml",
        &format!("{config}\n[signing]\npublic_key = \"{line}\"\n"),
    );
    sign(&bilingual, &key, &["--tsa", &authority.url]).success();

    let Some(mut browser) = Browser::launch("the_verify_page_shows_when_each_authority") else {
        return;
    };
    let url = serve(&site.public());
    let good = verify_verdict(&mut browser, &format!("{url}verify/?case=c-001"));
    assert!(good.contains("Time-stamped by browser test TSA"), "{good}");
    assert!(good.contains("existed no later than 20"), "{good}");
    assert!(
        good.contains("Every file of this record is exactly"),
        "{good}"
    );

    // A token of another release: named, and the record is not vouched for.
    let ours = site.public().join(format!("{SIGNATURE}.1.tsr"));
    let kept = std::fs::read(&ours).unwrap();
    std::fs::copy(bilingual.public().join(format!("{SIGNATURE}.1.tsr")), &ours).unwrap();
    let bad = verify_verdict(
        &mut browser,
        &format!("{url}verify/?case=c-001&token=other"),
    );
    assert!(
        bad.contains("Time-stamp token 1 is not over this signature"),
        "{bad}"
    );
    assert!(
        !bad.contains("Every file of this record is exactly"),
        "{bad}"
    );
    std::fs::write(&ours, kept).unwrap();

    let url = serve(&bilingual.public());
    let arabic = verify_verdict(&mut browser, &format!("{url}ar/verify/?case=c-1"));
    assert!(
        arabic.contains("مختوم زمنيًا من browser test TSA"),
        "{arabic}"
    );
}
