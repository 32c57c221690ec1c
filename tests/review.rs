//! Reviewed photographs: `casebook check` counts and lists those not reviewed, and
//! `[images] require_review` makes `build` and `check` refuse them, by page, line and field.

use sha2::{Digest, Sha256};

use crate::support::SiteTest;

const CASE: &str = "content/cases/c-001/index.md";

fn hex(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The minimal fixture with three photographs on c-001 (two the same picture, one another).
fn site() -> SiteTest {
    let site = SiteTest::fixture("minimal").photos(
        CASE,
        "[[photos]]\nfile = \"p1.png\"\nalt = \"One\"\nredact = [ { x = 0.30, y = 0.1, w = 0.4, h = 0.3 } ]\n\n[[photos]]\nfile = \"p2.png\"\nalt = \"Two\"\n\n[[photos]]\nfile = \"p3.png\"\nalt = \"Three\"\nsensitivity = \"sensitive\"\nredact = [ { x = 0.1, y = 0.1, w = 0.2, h = 0.2, method = \"pixelate\" } ]\n",
    );
    let png = crate::support::patterned_png(320, 240);
    let other = crate::support::patterned_png(240, 320);
    let dir = site.root().join("content/cases/c-001");
    std::fs::write(dir.join("p1.png"), &png).unwrap();
    std::fs::write(dir.join("p2.png"), &png).unwrap();
    std::fs::write(dir.join("p3.png"), &other).unwrap();
    site
}

/// `covers` of each photograph `check --verbose` lists, by file.
fn listed_covers(site: &SiteTest) -> Vec<(String, String)> {
    let run = site.run(&["check", "--verbose"]);
    run.success();
    run.stdout
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once("index.md:")?;
            let photo = rest.split(": ").nth(1)?.to_string();
            let covers = rest.split("covers = \"").nth(1)?.trim_end_matches("\")");
            Some((photo, covers.to_string()))
        })
        .collect()
}

fn review(covers: &str) -> String {
    format!("reviewed = {{ by = \"A. Editor\", on = 2024-05-14, covers = \"{covers}\" }}\n")
}

#[test]
fn check_counts_photographs_not_reviewed_and_lists_them_with_verbose() {
    let site = site();
    let run = site.run(&["check"]);
    run.success().stdout_has("3 of 3 photographs not reviewed");
    assert!(!run.stdout.contains("p1.png"), "{}", run.stdout);

    // The digest is the documented one: the source's SHA-256, the sensitivity, the regions.
    let source = std::fs::read(site.root().join("content/cases/c-001/p1.png")).unwrap();
    let expected = hex(format!(
        "casebook-review-1\n{}\ngraphic\nfill 0.3 0.1 0.4 0.3\n",
        hex(&source)
    )
    .as_bytes())[..16]
        .to_string();
    let covers = listed_covers(&site);
    assert_eq!(covers.len(), 3, "{covers:?}");
    assert_eq!(covers[0], ("p1.png".to_string(), expected));
    let verbose = site.run(&["check", "--verbose"]);
    verbose.stdout_has(&format!(
        "content/cases/c-001/index.md:{}: p2.png: not reviewed",
        site_line(&site, "file = \"p2.png\"")
    ));

    // One reviewed as it is; one reviewed, then its region changed by hand.
    let site = site
        .edit(
            CASE,
            "alt = \"One\"\n",
            &format!("alt = \"One\"\n{}", review(&covers[0].1)),
        )
        .edit(
            CASE,
            "alt = \"Three\"\n",
            &format!("alt = \"Three\"\n{}", review(&covers[2].1)),
        )
        .edit(
            CASE,
            "w = 0.2, h = 0.2, method",
            "w = 0.25, h = 0.2, method",
        );
    site.run(&["check", "--verbose"])
        .success()
        .stdout_has("2 of 3 photographs not reviewed (1 of them reviewed before a change")
        .stdout_has("p3.png: review no longer covers it");
}

/// The line of the `[[photos]]` header above the first line holding `needle`.
fn site_line(site: &SiteTest, needle: &str) -> usize {
    let text = std::fs::read_to_string(site.root().join(CASE)).unwrap();
    let at = text.lines().position(|l| l.contains(needle)).unwrap();
    text.lines()
        .take(at + 1)
        .enumerate()
        .filter(|(_, l)| l.trim() == "[[photos]]")
        .map(|(i, _)| i + 1)
        .last()
        .unwrap()
}

#[test]
fn require_review_publishes_reviewed_photographs_and_names_the_others() {
    let site = site();
    let covers = listed_covers(&site);
    let site = site
        .edit(
            "casebook.toml",
            "[cases]",
            "[images]\nrequire_review = true\n\n[cases]",
        )
        .edit(
            CASE,
            "alt = \"One\"\n",
            &format!("alt = \"One\"\n{}", review(&covers[0].1)),
        )
        .edit(
            CASE,
            "alt = \"Three\"\n",
            &format!("alt = \"Three\"\n{}", review(&covers[2].1)),
        )
        // Changed by hand after the review: no longer covered.
        .edit(
            CASE,
            "sensitivity = \"sensitive\"",
            "sensitivity = \"none\"",
        );
    let build = site.build();
    build.failure(1);
    let (p2, p3) = (
        site_line(&site, "file = \"p2.png\""),
        site_line(&site, "file = \"p3.png\""),
    );
    build
        .stderr_has(&format!(
            "content/cases/c-001/index.md:{p2}:1: photos[1].reviewed: photograph `p2.png` is not reviewed"
        ))
        .stderr_has(&format!(
            "content/cases/c-001/index.md:{p3}:1: photos[2].reviewed: photograph `p3.png` was reviewed, but"
        ))
        .stderr_has("hint: [images] require_review is on")
        .stderr_has("2 errors found");
    assert!(!build.stderr.contains("`p1.png`"), "{}", build.stderr);
    assert!(!site.public().exists(), "nothing is published");
    site.run(&["check"])
        .failure(1)
        .stderr_has("`p2.png` is not reviewed");

    // Reviewed as they are now, all three are published.
    let covers = listed_covers_without_requirement(&site);
    let of = |photo: &str| covers.iter().find(|(p, _)| p == photo).unwrap().1.clone();
    let old_p3 = covers_line_of(&site, "p3.png");
    let site = site
        .edit(
            CASE,
            "alt = \"Two\"\n",
            &format!("alt = \"Two\"\n{}", review(&of("p2.png"))),
        )
        .edit(CASE, &old_p3, &format!("covers = \"{}\" }}", of("p3.png")));
    site.build().success();
    site.run(&["check"])
        .success()
        .stdout_has("0 of 3 photographs not reviewed");
}

/// What `check --verbose` lists with `require_review` switched off for the run.
fn listed_covers_without_requirement(site: &SiteTest) -> Vec<(String, String)> {
    let config = site.root().join("casebook.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace("require_review = true", "require_review = false"),
    )
    .unwrap();
    let covers = listed_covers(site);
    std::fs::write(&config, text).unwrap();
    covers
}

/// The `covers = "…" }` text of `photo`'s review.
fn covers_line_of(site: &SiteTest, photo: &str) -> String {
    let text = std::fs::read_to_string(site.root().join(CASE)).unwrap();
    let from = text.find(&format!("file = \"{photo}\"")).unwrap();
    let at = text[from..].find("covers = ").unwrap() + from;
    text[at..at + "covers = \"0123456789abcdef\" }".len()].to_string()
}

#[test]
fn more_than_a_hundred_photographs_not_reviewed_are_counted_after_the_first_hundred() {
    let mut tables = String::new();
    for i in 0..105 {
        tables.push_str(&format!(
            "[[photos]]\nfile = \"p{i}.png\"\nalt = \"P{i}\"\n\n"
        ));
    }
    let site = SiteTest::fixture("minimal").photos(CASE, &tables).edit(
        "casebook.toml",
        "[cases]",
        "[images]\nrequire_review = true\n\n[cases]",
    );
    let png = crate::support::patterned_png(32, 24);
    for i in 0..105 {
        std::fs::write(
            site.root().join(format!("content/cases/c-001/p{i}.png")),
            &png,
        )
        .unwrap();
    }
    let build = site.build();
    build
        .failure(1)
        .stderr_has("... and 5 more errors like these")
        .stderr_has("105 errors found (the first 100 are shown)");
}

#[test]
fn init_writes_require_review_commented_and_the_site_builds_with_it_on() {
    let dir = SiteTest::empty();
    let target = dir.root().join("site");
    dir.run(&["init", &target.to_string_lossy()]).success();
    let config = std::fs::read_to_string(target.join("casebook.toml")).unwrap();
    assert!(
        config.contains("\n# [images]\n# require_review = true\n"),
        "{config}"
    );
    std::fs::write(
        target.join("casebook.toml"),
        config.replace("# [images]\n# require_review", "[images]\nrequire_review"),
    )
    .unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_casebook"))
        .args(["build", "--root", &target.to_string_lossy()])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}
