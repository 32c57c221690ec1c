//! Bad input: every error names the file, line, column and field, says what was expected,
//! gives a hint, exits 1, and all errors of a build are reported together.

use crate::support::SiteTest;

const CASE: &str = "content/cases/c-002/index.md";

#[test]
fn wrong_type_is_located() {
    let site = SiteTest::fixture("minimal").edit(CASE, "number = 102", "number = \"102\"");
    site.build()
        .failure(1)
        .stderr_has("content/cases/c-002/index.md:4:1: number: expected an integer, found the string \"102\"")
        .stderr_has("hint: write it as `number = 123`");
}

#[test]
fn value_outside_the_enum_lists_the_allowed_ones() {
    let site = SiteTest::fixture("minimal").edit(CASE, "branch = \"215\"", "branch = \"216\"");
    site.build()
        .failure(1)
        .stderr_has("content/cases/c-002/index.md:5:1: branch: `216` is not an allowed value (expected one of: 215, 227, 235)")
        .stderr_has("hint: did you mean `215`?");
}

#[test]
fn list_items_are_checked_too() {
    let site = SiteTest::fixture("minimal").edit(
        CASE,
        "indicators = [\"beating\"]",
        "indicators = [\"beatng\"]",
    );
    site.build()
        .failure(1)
        .stderr_has("index.md:7:1: indicators: `beatng` is not an allowed value")
        .stderr_has("did you mean `beating`?");
}

#[test]
fn missing_required_field_is_named() {
    let site = SiteTest::fixture("minimal").edit(CASE, "number = 102\n", "");
    site.build()
        .failure(1)
        .stderr_has("content/cases/c-002/index.md:1:1: number: required field is missing (expected an integer)")
        .stderr_has("hint: add `number = 123` to the front matter");
}

#[test]
fn unknown_field_suggests_the_closest() {
    let site = SiteTest::fixture("minimal").edit(CASE, "branch = ", "brnach = ");
    site.build()
        .failure(1)
        .stderr_has("content/cases/c-002/index.md:5:1: brnach: unknown front-matter key `brnach`")
        .stderr_has("hint: did you mean `branch`?");
}

#[test]
fn unknown_page_key_suggests_the_closest() {
    let site = SiteTest::fixture("minimal").edit("content/about.md", "weight = 9", "wieght = 9");
    site.build()
        .failure(1)
        .stderr_has("content/about.md:3:1: wieght: unknown front-matter key `wieght`")
        .stderr_has("did you mean `weight`?");
}

#[test]
fn duplicate_case_id_names_both_files() {
    let site =
        SiteTest::fixture("minimal").edit(CASE, "case_id = \"c-002\"", "case_id = \"c-001\"");
    site.build()
        .failure(1)
        .stderr_has("content/cases/c-002/index.md:3:1: case_id: case id `c-001` is already used by content/cases/c-001/index.md")
        .stderr_has("content/cases/c-001/index.md")
        .stderr_has("content/cases/c-002/index.md");
}

#[test]
fn two_pages_at_one_url_name_both_files() {
    // `about.md` is at /about/; a page whose slug says the same takes it again.
    let site = SiteTest::fixture("minimal").write(
        "content/also-about.md",
        "+++\ntitle = \"Also about\"\nslug = \"about\"\n+++\n\nText.\n",
    );
    site.build()
        .failure(1)
        .stderr_has("content/also-about.md: the URL /about/ is also produced by content/about.md")
        .stderr_has("hint: rename one of the files or give it a different `slug`");
}

#[test]
fn bad_dates_are_reported() {
    // TOML itself rejects an impossible date.
    let site = SiteTest::fixture("minimal").edit(
        CASE,
        "photographed = 2012-03-04",
        "photographed = 2012-13-04",
    );
    site.build()
        .failure(1)
        .stderr_has("content/cases/c-002/index.md:6:");
    // A date written as a string is parsed and checked by casebook.
    let site = SiteTest::fixture("minimal").edit(
        CASE,
        "photographed = 2012-03-04",
        "photographed = \"2012-02-30\"",
    );
    site.build()
        .failure(1)
        .stderr_has(
            "content/cases/c-002/index.md:6:1: photographed: `2012-02-30` is not a valid date",
        )
        .stderr_has("hint: write dates as YYYY-MM-DD");
    let site = SiteTest::fixture("minimal").edit(
        "content/about.md",
        "date = 2020-01-02",
        "date = \"2 January\"",
    );
    site.build()
        .failure(1)
        .stderr_has("content/about.md:4:1: date: `2 January` is not a valid date");
}

#[test]
fn all_errors_are_reported_together() {
    let site = SiteTest::fixture("minimal")
        .edit(CASE, "number = 102", "number = \"x\"")
        .edit(
            "content/cases/c-003/index.md",
            "branch = \"227\"",
            "branch = \"999\"",
        )
        .edit(
            "content/about.md",
            "Write to us.",
            "See [nothing](@/nothing.md).",
        );
    let run = site.build();
    run.failure(1)
        .stderr_has("content/cases/c-002/index.md:4:1: number:")
        .stderr_has("content/cases/c-003/index.md:5:1: branch:")
        .stderr_has("3 errors found; nothing was written");
}

#[test]
fn broken_internal_link_is_located() {
    let site = SiteTest::fixture("minimal").edit(
        "content/about.md",
        "Write to us.",
        "Write to [us](@/contact.md).",
    );
    site.build()
        .failure(1)
        .stderr_has("content/about.md:13:10: broken internal link `@/contact.md`: no content file `content/contact.md`");
}

#[test]
fn front_matter_syntax_errors_are_located() {
    let site = SiteTest::fixture("minimal").edit("content/about.md", "weight = 9", "weight = = 9");
    site.build().failure(1).stderr_has("content/about.md:3:");
    let site = SiteTest::fixture("minimal").write("content/docs/no-front.md", "Just text.\n");
    site.build()
        .failure(1)
        .stderr_has("content/docs/no-front.md:1:1: the file does not start with front matter");
    let site =
        SiteTest::fixture("minimal").write("content/docs/no-title.md", "+++\nweight = 1\n+++\nx\n");
    site.build()
        .failure(1)
        .stderr_has("content/docs/no-title.md:1:1: title: every page needs a title");
}

#[test]
fn config_typos_suggest_the_key() {
    let site =
        SiteTest::fixture("minimal").edit("casebook.toml", "paginate_by = 2", "paginte_by = 2");
    site.build()
        .failure(1)
        .stderr_has("casebook.toml:4:1: paginte_by: unknown key `paginte_by`")
        .stderr_has("hint: did you mean `paginate_by`?");
    let site =
        SiteTest::fixture("minimal").edit("casebook.toml", "type = \"enum\"", "type = \"enun\"");
    site.build()
        .failure(1)
        .stderr_has("cases.fields[2].type: unknown field type `enun`")
        .stderr_has("did you mean `enum`?");
}

#[test]
fn a_licence_without_a_name_or_an_absolute_address_is_located() {
    let site = SiteTest::fixture("minimal").edit(
        "casebook.toml",
        "minify = true",
        "minify = true\nlicense = { name = \"CC BY 4.0\", url = \"creativecommons.org/licenses/by/4.0/\" }",
    );
    site.build()
        .failure(1)
        .stderr_has("casebook.toml:6:")
        .stderr_has("license.url: `creativecommons.org/licenses/by/4.0/` is not an absolute http(s) address")
        .stderr_has("hint: write the licence's name and the address of its terms");
    let site = SiteTest::fixture("minimal").edit(
        "casebook.toml",
        "minify = true",
        "minify = true\nlicense = { name = \" \", url = \"https://x.org/terms\" }",
    );
    site.build()
        .failure(1)
        .stderr_has("license.name: the licence has no name");
}

#[test]
fn missing_config_explains_how_to_start() {
    let site = SiteTest::fixture("minimal").remove("casebook.toml");
    site.build()
        .failure(1)
        .stderr_has("casebook.toml: no site configuration found")
        .stderr_has("casebook init");
}

#[test]
fn template_errors_name_the_template() {
    let site = SiteTest::fixture("minimal").write("templates/page.html", "{% if %}");
    site.build()
        .failure(1)
        .stderr_has("templates/page.html: template error");
}

#[test]
fn a_page_at_the_search_pages_address_is_refused() {
    // Found by building casebook's own docs, which have a page about search.
    let site = SiteTest::fixture("minimal")
        .write("content/search.md", "+++\ntitle = \"Search\"\n+++\nText.\n");
    site.build()
        .failure(1)
        .stderr_has("two outputs would be written to `search/index.html`");
    let mut session = casebook::serve::Session::new(site.root(), None, false);
    let err = session.build_all(&[]).unwrap_err();
    assert!(
        err.to_string()
            .contains("two outputs would be written to `search/index.html`"),
        "serve finds it too: {err}"
    );
}

#[test]
fn a_nul_byte_in_a_content_file_is_located() {
    let site = SiteTest::fixture("minimal").edit(CASE, "number = 102", "number = 102\n");
    let text = std::fs::read_to_string(site.root().join(CASE)).unwrap();
    let broken = text.replacen("\n\n", "\n\0\n", 1);
    let site = site.write(CASE, &broken);
    let line = broken[..broken.find('\0').unwrap()].lines().count() + 1;
    site.build()
        .failure(1)
        .stderr_has(&format!("{CASE}:{line}:1: the file holds a NUL character"));
    let body = SiteTest::fixture("minimal").write(
        "content/about.md",
        "+++\ntitle = \"About\"\n+++\nText\0here.\n",
    );
    body.build()
        .failure(1)
        .stderr_has("content/about.md:4:5: the file holds a NUL character");
    assert!(!body.public().exists());
}

#[test]
fn an_error_in_a_translated_case_is_reported_once_and_truly() {
    // The default-language file is broken; its translation is not an orphan.
    let site = SiteTest::fixture("i18n").edit(
        "content/cases/c-1/index.md",
        "branch = \"215\"",
        "branch = 215",
    );
    let run = site.build();
    run.failure(1).stderr_has("content/cases/c-1/index.md");
    assert!(
        !run.stderr
            .contains("no default-language case file beside it"),
        "{}",
        run.stderr
    );
    // A translation that really has no default-language file still says so.
    let site = SiteTest::fixture("i18n").write(
        "content/cases/c-9/index.ar.md",
        "+++\ntitle = \"حالة\"\n+++\nنص.\n",
    );
    site.build()
        .failure(1)
        .stderr_has("content/cases/c-9/index.ar.md: this translation has no default-language case file beside it");
}
