//! Parses kept for the next one-shot build (issue 43): a build after an edit reads and
//! parses only the content files whose stamps changed, and builds what a build from
//! nothing builds. A kept parse that came with a site is never used.

use crate::support::{Edit, EditedFixture, SiteTest, copy_tree, settle};

const KEPT: &str = ".casebook-cache/parsed.bin";
const C2: &str = "content/cases/c-002/index.md";

#[test]
fn one_shot_builds_from_kept_parses_build_what_a_fresh_build_builds() {
    let edits: [(&str, Edit); 5] = [
        ("a value", |s| s.edit(C2, "number = 102", "number = 1020")),
        ("the title and text", |s| {
            s.edit(C2, "title = \"Case two\"", "title = \"Case 2\"")
                .edit(C2, "Narrative of c-002", "Edited narrative of c-002")
        }),
        ("a new case", |s| {
            s.write(
                "content/cases/c-009/index.md",
                "+++\ntitle = \"Case nine\"\ncase_id = \"c-009\"\nnumber = 109\n\
                 branch = \"227\"\nphotographed = 2013-05-06\nsynthetic = true\n+++\nNine.\n",
            )
        }),
        ("a page removed", |s| s.remove("content/docs/plain-a.md")),
        ("a case made a draft", |s| {
            s.edit(
                "content/cases/c-003/index.md",
                "+++\n",
                "+++\ndraft = true\n",
            )
        }),
    ];
    let mut site = SiteTest::fixture("minimal");
    settle();
    site.build().success();
    assert!(site.root().join(KEPT).is_file(), "nothing kept");
    let mut edited = EditedFixture::new("minimal");
    for (what, edit) in edits {
        site = edited.build_after(site, what, edit);
        // The next edit finds this one's file settled, and its parse kept.
        settle();
    }
}

#[test]
fn kept_parses_that_came_with_a_site_are_not_used() {
    let site = SiteTest::fixture("minimal");
    settle();
    site.build().success();
    // The whole folder moved away and copied back in its place, the cache included (the
    // same folder and configuration); then a case rewritten to the same size and given
    // back its modification time, as an unpacked archive or `cp -a` would.
    let away = tempfile::tempdir().unwrap();
    std::fs::rename(site.root(), away.path().join("site")).unwrap();
    copy_tree(&away.path().join("site"), site.root());
    let copy = site;
    let modified = std::fs::metadata(away.path().join("site").join(C2))
        .and_then(|m| m.modified())
        .unwrap();
    rewrite_to_the_same_size(&copy.root().join(C2), "c-00X", modified);
    settle();
    copy.build().success();
    assert!(
        copy.file("cases/c-002/index.html")
            .contains("Narrative of c-00X")
    );
}

#[test]
fn an_edit_to_the_same_size_with_its_time_put_back_is_seen() {
    // The stamp holds the change time, which no program can set: a file rewritten to the
    // same size with its modification time put back is read again.
    let site = SiteTest::fixture("minimal");
    settle();
    site.build().success();
    let case = site.root().join(C2);
    let modified = std::fs::metadata(&case).and_then(|m| m.modified()).unwrap();
    rewrite_to_the_same_size(&case, "c-00Y", modified);
    settle();
    site.build().success();
    assert!(
        site.file("cases/c-002/index.html")
            .contains("Narrative of c-00Y")
    );
}

/// Rewrites the case `case`'s narrative to name `id` instead (same length), and gives the
/// file the modification time `modified`.
fn rewrite_to_the_same_size(case: &std::path::Path, id: &str, modified: std::time::SystemTime) {
    let text = std::fs::read_to_string(case).unwrap();
    let same_size = text.replace("Narrative of c-002", &format!("Narrative of {id}"));
    assert_eq!(same_size.len(), text.len());
    std::fs::write(case, &same_size).unwrap();
    std::fs::File::options()
        .write(true)
        .open(case)
        .and_then(|f| f.set_modified(modified))
        .unwrap();
}
