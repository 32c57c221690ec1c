//! Pages kept for the next one-shot build (issue 43): each page's markdown and search
//! document are used again while the page and every `@/` link it resolved are the same.
//! Edits that change a page only through another file (the page it links to) build what a
//! build from nothing builds, and a link that breaks is still reported.

use crate::support::{Edit, EditedFixture, SiteTest, settle};

const KEPT: &str = ".casebook-cache/pages.bin";
const ABOUT: &str = "content/about.md";
const PLAIN_A: &str = "content/docs/plain-a.md";
const C2: &str = "content/cases/c-002/index.md";

#[test]
fn one_shot_builds_from_kept_pages_build_what_a_fresh_build_builds() {
    let edits: [(&str, Edit); 5] = [
        ("a case links to a page", |s| {
            s.edit(
                C2,
                "Narrative of c-002.",
                "Narrative of c-002, [see A](@/docs/plain-a.md).",
            )
        }),
        // The case's file is the same; only where its link goes is not: nothing else on
        // its page shows the page it links to.
        ("the page the case links to moved", |s| {
            s.edit(PLAIN_A, "+++\n", "+++\nslug = \"moved-a\"\n")
        }),
        ("a case's text", |s| {
            s.edit(
                "content/cases/c-003/index.md",
                "Narrative of c-003",
                "Edited narrative of c-003",
            )
        }),
        // Every case links to the about page, which the menu shows too.
        ("the about page moved, retitled", |s| {
            s.edit(ABOUT, "weight = 9\n", "weight = 9\nslug = \"about-us\"\n")
                .edit(ABOUT, "title = \"About\"", "title = \"About us\"")
        }),
        ("both moved back", |s| {
            s.edit(ABOUT, "slug = \"about-us\"\n", "")
                .edit(PLAIN_A, "slug = \"moved-a\"\n", "")
        }),
    ];
    let mut site = SiteTest::fixture("minimal");
    site.build().success();
    assert!(site.root().join(KEPT).is_file(), "no pages kept");
    let mut edited = EditedFixture::new("minimal");
    for (what, edit) in edits {
        settle();
        site = edited.build_after(site, what, edit);
    }
    let case = site.file("cases/c-002/index.html");
    assert!(
        case.contains("<a href=../../docs/plain-a/>see A</a>"),
        "{case}"
    );
}

#[test]
fn a_link_broken_since_its_page_was_kept_is_reported() {
    let site = SiteTest::fixture("minimal");
    site.build().success();
    let before = site.file("cases/c-001/index.html");
    settle();
    // The cases' own files are unchanged: only their link's target is gone.
    let site = site.remove(ABOUT);
    let run = site.build();
    run.failure(1).stderr_has("@/about.md");
    for case in ["c-001", "c-002", "c-003"] {
        run.stderr_has(&format!("content/cases/{case}/index.md"));
    }
    assert_eq!(site.file("cases/c-001/index.html"), before);
}
