//! The redaction workbench inside `casebook serve` (issue 42): served only on loopback,
//! every request that asks for pixels or changes anything carries the server's token, the
//! queue lists every photograph, and the preview is the published derivative.

use casebook::serve::ServeOptions;

use crate::serve::{start, start_with};
use crate::support::SiteTest;
use crate::support::http::{Response, raw_request, request_with};

const CASE: &str = "content/cases/c-001/index.md";

fn site() -> SiteTest {
    SiteTest::fixture("minimal")
        .copy_in("photos-real/gps/DSCN0021.jpg", "content/cases/c-001/a.jpg")
        .copy_in("photos-real/gps/DSCN0042.jpg", "content/cases/c-001/b.jpg")
        .photos(
            CASE,
            "[[photos]]\nfile = \"a.jpg\"\nalt = \"a\"\nredact = [ { x = 0.1, y = 0.1, w = 0.3, h = 0.2 } ]\n\n[[photos]]\nfile = \"b.jpg\"\nalt = \"b\"\nsensitivity = \"sensitive\"\n",
        )
}

fn token(addr: std::net::SocketAddr, editor: &str) -> String {
    let page = request_with(addr, "GET", editor, &[]).text();
    let at = page
        .find("casebook-token\" content=\"")
        .expect("the editor carries the token");
    page[at + 25..].split('"').next().unwrap().to_string()
}

fn post(addr: std::net::SocketAddr, path: &str, headers: &[(&str, &str)], body: &str) -> Response {
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head += &format!("{k}: {v}\r\n");
    }
    raw_request(addr, &format!("{head}\r\n{body}"))
}

#[test]
fn the_queue_lists_every_photograph_and_filters_them() {
    let site = site();
    let server = start(&site);
    let queue = request_with(server.addr, "GET", "/__casebook/photos/", &[]);
    assert_eq!(queue.status, 200);
    assert_eq!(queue.header("cache-control"), Some("no-store"));
    let text = queue.text();
    assert!(text.contains("0 of 2 reviewed"), "{text}");
    assert!(
        text.contains("/__casebook/photos/cases/c-001/a.jpg?"),
        "{text}"
    );
    assert!(
        text.contains("/__casebook/photos/cases/c-001/b.jpg?"),
        "{text}"
    );
    let graphic = request_with(
        server.addr,
        "GET",
        "/__casebook/photos/?sensitivity=sensitive",
        &[],
    )
    .text();
    assert!(
        graphic.contains("b.jpg") && !graphic.contains("a.jpg"),
        "{graphic}"
    );
    let editor = request_with(
        server.addr,
        "GET",
        "/__casebook/photos/cases/c-001/a.jpg",
        &[],
    );
    assert_eq!(editor.status, 200);
    assert!(
        editor.text().contains(
            "\"regions\":[{\"h\":0.2,\"method\":\"fill\",\"w\":0.3,\"x\":0.1,\"y\":0.1}]"
        ),
        "{}",
        editor.text()
    );
    assert!(
        editor.text().contains("rel=\"next\""),
        "the next photograph in the queue"
    );
    let missing = request_with(
        server.addr,
        "GET",
        "/__casebook/photos/cases/c-001/zzz.jpg",
        &[],
    );
    assert_eq!(missing.status, 404);
}

#[test]
fn pixels_need_the_token_and_the_preview_is_the_published_derivative() {
    let site = site();
    let server = start(&site);
    let addr = server.addr;
    let token = token(addr, "/__casebook/photos/cases/c-001/a.jpg");
    assert_eq!(token.len(), 48);
    let ask = r#"{"dir":"cases/c-001","file":"a.jpg","regions":[{"x":0.5,"y":0.5,"w":0.25,"h":0.25,"method":"fill"}],"width":400}"#;
    let json = ("Content-Type", "application/json");
    for (what, headers) in [
        ("no token", vec![json]),
        ("a wrong token", vec![json, ("X-Casebook-Token", "0000")]),
        (
            "a form post",
            vec![
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("X-Casebook-Token", token.as_str()),
            ],
        ),
        (
            "another site",
            vec![
                json,
                ("X-Casebook-Token", token.as_str()),
                ("Sec-Fetch-Site", "cross-site"),
            ],
        ),
        (
            "another origin",
            vec![
                json,
                ("X-Casebook-Token", token.as_str()),
                ("Origin", "http://evil.example"),
            ],
        ),
    ] {
        let r = post(addr, "/__casebook/preview", &headers, ask);
        assert_eq!(r.status, 403, "{what}: {}", r.text());
        assert!(!r.body.starts_with(&[0xFF, 0xD8]), "{what}: no pixels");
    }
    let r = post(
        addr,
        "/__casebook/preview",
        &[json, ("X-Casebook-Token", token.as_str())],
        ask,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("image/jpeg"));
    let shown = image::load_from_memory(&r.body).unwrap().to_rgb8();
    assert_eq!(shown.width(), 400);
    // Inside the region: the fill colour (black by default), within JPEG's tolerance.
    let (w, h) = shown.dimensions();
    for (x, y) in [
        (w * 5 / 8, h * 5 / 8),
        (w / 2 + 2, h / 2 + 2),
        (w * 3 / 4 - 3, h * 3 / 4 - 3),
    ] {
        let p = shown.get_pixel(x, y).0;
        assert!(p.iter().all(|&c| c < 12), "({x}, {y}): {p:?}");
    }
    // The same bytes `build` publishes at that width for those regions.
    let regions = "redact = [ { x = 0.1, y = 0.1, w = 0.3, h = 0.2 } ]";
    let edited = std::fs::read_to_string(site.root().join(CASE))
        .unwrap()
        .replace(
            regions,
            "redact = [ { x = 0.5, y = 0.5, w = 0.25, h = 0.25 } ]",
        );
    std::fs::write(site.root().join(CASE), edited).unwrap();
    site.build().success();
    let published = std::fs::read_dir(site.public().join("cases/c-001"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name().unwrap().to_string_lossy().starts_with("a.")
                && p.to_string_lossy().ends_with(".400.jpg")
        })
        .expect("the published 400-wide derivative");
    assert_eq!(
        std::fs::read(published).unwrap(),
        r.body,
        "the preview is the published derivative"
    );
    // The source, upright, for the editor: a JPEG of pixels alone, no metadata.
    let source = request_with(
        addr,
        "GET",
        "/__casebook/source/cases/c-001/a.jpg?w=320",
        &[],
    );
    assert_eq!(source.status, 200);
    assert_eq!(source.header("cache-control"), Some("no-store"));
    assert!(
        !source.body.windows(4).any(|w| w == b"Exif"),
        "no EXIF in what the editor shows"
    );
    assert_eq!(image::load_from_memory(&source.body).unwrap().width(), 320);
}

#[test]
fn the_workbench_and_the_sources_are_off_unless_serve_listens_on_loopback() {
    let site = site();
    let server = start_with(
        &site,
        ServeOptions {
            bind: std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
            ..ServeOptions::default()
        },
        |_| {},
    );
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], server.addr.port()));
    for path in [
        "/__casebook/photos/",
        "/__casebook/photos/cases/c-001/a.jpg",
        "/__casebook/source/cases/c-001/a.jpg",
    ] {
        let r = request_with(addr, "GET", path, &[]);
        assert_eq!(r.status, 404, "{path}");
        assert!(
            r.text()
                .contains("only when casebook serve listens on this machine alone"),
            "{path}"
        );
        assert!(!r.body.starts_with(&[0xFF, 0xD8]), "{path}");
    }
    // The preview itself still works.
    assert_eq!(request_with(addr, "GET", "/cases/c-001/", &[]).status, 200);
}

/// The fill colour's share of the preview's pixels inside `region` (fractions), read in the
/// page from the preview image as shown.
const FILLED: &str = "((x, y, w, h) => { const img = document.getElementById('wb-preview'); const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight; const g = c.getContext('2d'); g.drawImage(img, 0, 0); const x0 = Math.ceil(x * c.width) + 2, y0 = Math.ceil(y * c.height) + 2, x1 = Math.floor((x + w) * c.width) - 2, y1 = Math.floor((y + h) * c.height) - 2; const d = g.getImageData(x0, y0, x1 - x0, y1 - y0).data; let dark = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 16 && d[i + 1] < 16 && d[i + 2] < 16) dark++; return dark / (d.length / 4); })";

/// One photograph worked on as a person would: a region drawn with the mouse, one made and
/// placed with the keyboard alone, both announced, both in the published pixels beside
/// them; undo and redo; the same page in Arabic, right to left; at a phone's width; and
/// the queue and editor clean under axe in both colour schemes.
#[test]
fn browser_regions_drawn_by_mouse_and_keyboard_reach_the_published_pixels() {
    use crate::support::browser::Browser;
    let Some(mut b) =
        Browser::launch("browser_regions_drawn_by_mouse_and_keyboard_reach_the_published_pixels")
    else {
        return;
    };
    let site = site();
    let server = start(&site);
    let base = format!("http://{}", server.addr);
    b.goto(&format!("{base}/__casebook/photos/"));
    b.eval("document.querySelector('a[href*=\"b.jpg\"]').click()");
    b.wait_for("location.pathname.endsWith('/b.jpg') && document.getElementById('wb-source').complete && document.querySelector('.wb-overlay')");
    b.wait_for("document.getElementById('wb-preview').naturalWidth > 0");
    // Where the editor is: the second of two in the queue, none of the two reviewed.
    let counts = b.eval("document.getElementById('wb-counts').textContent");
    assert_eq!(
        counts, "Photograph 2 of 2 in this queue · 0 of 2 reviewed",
        "{counts}"
    );
    let stage = b.eval("(r => [r.left, r.top, r.width, r.height])(document.getElementById('wb-stage').getBoundingClientRect())");
    let n = |i: usize| stage[i].as_f64().unwrap();
    let at = |fx: f64, fy: f64| (n(0) + fx * n(2), n(1) + fy * n(3));
    // The mouse: a drag from (10 %, 10 %) to (40 %, 30 %).
    b.drag(at(0.1, 0.1), at(0.4, 0.3));
    b.wait_for("window.casebookWorkbench.regions().length === 1");
    b.wait_for("document.getElementById('wb-announce').textContent.includes('Region created')");
    let drawn = b.eval("window.casebookWorkbench.regions()[0]");
    let near =
        |v: &serde_json::Value, k: &str, want: f64| (v[k].as_f64().unwrap() - want).abs() < 0.02;
    assert!(
        near(&drawn, "x", 0.1)
            && near(&drawn, "y", 0.1)
            && near(&drawn, "w", 0.3)
            && near(&drawn, "h", 0.2),
        "{drawn}"
    );
    // The keyboard alone: focus the picture, N makes a region in the middle (40 %, 40 %,
    // 20 % square), Shift+Right moves it 5 %, Alt+Down makes it 1 % taller.
    b.eval("document.getElementById('wb-stage').focus()");
    b.press("n", 0);
    b.press("ArrowRight", 8);
    b.press("ArrowDown", 1);
    b.wait_for("window.casebookWorkbench.regions().length === 2");
    let keyed = b.eval("window.casebookWorkbench.regions()[1]");
    assert!(
        near(&keyed, "x", 0.45)
            && near(&keyed, "y", 0.4)
            && near(&keyed, "w", 0.2)
            && near(&keyed, "h", 0.21),
        "{keyed}"
    );
    b.wait_for("document.getElementById('wb-announce').textContent.includes('Region resized')");
    // The preview catches up with both regions, and shows them filled.
    b.wait_for("document.getElementById('wb-preview').dataset.regions === JSON.stringify(window.casebookWorkbench.regions())");
    b.wait_for("document.getElementById('wb-preview').complete");
    for r in [&drawn, &keyed] {
        let share = b.eval(&format!(
            "{FILLED}({}, {}, {}, {})",
            r["x"], r["y"], r["w"], r["h"]
        ));
        assert!(share.as_f64().unwrap() > 0.98, "{r}: {share}");
    }
    // Undo takes the keyboard's last step back; redo brings it again.
    b.press("z", 2);
    let undone = b.eval("window.casebookWorkbench.regions()[1].h");
    assert!((undone.as_f64().unwrap() - 0.2).abs() < 1e-6, "{undone}");
    b.press("z", 2 | 8);
    let redone = b.eval("window.casebookWorkbench.regions()[1].h");
    assert!((redone.as_f64().unwrap() - 0.21).abs() < 1e-6, "{redone}");
    // Undo and redo cover the fields too: the sensitivity, then a caption typed and left.
    b.eval("(s => { s.focus(); s.value = 'graphic'; s.dispatchEvent(new Event('change')); })(document.getElementById('wb-sensitivity'))");
    let caption = b.eval("document.querySelectorAll('.wb-fields textarea')[1].id");
    b.eval(&format!("document.getElementById({caption}).focus()"));
    b.type_text("Wall");
    b.eval("document.getElementById('wb-stage').focus()");
    let field =
        |b: &mut Browser, id: &str| b.eval(&format!("document.getElementById('{id}').value"));
    let caption_id = caption.as_str().unwrap().to_string();
    assert_eq!(field(&mut b, &caption_id), "Wall");
    b.press("z", 2);
    assert_eq!(field(&mut b, &caption_id), "");
    assert_eq!(field(&mut b, "wb-sensitivity"), "graphic");
    b.press("z", 2);
    assert_eq!(field(&mut b, "wb-sensitivity"), "sensitive");
    b.press("z", 2 | 8);
    assert_eq!(field(&mut b, "wb-sensitivity"), "graphic");
    b.press("z", 2);
    assert_eq!(field(&mut b, "wb-sensitivity"), "sensitive");
    let redone = b.eval("window.casebookWorkbench.regions()[1].h");
    assert!((redone.as_f64().unwrap() - 0.21).abs() < 1e-6, "{redone}");
    // The preview at a published width, on request: the derivative at its own pixels.
    let width = b.eval("document.getElementById('wb-width').options[1].value");
    b.eval("(s => { s.value = s.options[1].value; s.dispatchEvent(new Event('change')); })(document.getElementById('wb-width'))");
    b.wait_for(&format!("document.getElementById('wb-preview').dataset.width === {width} && document.getElementById('wb-preview').complete"));
    let shown = b.eval("document.getElementById('wb-preview').naturalWidth");
    let source_width = image::open(site.root().join("content/cases/c-001/b.jpg"))
        .unwrap()
        .width();
    let want: u32 = width.as_str().unwrap().parse().unwrap();
    assert_eq!(shown.as_u64().unwrap(), u64::from(want.min(source_width)));
    b.eval("(s => { s.value = ''; s.dispatchEvent(new Event('change')); })(document.getElementById('wb-width'))");
    // Saved and marked reviewed: the case file gains exactly the two regions and the review.
    let before = std::fs::read_to_string(site.root().join(CASE)).unwrap();
    let served_before = request_with(server.addr, "GET", "/cases/c-001/", &[]).text();
    let mut events = crate::support::http::Events::subscribe(server.addr);
    let reviewer = b.eval("document.querySelector('input[autocomplete=name]').id");
    b.eval(&format!("document.getElementById({reviewer}).focus()"));
    b.type_text("A. Reviewer");
    b.eval("document.getElementById('wb-review').click()");
    b.wait_for("document.getElementById('wb-status').textContent === 'Saved and marked reviewed'");
    let after = std::fs::read_to_string(site.root().join(CASE)).unwrap();
    let saved = b.eval("window.casebookWorkbench.regions()");
    let line = |r: &serde_json::Value| {
        format!(
            "  {{ x = {}, y = {}, w = {}, h = {} }},\n",
            r["x"], r["y"], r["w"], r["h"]
        )
    };
    let regions: String = saved.as_array().unwrap().iter().map(line).collect();
    let entry = "sensitivity = \"sensitive\"\n";
    let at = before.find(entry).unwrap() + entry.len();
    let added = &after[at..after.len() - (before.len() - at)];
    let today = chrono::Utc::now().date_naive();
    assert!(
        added.starts_with(&format!(
            "redact = [\n{regions}]\nreviewed = {{ by = \"A. Reviewer\", on = {today}, covers = \""
        )),
        "{added}"
    );
    assert_eq!(&after[..at], &before[..at]);
    assert_eq!(&after[after.len() - (before.len() - at)..], &before[at..]);
    // The preview's live reload names the case page, which now shows the new derivative.
    events.next_naming("reload", "/cases/c-001/");
    let served = request_with(server.addr, "GET", "/cases/c-001/", &[]).text();
    let b_images = |page: &str| -> Vec<String> {
        let mut names: Vec<String> = page
            .split(['"', ' ', ',', '/'])
            .filter(|s| s.starts_with("b.") && s.ends_with(".jpg") && !s.ends_with(".blur.jpg"))
            .map(str::to_string)
            .collect();
        names.sort();
        names.dedup();
        names
    };
    assert!(!b_images(&served).is_empty(), "{served}");
    assert_ne!(b_images(&served), b_images(&served_before));
    // Built: both regions are the fill colour in the published pixels; with review
    // required, b.jpg passes and a.jpg (not reviewed) is named.
    site.build().success();
    let published = std::fs::read_dir(site.public().join("cases/c-001"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            name.starts_with("b.") && name.ends_with(".jpg") && !name.ends_with(".blur.jpg")
        })
        .map(|p| {
            let img = image::open(&p).unwrap().to_rgb8();
            (p, img)
        })
        .max_by_key(|(_, img)| img.width())
        .expect("b.jpg's derivatives");
    // What the preview serves is what the build publishes.
    let name = published
        .0
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    assert!(b_images(&served).contains(&name), "{name}");
    let over_http = request_with(server.addr, "GET", &format!("/cases/c-001/{name}"), &[]);
    assert_eq!(over_http.body, std::fs::read(&published.0).unwrap());
    let published = published.1;
    let img = published;
    let (w, h) = (f64::from(img.width()), f64::from(img.height()));
    for r in saved.as_array().unwrap() {
        let f = |k: &str| r[k].as_f64().unwrap();
        let (x0, y0) = (
            (f("x") * w).ceil() as u32 + 2,
            (f("y") * h).ceil() as u32 + 2,
        );
        let (x1, y1) = (
            ((f("x") + f("w")) * w) as u32 - 2,
            ((f("y") + f("h")) * h) as u32 - 2,
        );
        for y in y0..y1 {
            for x in x0..x1 {
                let p = img.get_pixel(x, y).0;
                assert!(p.iter().all(|&c| c < 24), "({x}, {y}) in {r}: {p:?}");
            }
        }
    }
    let config = site.root().join("casebook.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}\n[images]\nrequire_review = true\n"),
    )
    .unwrap();
    let run = site.build();
    run.failure(1).stderr_has("a.jpg");
    assert!(!run.stderr.contains("b.jpg"), "{}", run.stderr);
    std::fs::write(&config, text).unwrap();
    // Delete removes the selected region.
    b.eval("document.getElementById('wb-stage').focus()");
    b.press("Delete", 0);
    b.wait_for("window.casebookWorkbench.regions().length === 1");
    // A save over a change made on disk meanwhile is refused, shows that change, and the
    // file keeps it.
    let elsewhere = format!(
        "{}\nA line written in another editor.\n",
        std::fs::read_to_string(site.root().join(CASE)).unwrap()
    );
    std::fs::write(site.root().join(CASE), &elsewhere).unwrap();
    b.eval("document.getElementById('wb-save').click()");
    b.wait_for("!document.getElementById('wb-conflict').hidden");
    let shown = b.eval("document.getElementById('wb-conflict').textContent");
    assert!(
        shown
            .as_str()
            .unwrap()
            .contains("+ A line written in another editor."),
        "{shown}"
    );
    assert!(
        b.eval("document.getElementById('wb-status').textContent")
            .as_str()
            .unwrap()
            .contains("changed on disk")
    );
    assert_eq!(
        std::fs::read_to_string(site.root().join(CASE)).unwrap(),
        elsewhere
    );
    // In Arabic: right to left, its own words; Right moves a region left on screen.
    drop(server);
    let site = SiteTest::fixture("i18n")
        .copy_in("photos-real/gps/DSCN0021.jpg", "content/cases/c-1/a.jpg")
        .photos(
            "content/cases/c-1/index.md",
            "[[photos]]\nfile = \"a.jpg\"\nalt = \"a\"\n",
        );
    let server = start(&site);
    let base = format!("http://{}", server.addr);
    b.goto(&format!("{base}/__casebook/photos/cases/c-1/a.jpg?lang=ar"));
    b.wait_for("document.querySelector('.wb-overlay')");
    assert_eq!(b.eval("document.documentElement.dir"), "rtl");
    assert_eq!(
        b.eval("document.querySelector('#wb-tools button').textContent"),
        "أضف منطقة"
    );
    // At a phone's width nothing scrolls sideways.
    crate::visitors::screen_width(&mut b, 375);
    for page in [
        "/__casebook/photos/",
        "/__casebook/photos/cases/c-1/a.jpg?lang=ar",
    ] {
        b.goto(&format!("{base}{page}"));
        let wide = b.eval("document.documentElement.scrollWidth <= innerWidth");
        assert_eq!(wide, true, "{page} scrolls sideways at 375 px");
    }
    crate::visitors::screen_width(&mut b, 1100);
    if let Some(axe) = crate::visitors::axe_source() {
        let mut failures = Vec::new();
        for scheme in ["light", "dark"] {
            b.call(
                "Emulation.setEmulatedMedia",
                serde_json::json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}),
            );
            for page in [
                "/__casebook/photos/",
                "/__casebook/photos/cases/c-1/a.jpg",
                "/__casebook/photos/?lang=ar",
                "/__casebook/photos/cases/c-1/a.jpg?lang=ar",
            ] {
                b.goto(&format!("{base}{page}"));
                b.eval(&axe);
                let found = b.eval(
                    "axe.run(document).then(r => r.violations.filter(v => ['moderate', 'serious', 'critical'].includes(v.impact)).map(v => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`))",
                );
                for v in found.as_array().unwrap() {
                    failures.push(format!("{scheme} {page}: {}", v.as_str().unwrap()));
                }
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A save writes the entry's keys and nothing else; a save over a file changed on disk
/// since the editor opened it is refused, and the file keeps the other change.
#[test]
fn a_save_changes_only_its_keys_and_never_overwrites_a_change_made_on_disk() {
    let site = site();
    let server = start(&site);
    let addr = server.addr;
    let token = token(addr, "/__casebook/photos/cases/c-001/b.jpg");
    let path = site.root().join(CASE);
    let before = std::fs::read_to_string(&path).unwrap();
    let json = ("Content-Type", "application/json");
    let save = |sha: &str, extra: &str| {
        let body = format!(
            r#"{{"dir":"cases/c-001","file":"b.jpg","sha256":"{sha}","regions":[{{"x":0.25,"y":0.5,"w":0.5,"h":0.25,"method":"fill"}}]{extra}}}"#
        );
        post(
            addr,
            "/__casebook/save",
            &[json, ("X-Casebook-Token", token.as_str())],
            &body,
        )
    };
    // Without the token: refused, nothing written.
    let body = format!(
        r#"{{"dir":"cases/c-001","file":"b.jpg","sha256":"{}","regions":[]}}"#,
        sha256(before.as_bytes())
    );
    assert_eq!(post(addr, "/__casebook/save", &[json], &body).status, 403);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    let r = save(&sha256(before.as_bytes()), r#","review_by":"A. Reviewer""#);
    assert_eq!(r.status, 200, "{}", r.text());
    let after = std::fs::read_to_string(&path).unwrap();
    let entry = "file = \"b.jpg\"\nalt = \"b\"\nsensitivity = \"sensitive\"\n";
    let at = after.find(entry).unwrap() + entry.len();
    assert_eq!(
        &after[..at],
        &before[..at],
        "nothing before the entry's new keys changed"
    );
    let tail = &before[at..];
    assert!(after.ends_with(tail), "nothing after them changed");
    let added = &after[at..after.len() - tail.len()];
    assert!(added.starts_with("redact = [\n  { x = 0.25, y = 0.5, w = 0.5, h = 0.25 },\n]\nreviewed = { by = \"A. Reviewer\", on = "), "{added}");
    // A change made on disk meanwhile: the next save (over the old hash) is refused.
    let changed = after.replace("alt = \"b\"", "alt = \"b, described by a colleague\"");
    std::fs::write(&path, &changed).unwrap();
    let r = save(&sha256(after.as_bytes()), "");
    assert_eq!(r.status, 409, "{}", r.text());
    assert!(r.text().contains("changed on disk"), "{}", r.text());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        changed,
        "the other change is kept"
    );
    // The build reads the review: it covers the photograph as saved.
    let config = site.root().join("casebook.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}\n[images]\nrequire_review = true\n"),
    )
    .unwrap();
    let run = site.build();
    run.failure(1).stderr_has("a.jpg");
    assert!(
        !run.stderr.contains("b.jpg"),
        "b.jpg is reviewed: {}",
        run.stderr
    );
}

/// A page of another site (and one reached by a name that now points at this machine)
/// reads no source pixels and changes no file, with or without the token.
#[test]
fn browser_a_page_of_another_site_reads_no_source_and_saves_nothing() {
    use crate::support::browser::Browser;
    let Some(mut b) = Browser::launch_with(
        "browser_a_page_of_another_site_reads_no_source_and_saves_nothing",
        &["--host-resolver-rules=MAP evil.test 127.0.0.1"],
    ) else {
        return;
    };
    let site = site();
    let server = start(&site);
    let port = server.addr.port();
    let before = std::fs::read(site.root().join(CASE)).unwrap();
    let sha = sha256(&before);
    let attacker = tempfile::tempdir().unwrap();
    let target = format!("http://127.0.0.1:{port}");
    let save = format!(r#"{{"dir":"cases/c-001","file":"a.jpg","sha256":"{sha}","regions":[]}}"#);
    std::fs::write(
        attacker.path().join("index.html"),
        format!(
            "<!doctype html><title>x</title><img id=\"i\" src=\"{target}/__casebook/source/cases/c-001/a.jpg?w=300\">\
<form id=\"f\" method=\"post\" action=\"{target}/__casebook/save\" enctype=\"text/plain\"><input name='{save}' value=''></form>"
        ),
    )
    .unwrap();
    let evil = crate::support::browser::serve(attacker.path()).replace("127.0.0.1", "evil.test");
    b.goto(&evil);
    b.wait_for("document.getElementById('i').complete");
    assert_eq!(
        b.eval("document.getElementById('i').naturalWidth"),
        0,
        "the source loaded in another site's page"
    );
    let reads = b.eval(&format!(
        "Promise.all([\
           fetch('{target}/__casebook/source/cases/c-001/a.jpg').then(r => r.status, () => 'blocked'),\
           fetch('{target}/__casebook/source/cases/c-001/a.jpg', {{mode: 'no-cors'}}).then(r => r.type, () => 'blocked'),\
           fetch('{target}/__casebook/save', {{method: 'POST', mode: 'no-cors', headers: {{'Content-Type': 'text/plain'}}, body: '{save}'}}).then(r => r.type, () => 'blocked'),\
           fetch('{target}/__casebook/save', {{method: 'POST', headers: {{'Content-Type': 'application/json', 'X-Casebook-Token': 'guess'}}, body: '{save}'}}).then(r => r.status, () => 'blocked'),\
         ])"
    ));
    assert_eq!(
        reads,
        serde_json::json!(["blocked", "opaque", "opaque", "blocked"]),
        "{reads}"
    );
    // A form posted across sites, as a navigation.
    b.eval("document.getElementById('f').submit()");
    b.wait_for("location.href.includes('/__casebook/save')");
    let shown = b.eval("document.body.innerText");
    assert!(!shown.as_str().unwrap().contains("saved"), "{shown}");
    // The same workbench reached by another name (DNS rebinding): refused.
    b.goto(&format!(
        "http://evil.test:{port}/__casebook/photos/cases/c-001/a.jpg"
    ));
    let page = b.eval("document.documentElement.outerHTML");
    assert!(
        !page.as_str().unwrap().contains("casebook-token"),
        "the token leaked"
    );
    let status = b.eval("fetch('/__casebook/source/cases/c-001/a.jpg').then(r => r.status)");
    assert_eq!(status, 403);
    assert_eq!(
        std::fs::read(site.root().join(CASE)).unwrap(),
        before,
        "the case file changed"
    );
}

#[test]
fn the_queue_lists_every_photograph_the_build_counts_in_every_language() {
    // The bundled site: each case's translation gives only alt text and captions, but the
    // Arabic methodology page writes its photograph's entry in full, regions and all: a
    // photograph of its own, which `check` counts and the queue must list.
    let site = crate::support::bundled();
    let run = site.run(&["check"]);
    run.success();
    let out = format!("{}{}", run.stdout, run.stderr);
    let total: usize = out
        .split(" of ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    let server = start(&site);
    let queue = request_with(server.addr, "GET", "/__casebook/photos/", &[]).text();
    assert!(
        queue.contains(&format!("id=\"wb-count\">{total} of {total} reviewed")),
        "{total}: {queue}"
    );
    assert!(queue.contains("/__casebook/photos/ar/methodology/methodology-redaction-example.jpg"));
}

/// A save tells the builder itself what it wrote, so the case page does not wait for the
/// watcher; the watcher's report of the same write, a moment later, rebuilds nothing more.
#[test]
fn a_save_is_rebuilt_once() {
    let site = site();
    let rebuilds = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = rebuilds.clone();
    let server = start_with(&site, ServeOptions::default(), move |report| {
        if let casebook::serve::Report::Rebuilt(_) = report {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    });
    let addr = server.addr;
    let token = token(addr, "/__casebook/photos/cases/c-001/a.jpg");
    let before = std::fs::read(site.root().join(CASE)).unwrap();
    let body = format!(
        r#"{{"dir":"cases/c-001","file":"a.jpg","sha256":"{}","regions":[{{"x":0.2,"y":0.2,"w":0.3,"h":0.3,"method":"fill"}}]}}"#,
        sha256(&before)
    );
    let json = ("Content-Type", "application/json");
    let r = post(
        addr,
        "/__casebook/save",
        &[json, ("X-Casebook-Token", token.as_str())],
        &body,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // Well past the watcher's debounce, and settled twice over.
    for _ in 0..2 {
        std::thread::sleep(std::time::Duration::from_millis(600));
        assert!(server.wait_until_settled(std::time::Duration::from_secs(60)));
    }
    assert_eq!(rebuilds.load(std::sync::atomic::Ordering::SeqCst), 1);
    let editor = request_with(addr, "GET", "/__casebook/photos/cases/c-001/a.jpg", &[]).text();
    assert!(
        editor.contains("\"x\":0.2"),
        "the editor shows the saved region"
    );
}

/// A save starts deriving its photograph while the rebuild loads the content; what the
/// preview then serves is byte for byte what a build with no cache at all publishes.
#[test]
fn a_saved_photograph_is_served_as_a_build_from_nothing_publishes_it() {
    let site = site();
    let server = start_with(&site, ServeOptions::default(), |_| {});
    let addr = server.addr;
    let token = token(addr, "/__casebook/photos/cases/c-001/a.jpg");
    let derivatives = |page: &str| -> Vec<String> {
        let mut names: Vec<String> = page
            .split(['"', ' ', ',', '/'])
            .filter(|w| w.starts_with("a.") && w.ends_with(".jpg"))
            .map(str::to_string)
            .collect();
        names.sort();
        names.dedup();
        names
    };
    let before = derivatives(&request_with(addr, "GET", "/cases/c-001/", &[]).text());
    assert!(!before.is_empty());
    let body = format!(
        r#"{{"dir":"cases/c-001","file":"a.jpg","sha256":"{}","regions":[{{"x":0.123456,"y":0.25,"w":0.3,"h":0.35,"method":"pixelate"}},{{"x":0.6,"y":0.5,"w":0.2,"h":0.2,"method":"fill"}}]}}"#,
        sha256(&std::fs::read(site.root().join(CASE)).unwrap())
    );
    let json = ("Content-Type", "application/json");
    let r = post(
        addr,
        "/__casebook/save",
        &[json, ("X-Casebook-Token", token.as_str())],
        &body,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(server.wait_until_settled(std::time::Duration::from_secs(60)));
    let after = derivatives(&request_with(addr, "GET", "/cases/c-001/", &[]).text());
    assert!(!after.is_empty());
    assert_ne!(after, before, "the case page shows the new derivatives");
    let served: Vec<(String, Vec<u8>)> = after
        .iter()
        .map(|name| {
            let r = request_with(addr, "GET", &format!("/cases/c-001/{name}"), &[]);
            assert_eq!(r.status, 200, "{name}");
            (name.clone(), r.body)
        })
        .collect();
    drop(server);
    std::fs::remove_dir_all(site.root().join(".casebook-cache")).unwrap();
    site.build().success();
    for (name, bytes) in served {
        let built = std::fs::read(site.public().join("cases/c-001").join(&name))
            .unwrap_or_else(|e| panic!("{name} is not published by the build: {e}"));
        assert!(built == bytes, "{name} differs from the build's");
    }
}
