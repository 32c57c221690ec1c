//! `casebook serve`: incremental rebuilds match full builds, and the server serves the site,
//! reloads pages, shows diagnostics, refuses paths outside the site and stays on loopback.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use casebook::serve::{ServeOptions, Server, Session};

use crate::support::http::{Events, request};
use crate::support::{SiteTest, bundled};

const BASE: &str = "http://127.0.0.1:1111/";

// ---- incremental builds -------------------------------------------------------------

/// Every file of a session's site, with its bytes.
fn snapshot(session: &Session) -> BTreeMap<String, Vec<u8>> {
    session
        .files()
        .expect("a good build")
        .iter()
        .map(|(path, file)| (path.clone(), file.read().unwrap().into_owned()))
        .collect()
}

/// The site as a fresh, full build makes it.
fn full_build(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut session = Session::new(root, Some(BASE.into()), false);
    session.build_all(&[]).unwrap();
    snapshot(&session)
}

#[track_caller]
fn assert_same_site(got: &BTreeMap<String, Vec<u8>>, want: &BTreeMap<String, Vec<u8>>, step: &str) {
    let missing: Vec<&String> = want.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<&String> = got.keys().filter(|k| !want.contains_key(*k)).collect();
    let differ: Vec<&String> = want
        .iter()
        .filter(|(k, v)| got.get(*k).is_some_and(|g| g != *v))
        .map(|(k, _)| k)
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty() && differ.is_empty(),
        "after {step}, the rebuilt site differs from a full build:\n\
         missing {missing:?}\nextra {extra:?}\ndifferent {differ:?}"
    );
}

struct Edits {
    site: SiteTest,
    root: PathBuf,
    session: Session,
}

impl Edits {
    fn new(site: SiteTest) -> Edits {
        let root = site.root().canonicalize().unwrap();
        let mut session = Session::new(&root, Some(BASE.into()), false);
        session.build_all(&[]).unwrap();
        Edits {
            site,
            root,
            session,
        }
    }

    /// Applies a change to the files, rebuilds from the changed paths, checks the result
    /// against a full build and returns what the rebuild rendered and changed.
    fn step(
        &mut self,
        step: &str,
        change: impl FnOnce(&Path) -> Vec<&'static str>,
    ) -> casebook::serve::Update {
        let changed: Vec<PathBuf> = change(&self.root)
            .into_iter()
            .map(|rel| self.root.join(rel))
            .collect();
        let update = self
            .session
            .build_all(&changed)
            .unwrap_or_else(|e| panic!("{step}: {e}"));
        assert_same_site(&snapshot(&self.session), &full_build(&self.root), step);
        update
    }
}

pub fn edit(root: &Path, rel: &str, from: &str, to: &str) {
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{rel} lacks {from:?}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn serve_builds_what_casebook_build_builds() {
    let site = bundled();
    let root = site.root().canonicalize().unwrap();
    // `casebook build` writes to disk what serve keeps in memory.
    let out = root.join("built");
    casebook::build(&casebook::BuildOptions {
        root: root.clone(),
        output: Some(out.clone()),
        base_url: Some(BASE.into()),
        ..Default::default()
    })
    .unwrap();
    let want: BTreeMap<String, Vec<u8>> = crate::support::tree(&out).into_iter().collect();
    assert_same_site(&full_build(&root), &want, "the first build");
}

#[test]
fn incremental_rebuilds_equal_full_builds_after_every_kind_of_edit() {
    let mut edits = Edits::new(bundled());
    let pages = edits.session.build_all(&[]).unwrap().pages;
    assert!(pages > 50, "the bundled site has {pages} pages");

    let update = edits.step("a case narrative edit", |root| {
        let path = root.join("content/cases/syn-0002/index.md");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            format!("{text}\nA sentence added by the serve test.\n"),
        )
        .unwrap();
        vec!["content/cases/syn-0002/index.md"]
    });
    assert!(
        update.rendered > 0 && update.rendered * 4 < pages,
        "a narrative edit rendered {} of {pages} pages",
        update.rendered
    );
    assert!(
        update
            .changed
            .contains(&"cases/syn-0002/index.html".to_string())
    );
    assert!(
        update.changed.iter().any(|p| p.starts_with("search/")),
        "{:?}",
        update.changed
    );

    edits.step(
        "a case field edit that moves it to another facet value",
        |root| {
            edit(
                root,
                "content/cases/syn-0002/index.md",
                "branch = \"s2\"",
                "branch = \"s1\"",
            );
            vec!["content/cases/syn-0002/index.md"]
        },
    );
    // Its month and year change: the time charts, the year and month pages.
    edits.step("a case's date", |root| {
        edit(
            root,
            "content/cases/syn-0002/index.md",
            "photographed = 2011-06-09",
            "photographed = 2012-02-09",
        );
        vec!["content/cases/syn-0002/index.md"]
    });
    edits.step("a case title edit", |root| {
        edit(
            root,
            "content/cases/syn-0003/index.md",
            "title = \"",
            "title = \"Renamed ",
        );
        vec!["content/cases/syn-0003/index.md"]
    });
    edits.step("a navigation page's title", |root| {
        edit(root, "content/about.md", "title = \"", "title = \"Renamed ");
        vec!["content/about.md"]
    });
    edits.step("a section's text", |root| {
        let path = root.join("content/cases/_index.md");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            format!("{text}\nA paragraph added by the serve test.\n"),
        )
        .unwrap();
        vec!["content/cases/_index.md"]
    });
    edits.step("a new case", |root| {
        let from = root.join("content/cases/syn-0002");
        let to = root.join("content/cases/syn-0999");
        crate::support::copy_tree(&from, &to);
        edit(
            root,
            "content/cases/syn-0999/index.md",
            "case_id = \"syn-0002\"",
            "case_id = \"syn-0999\"",
        );
        edit(
            root,
            "content/cases/syn-0999/index.md",
            "detainee_number = 93182",
            "detainee_number = 93999",
        );
        vec!["content/cases/syn-0999"]
    });
    edits.step("a removed case", |root| {
        std::fs::remove_dir_all(root.join("content/cases/syn-0004")).unwrap();
        vec!["content/cases/syn-0004"]
    });
    edits.step(
        "a newer page date, which every case's citation names",
        |root| {
            edit(
                root,
                "content/licence.md",
                "updated = 2026-12-06",
                "updated = 2027-01-05",
            );
            vec!["content/licence.md"]
        },
    );
    let update = edits.step("the case template", |root| {
        edit(
            root,
            "themes/default/templates/case.html",
            "{% block content %}",
            "{% block content %}<p class=\"test-marker\">marker</p>",
        );
        vec!["themes/default/templates/case.html"]
    });
    let cases = edits
        .session
        .files()
        .unwrap()
        .keys()
        .filter(|p| {
            (p.starts_with("cases/syn-") || p.starts_with("ar/cases/syn-"))
                && p.ends_with("/index.html")
        })
        .count();
    assert_eq!(
        update.rendered, cases,
        "a case template edit renders the case pages only"
    );
    edits.step("a partial used by some templates", |root| {
        let path = root.join("themes/default/templates/partials/facet_nav.html");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("<p class=\"test-marker\">facets</p>{text}")).unwrap();
        vec!["themes/default/templates/partials/facet_nav.html"]
    });
    let update = edits.step("the style sheet", |root| {
        let path = root.join("themes/default/static/casebook.css");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{text}\n.test-marker {{ color: red; }}\n")).unwrap();
        vec!["themes/default/static/casebook.css"]
    });
    assert_eq!(update.rendered, 0);
    // The style sheet's new hash changes the manifest (the preview is not signed: it
    // publishes no proofs).
    assert_eq!(
        update.changed,
        ["casebook.css", "manifest.json"].map(String::from)
    );
    edits.step("a UI string", |root| {
        edit(root, "themes/default/i18n/en.toml", "= \"", "= \"Changed: ");
        vec!["themes/default/i18n/en.toml"]
    });
    edits.step("the configuration", |root| {
        edit(root, "casebook.toml", "title = \"", "title = \"Renamed ");
        vec!["casebook.toml"]
    });
    drop(edits.site);
}

/// The published image files (`.jpg`) among a rebuild's changed paths.
fn changed_images(update: &casebook::serve::Update) -> Vec<&str> {
    (update.changed.iter())
        .filter(|p| p.ends_with(".jpg"))
        .map(String::as_str)
        .collect()
}

#[test]
fn a_photograph_edit_rebuilds_that_photograph_alone_and_the_next_build_finds_it_cached() {
    let mut edits = Edits::new(bundled());
    let only = |update: &casebook::serve::Update, prefix: &str| {
        let images = changed_images(update);
        assert!(!images.is_empty(), "{prefix}: no image changed");
        assert!(
            images.iter().all(|p| p.starts_with(prefix)),
            "{prefix}: {images:?}"
        );
    };
    let update = edits.step("a redaction region moved", |root| {
        edit(
            root,
            "content/cases/syn-0002/index.md",
            "redact = [ { x = 0.30, y = 0.08, w = 0.40, h = 0.30 } ]",
            "redact = [ { x = 0.30, y = 0.08, w = 0.40, h = 0.35 } ]",
        );
        vec!["content/cases/syn-0002/index.md"]
    });
    only(&update, "cases/syn-0002/photo-1.");
    let update = edits.step("a source replaced under the same name", |root| {
        std::fs::copy(
            root.join("content/cases/syn-0003/photo-1.jpg"),
            root.join("content/cases/syn-0002/photo-2.jpg"),
        )
        .unwrap();
        vec!["content/cases/syn-0002/photo-2.jpg"]
    });
    only(&update, "cases/syn-0002/photo-2.");
    let update = edits.step("a region set back as it was", |root| {
        edit(
            root,
            "content/cases/syn-0002/index.md",
            "h = 0.35 }",
            "h = 0.30 }",
        );
        vec!["content/cases/syn-0002/index.md"]
    });
    only(&update, "cases/syn-0002/photo-1.");
    let update = edits.step("a photograph entry removed", |root| {
        let path = root.join("content/cases/syn-0002/index.md");
        let text = std::fs::read_to_string(&path).unwrap();
        let start = text.find("[[photos]]\nfile = \"photo-3.jpg\"").unwrap();
        let end = start + text[start..].find("\n+++").unwrap();
        std::fs::write(&path, format!("{}{}", &text[..start], &text[end..])).unwrap();
        vec!["content/cases/syn-0002/index.md"]
    });
    only(&update, "cases/syn-0002/photo-3.");
    // A hash pinned to an unchanged entry is checked as a build checks it.
    let page = edits.root.join("content/cases/syn-0002/index.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let pinned = text.replacen(
        "file = \"photo-1.jpg\"\n",
        &format!(
            "file = \"photo-1.jpg\"\nsource_sha256 = \"{}\"\n",
            "0".repeat(64)
        ),
        1,
    );
    std::fs::write(&page, &pinned).unwrap();
    match edits.session.build_all(std::slice::from_ref(&page)) {
        Err(e) => assert!(e.to_string().contains("source_sha256"), "{e}"),
        Ok(_) => panic!("a wrong pinned hash was accepted"),
    }
    std::fs::write(&page, &text).unwrap();
    edits
        .session
        .build_all(std::slice::from_ref(&page))
        .unwrap();
    // What serve derived is in the image cache's index (no full build saves it here): a
    // build derives nothing again.
    edit(
        &edits.root,
        "content/cases/syn-0002/index.md",
        "h = 0.30 }",
        "h = 0.33 }",
    );
    edits.session.build_all(&[page]).unwrap();
    let told = Arc::new(std::sync::Mutex::new(Vec::new()));
    let progress = {
        let told = told.clone();
        casebook::Progress(Arc::new(move |done, total| {
            told.lock().unwrap().push((done, total))
        }))
    };
    casebook::build(&casebook::BuildOptions {
        root: edits.root.clone(),
        output: Some(edits.root.join("built")),
        progress: Some(progress),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        *told.lock().unwrap(),
        [(0, 0)],
        "the build derived photographs"
    );
    drop(edits.site);
}

#[test]
fn an_edited_attachment_is_served_and_listed_in_the_manifest_anew() {
    let mut edits = Edits::new(SiteTest::fixture("minimal"));
    let update = edits.step("an attachment", |root| {
        std::fs::write(root.join("content/docs/bundle/notes.txt"), "new notes\n").unwrap();
        vec!["content/docs/bundle/notes.txt"]
    });
    assert!(
        update.changed.iter().any(|p| p.ends_with("notes.txt")),
        "{:?}",
        update.changed
    );
    assert!(update.changed.contains(&"manifest.json".to_string()));
}

#[test]
fn a_failed_rebuild_keeps_the_last_site_and_recovers() {
    let mut edits = Edits::new(SiteTest::fixture("search"));
    let before = snapshot(&edits.session);
    edit(
        &edits.root,
        "content/cases/syn-a.md",
        "detainee_number = 2761",
        "detainee_number = \"x\"",
    );
    let bad = edits.root.join("content/cases/syn-a.md");
    let err = edits
        .session
        .build(std::slice::from_ref(&bad))
        .unwrap_err()
        .to_string();
    assert!(err.contains("content/cases/syn-a.md:4"), "{err}");
    assert_eq!(
        snapshot(&edits.session),
        before,
        "a failed rebuild changed the site"
    );
    // An unrelated edit while the case is broken still fails: the broken file counts.
    let other = edits.root.join("content/methodology.md");
    std::fs::write(
        &other,
        std::fs::read_to_string(&other).unwrap() + "\nMore.\n",
    )
    .unwrap();
    assert!(edits.session.build(&[other]).is_err());
    edits.step("fixing the case", |root| {
        edit(
            root,
            "content/cases/syn-a.md",
            "detainee_number = \"x\"",
            "detainee_number = 2762",
        );
        vec!["content/cases/syn-a.md"]
    });
}

// ---- the server -----------------------------------------------------------------------

pub fn start(site: &SiteTest) -> Server {
    start_with(site, ServeOptions::default(), |_| {})
}

/// Starts the server on `site` (on a free port) with `options` and waits for its first
/// build to settle.
pub fn start_with(
    site: &SiteTest,
    options: ServeOptions,
    report: impl Fn(casebook::serve::Report) + Send + 'static,
) -> Server {
    let server = casebook::serve::start(
        &ServeOptions {
            root: site.root().to_path_buf(),
            port: 0,
            ..options
        },
        report,
    )
    .unwrap();
    assert!(server.first.is_ok(), "{:?}", server.first);
    assert!(server.wait_until_settled(Duration::from_secs(60)));
    server
}

#[test]
fn the_server_serves_the_site_and_reloads_pages_after_edits() {
    let site = SiteTest::fixture("search");
    let server = start(&site);
    let addr = server.addr;

    let home = request(addr, "GET", "/");
    assert_eq!(home.status, 200);
    assert_eq!(
        home.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    assert!(
        home.text()
            .contains("<script src=\"/__casebook/live.js\"></script></body>")
    );
    assert_eq!(
        home.header("access-control-allow-origin"),
        None,
        "no CORS header"
    );
    let head = request(addr, "HEAD", "/");
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(
        head.header("content-length"),
        Some(home.body.len().to_string().as_str())
    );
    for (path, kind) in [
        ("/casebook.css", "text/css; charset=utf-8"),
        ("/data/cases.json", "application/json; charset=utf-8"),
        ("/sitemap.xml", "text/xml; charset=utf-8"),
        ("/manifest.json", "application/json; charset=utf-8"),
    ] {
        let r = request(addr, "GET", path);
        assert_eq!(
            (r.status, r.header("content-type")),
            (200, Some(kind)),
            "{path}"
        );
    }
    assert!(request(addr, "GET", "/live.js").status == 404);
    let script = request(addr, "GET", "/__casebook/live.js");
    assert!(script.text().contains("EventSource"));
    // `base_url` has a sub-path (/archive/); the server serves the site at its root anyway.
    let case = request(addr, "GET", "/cases/syn-a/");
    assert_eq!(case.status, 200);
    assert!(case.text().contains("Marked emaciation"));
    let redirect = request(addr, "GET", "/cases/syn-a");
    assert_eq!(
        (redirect.status, redirect.header("location")),
        (308, Some("/cases/syn-a/"))
    );

    let mut events = Events::subscribe(addr);
    // An editor that writes to a temporary file and renames it over the original.
    let path = site.root().join("content/cases/syn-a.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let scratch = site.root().join("content/cases/.syn-a.md.tmp");
    std::fs::write(
        &scratch,
        text.replace("Marked emaciation", "Freshly edited emaciation"),
    )
    .unwrap();
    std::fs::rename(&scratch, &path).unwrap();
    events.next_naming("reload", "\"/cases/syn-a/\"");
    let case = request(addr, "GET", "/cases/syn-a/");
    assert!(case.text().contains("Freshly edited emaciation"));

    // An editor that truncates, then writes: one change, one rebuild, the final text.
    std::fs::write(&path, "").unwrap();
    std::fs::write(
        &path,
        text.replace("Marked emaciation", "Twice written emaciation"),
    )
    .unwrap();
    loop {
        let data = events.next("reload");
        if request(addr, "GET", "/cases/syn-a/")
            .text()
            .contains("Twice written emaciation")
        {
            break;
        }
        assert!(!data.is_empty());
    }
    // A source folder made after the start is watched too.
    std::fs::create_dir(site.root().join("templates")).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    std::fs::write(
        site.root().join("templates/404.html"),
        "<!doctype html><html lang=\"en\"><head><title>x</title></head><body><h1>Custom not found</h1></body></html>",
    )
    .unwrap();
    events.next_naming("reload", "/404.html");
    let missing = request(addr, "GET", "/nowhere/");
    assert_eq!(missing.status, 404);
    assert!(missing.text().contains("Custom not found"));

    assert!(!site.root().join("public").exists(), "serve wrote public/");
    server.stop();
}

#[test]
fn a_broken_file_shows_the_diagnostics_until_it_is_fixed() {
    let site = SiteTest::fixture("search");
    let server = start(&site);
    let addr = server.addr;
    let mut events = Events::subscribe(addr);
    let path = site.root().join("content/cases/syn-b.md");
    let good = std::fs::read_to_string(&path).unwrap();
    assert!(good.contains("photographed = "));
    std::fs::write(
        &path,
        good.replacen("photographed = ", "photographed = \"someday\" #", 1),
    )
    .unwrap();
    events.next("failed");
    for page in ["/cases/syn-b/", "/", "/no/such/page/"] {
        let overlay = request(addr, "GET", page);
        assert_eq!(overlay.status, 500, "{page}");
        let html = overlay.text();
        assert!(html.contains("The site did not build"), "{html}");
        assert!(html.contains("content/cases/syn-b.md:"), "{html}");
        assert!(html.contains("<code>photographed</code>"), "{html}");
        assert!(html.contains("/__casebook/live.js"));
    }
    assert_eq!(
        request(addr, "GET", "/casebook.css").status,
        200,
        "assets still load"
    );
    std::fs::write(&path, &good).unwrap();
    let data = events.next("reload");
    assert!(
        data.contains("\"all\":true"),
        "after a failure every page reloads: {data}"
    );
    let page = request(addr, "GET", "/cases/syn-b/");
    assert_eq!(page.status, 200);
    assert!(!page.text().contains("The site did not build"));
    server.stop();
}

#[test]
fn paths_outside_the_site_are_refused() {
    let site = SiteTest::fixture("search");
    // A secret beside the site, and a symlink in the content pointing at it.
    std::fs::write(site.root().join("secret.txt"), "do not serve").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        site.root().join("secret.txt"),
        site.root().join("content/leak.txt"),
    )
    .unwrap();
    let server = start(&site);
    let addr = server.addr;
    let not_found = request(addr, "GET", "/no-such-page/");
    assert_eq!(not_found.status, 404);
    assert!(not_found.text().contains("<h1>"), "the theme's 404 page");
    for path in [
        "/../secret.txt",
        "/../../../../etc/passwd",
        "/%2e%2e/secret.txt",
        "/%2E%2E/%2e%2e/etc/passwd",
        "/cases/..%2f..%2fsecret.txt",
        "/cases%2f..%2f..%2fsecret.txt",
        "/..%5csecret.txt",
        "//etc/passwd",
        "/casebook.toml",
        "/content/cases/syn-a.md",
        "/leak.txt",
        "/secret.txt",
        "/search/en/",
        "/cases/syn-a/../../../secret.txt",
    ] {
        let r = request(addr, "GET", path);
        assert_eq!(r.status, 404, "{path}");
        assert!(!r.text().contains("do not serve"), "{path}");
    }
    let absolute = request(addr, "GET", "http://localhost/../secret.txt");
    assert!(
        absolute.status == 404 || absolute.status == 400,
        "{}",
        absolute.status
    );
    assert_eq!(request(addr, "POST", "/").status, 405);
    server.stop();
}

#[test]
fn the_server_listens_on_loopback_only() {
    let site = SiteTest::fixture("search");
    let server = start(&site);
    assert!(server.addr.ip().is_loopback(), "{}", server.addr);
    // The machine's own address on its default route, if it has one: no packet is sent.
    let outward = std::net::UdpSocket::bind("0.0.0.0:0")
        .and_then(|s| s.connect("10.255.255.255:9").map(|_| s))
        .and_then(|s| s.local_addr())
        .map(|a| a.ip());
    if let Ok(ip) = outward {
        if !ip.is_loopback() && !ip.is_unspecified() {
            let reached = TcpStream::connect_timeout(
                &SocketAddr::new(ip, server.addr.port()),
                Duration::from_secs(2),
            );
            assert!(reached.is_err(), "the server answered on {ip}");
        }
    }
    server.stop();
}

/// Runs `casebook serve` and returns the child with the URL it printed.
pub fn spawn_serve(site: &SiteTest, extra: &[&str]) -> (std::process::Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_casebook"))
        .args(["serve", "--port", "0", "--root"])
        .arg(site.root())
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let url = line
        .strip_prefix("serving ")
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    child.stdout = Some(stdout.into_inner());
    (child, url)
}

pub fn interrupt_and_wait(mut child: std::process::Child) -> (i32, String, String) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "serve did not stop on Ctrl-C");
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_serve_command_prints_its_url_and_stops_cleanly_on_ctrl_c() {
    let site = SiteTest::fixture("search");
    let (child, url) = spawn_serve(&site, &[]);
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let addr: SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    assert_eq!(request(addr, "GET", "/").status, 200);
    let mut events = Events::subscribe(addr);
    // A failed rebuild is printed in the terminal too, located.
    let path = site.root().join("content/cases/syn-b.md");
    let good = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        good.replacen("photographed = ", "photographed = \"someday\" #", 1),
    )
    .unwrap();
    events.next("failed");
    let (code, stdout, stderr) = interrupt_and_wait(child);
    assert_eq!(code, 0, "stderr: {stderr}");
    assert!(stdout.contains("stopped serving"), "{stdout}");
    assert!(!stderr.contains("warning"), "{stderr}");
    assert!(
        stderr.contains("error: content/cases/syn-b.md:"),
        "{stderr}"
    );
    assert!(stderr.contains("photographed"), "{stderr}");
    assert!(
        stderr.contains("the browser shows it until the next good build"),
        "{stderr}"
    );
}

#[test]
fn binding_beyond_loopback_warns_about_unpublished_content() {
    let site = SiteTest::fixture("search");
    let (child, _url) = spawn_serve(&site, &["--bind", "0.0.0.0"]);
    let (code, _, stderr) = interrupt_and_wait(child);
    assert_eq!(code, 0);
    assert!(stderr.contains("warning: listening on 0.0.0.0"), "{stderr}");
    assert!(stderr.contains("unredacted"), "{stderr}");
}

#[test]
fn open_pages_reload_in_a_browser() {
    let Some(mut browser) =
        crate::support::browser::Browser::launch("open_pages_reload_in_a_browser")
    else {
        return;
    };
    let site = SiteTest::fixture("search");
    let server = start(&site);
    browser.goto(&format!("{}cases/syn-c/", server.url));
    // The page's event stream must be open before the edit.
    browser.wait_for("window.casebookLive === true");
    browser.eval("window.notReloaded = true");
    edit(
        site.root(),
        "content/cases/syn-c.md",
        "title = \"",
        "title = \"Reloaded ",
    );
    browser.wait_for("document.title.includes('Reloaded') && window.notReloaded === undefined");
    server.stop();
}

#[test]
fn a_missing_page_gets_the_not_found_page_of_its_language() {
    let site = SiteTest::fixture("i18n");
    let server = start(&site);
    let ar = request(server.addr, "GET", "/ar/no-such-page/");
    assert_eq!(ar.status, 404);
    assert!(ar.text().contains("lang=ar"), "{}", ar.text());
    let en = request(server.addr, "GET", "/no-such-page/");
    assert_eq!(en.status, 404);
    assert!(en.text().contains("lang=en"), "{}", en.text());
}
