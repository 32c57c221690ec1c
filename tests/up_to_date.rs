//! A build with nothing to do (issue 43): when the sources, the options, casebook and the
//! output folder are all as the last build of that folder left them, `build` checks them
//! (a stat of each file) and writes nothing. Any change, and any record it cannot trust,
//! makes it build as always.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use crate::support::{SiteTest, copy_tree, settle, tree};

const CASE: &str = "content/cases/c-001/index.md";
const UP_TO_DATE: &str = "nothing changed since the last build";

/// Every file of the output: its bytes and when it was last written.
fn output(dir: &Path) -> BTreeMap<String, (Vec<u8>, i64, i64)> {
    tree(dir)
        .into_iter()
        .map(|(rel, bytes)| {
            let meta = std::fs::metadata(dir.join(&rel)).unwrap();
            (rel, (bytes, meta.mtime(), meta.mtime_nsec()))
        })
        .collect()
}

fn built_in_full(site: &SiteTest) {
    let run = site.build();
    run.success();
    assert!(!run.stdout.contains(UP_TO_DATE), "{}", run.stdout);
}

#[test]
fn an_unchanged_site_is_checked_and_nothing_is_written() {
    let site = SiteTest::fixture("minimal");
    settle();
    site.build().success();
    let before = output(&site.public());
    let run = site.build();
    run.success().stdout_has(UP_TO_DATE);
    assert!(run.stdout.contains("5 cases"), "{}", run.stdout);
    assert!(output(&site.public()) == before, "the output was written");
    // `check` and other output folders are not concerned.
    let other = site.root().join("elsewhere");
    let run = site.run(&["build", "--output", other.to_str().unwrap()]);
    run.success();
    assert!(!run.stdout.contains(UP_TO_DATE));
}

#[test]
fn a_changed_source_option_or_output_builds_in_full() {
    let site = SiteTest::fixture("minimal");
    settle();
    site.build().success();
    let first = output(&site.public());

    // A file of the output changed or removed: rebuilt, and put back as it was.
    std::fs::write(site.public().join("index.html"), "changed").unwrap();
    built_in_full(&site);
    assert_eq!(
        output(&site.public())["index.html"].0,
        first["index.html"].0
    );
    settle();
    site.build().success();
    std::fs::remove_file(site.public().join("about/index.html")).unwrap();
    built_in_full(&site);
    assert!(site.exists("about/index.html"));

    // Other options.
    let run = site.run(&["build", "--base-url", "https://mirror.example.org/"]);
    run.success();
    assert!(!run.stdout.contains(UP_TO_DATE));
    assert!(site.file("index.html").contains("mirror.example.org"));
    settle();
    built_in_full(&site);
    assert!(!site.file("index.html").contains("mirror.example.org"));

    // A source edited, even to the same length, even within the second it was recorded.
    settle();
    site.build().success();
    let site = site.edit(CASE, "title = \"", "title = \"Q");
    built_in_full(&site);
    let site = site.edit(CASE, "title = \"Q", "title = \"R");
    built_in_full(&site);
    assert!(site.file("cases/c-001/index.html").contains(">R"));
}

#[test]
fn a_record_that_came_with_the_site_or_is_damaged_is_not_trusted() {
    let site = SiteTest::fixture("minimal");
    settle();
    site.build().success();
    // The whole folder copied, output, cache and the key beside the output included.
    let copy = SiteTest::empty();
    copy_tree(site.root(), copy.root());
    settle();
    built_in_full(&copy);

    let record = site.root().join(".casebook-cache/up-to-date.bin");
    let mut bytes = std::fs::read(&record).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&record, bytes).unwrap();
    built_in_full(&site);
    // Rebuilt in full, the build is recorded anew.
    settle();
    site.build().success();
    site.build().success().stdout_has(UP_TO_DATE);
}

#[test]
fn a_site_with_a_symbolic_link_always_builds_in_full() {
    let site = SiteTest::fixture("minimal");
    // Whatever a link leads to could change without any file of the site changing.
    let outside = SiteTest::empty();
    std::fs::write(outside.root().join("note.txt"), "outside").unwrap();
    std::os::unix::fs::symlink(
        outside.root().join("note.txt"),
        site.root().join("note.txt"),
    )
    .unwrap();
    settle();
    site.build().success();
    built_in_full(&site);
    std::fs::remove_file(site.root().join("note.txt")).unwrap();
    settle();
    site.build().success();
    site.build().success().stdout_has(UP_TO_DATE);
}
