//! What visitors meet on a phone, with the keyboard, in the dark scheme and without
//! JavaScript (issue 30), in Chromium over the bundled site.

use serde_json::json;

use crate::support::browser::{Browser, serve};
use crate::support::bundled;

/// WCAG contrast ratio of two computed `rgb(...)` colours, in the page.
const CONTRAST: &str = r#"
window.contrast = (a, b) => {
  const lum = (c) => {
    const [r, g, b] = c.match(/[\d.]+/g).slice(0, 3).map((v) => {
      v = v / 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [x, y] = [lum(a), lum(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
};
"#;

/// The bundled site, built and served over HTTP; the site is kept for as long as it is served.
fn bundled_served() -> (crate::support::SiteTest, String) {
    let site = bundled();
    site.build().success();
    let base = serve(&site.public());
    (site, base)
}

/// A screen `width` CSS pixels wide (a phone at 375, the reflow criterion at 320), as a
/// desktop browser narrowed: the layout viewport stays that wide whatever the content.
pub(crate) fn screen_width(b: &mut Browser, width: u32) {
    b.call(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": width, "height": 2 * width, "deviceScaleFactor": 1, "mobile": false}),
    );
}

#[test]
fn browser_phone_keyboard_dark_and_no_script_defects_stay_fixed() {
    let Some(mut b) =
        Browser::launch("browser_phone_keyboard_dark_and_no_script_defects_stay_fixed")
    else {
        return;
    };
    let (_site, base) = bundled_served();

    // A phone: long bare URLs on the sources page wrap instead of widening it.
    screen_width(&mut b, 375);
    b.goto(&format!("{base}sources/"));
    b.wait_for("document.readyState === 'complete'");
    let widths = b.eval("[document.documentElement.scrollWidth, window.innerWidth]");
    assert!(
        widths[0].as_u64() <= widths[1].as_u64(),
        "/sources/ at 375 px: {widths}"
    );

    // The site has an icon of its own (no 404 for /favicon.ico in every console).
    b.goto(&format!("{base}cases/syn-0001/"));
    b.wait_for("document.readyState === 'complete'");
    let icon = b.eval("fetch(document.querySelector('link[rel=icon]').href).then(r => r.status)");
    assert_eq!(icon, 200);

    // The graphic-photo gate shows its focus ring: drawn inside the clipping <details>.
    b.eval("document.querySelector('details.reveal summary').focus()");
    let ring = b.eval(
        "(s => [getComputedStyle(s).outlineStyle, parseFloat(getComputedStyle(s).outlineOffset), s.matches(':focus-visible')])(document.querySelector('details.reveal summary'))",
    );
    assert_eq!(ring[0], "solid", "{ring}");
    assert!(
        ring[1].as_f64().unwrap() < 0.0,
        "outline drawn outside and clipped: {ring}"
    );
    assert_eq!(ring[2], true);

    // Dark scheme: search highlights keep AA contrast with the link and muted text in them.
    b.call(
        "Emulation.setEmulatedMedia",
        json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
    );
    b.goto(&format!("{base}search/?q=starvation"));
    b.wait_for("document.querySelectorAll('#search-results mark').length > 0");
    b.eval(CONTRAST);
    let worst = b.eval(
        "Math.min(...Array.from(document.querySelectorAll('#search-results mark')).map(m => contrast(getComputedStyle(m).color, getComputedStyle(m).backgroundColor)))",
    );
    assert!(
        worst.as_f64().unwrap() >= 4.5,
        "dark highlight contrast {worst}"
    );
    // Result thumbnails hold a fixed box before their image arrives (no layout shift).
    let thumbs = b.eval(
        "Array.from(document.querySelectorAll('#search-results img')).map(i => [i.getAttribute('width'), i.getAttribute('height')])",
    );
    assert!(!thumbs.as_array().unwrap().is_empty());
    for t in thumbs.as_array().unwrap() {
        assert_eq!(t, &json!(["48", "48"]), "{thumbs}");
    }

    // Without JavaScript no control that needs it shows (the theme's display rules no
    // longer override `hidden`).
    b.call(
        "Emulation.setScriptExecutionDisabled",
        json!({"value": true}),
    );
    b.goto(&format!("{base}search/"));
    b.wait_for("document.readyState === 'complete'");
    let sort = b.eval("getComputedStyle(document.querySelector('.search-sort')).display");
    assert_eq!(sort, "none");
}

#[test]
fn browser_wide_tables_and_code_scroll_in_a_focusable_box_and_need_no_inline_style() {
    let Some(mut b) = Browser::launch(
        "browser_wide_tables_and_code_scroll_in_a_focusable_box_and_need_no_inline_style",
    ) else {
        return;
    };
    let (_site, base) = bundled_served();
    screen_width(&mut b, 375);
    for page in [
        "about/",
        "figures/",
        "verify/",
        "ar/about/",
        "ar/figures/",
        "ar/verify/",
    ] {
        b.goto(&format!("{base}{page}"));
        b.wait_for("document.readyState === 'complete'");
        let widths = b.eval("[document.documentElement.scrollWidth, window.innerWidth]");
        assert!(
            widths[0].as_u64() <= widths[1].as_u64(),
            "/{page} at 375 px: {widths}"
        );
        // Every box that scrolls can be reached with the keyboard.
        let unreachable = b.eval(
            "Array.from(document.querySelectorAll('main *')).filter(e => e.scrollWidth > e.clientWidth + 1 && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.tabIndex < 0 && !e.querySelector('a, button, input, select, textarea, [tabindex]')).map(e => e.outerHTML.slice(0, 80))",
        );
        assert_eq!(unreachable, json!([]), "/{page}");
        // No inline style: the recommended CSP has no 'unsafe-inline'.
        assert_eq!(
            b.eval("document.querySelectorAll('main [style]').length"),
            0,
            "/{page}"
        );
    }
}

/// A portable copy cannot check a case against the manifest from disk: the verify page's
/// form stays hidden there (the theme no longer overrides `hidden`).
#[test]
fn browser_the_verify_form_stays_hidden_in_a_portable_copy() {
    let Some(mut b) = Browser::launch("browser_the_verify_form_stays_hidden_in_a_portable_copy")
    else {
        return;
    };
    let site = bundled();
    // With the proofs the form exists (an unsigned build without them has none at all).
    site.run(&["build", "--portable", "--proofs"]).success();
    let page = site.public().join("verify/index.html");
    b.goto(&format!("file://{}", page.display()));
    b.wait_for("document.readyState === 'complete'");
    assert_eq!(
        b.eval("getComputedStyle(document.getElementById('verify-form')).display"),
        "none"
    );
}

/// Printed, a case is a record sheet: the graphic photographs the reader opened print (whole,
/// without the switch), the others are counted in one line, and the synthetic badge does not
/// rely on a background printers drop.
#[test]
fn browser_a_printed_case_keeps_opened_photos_counts_the_rest_and_marks_synthetic() {
    let Some(mut b) = Browser::launch(
        "browser_a_printed_case_keeps_opened_photos_counts_the_rest_and_marks_synthetic",
    ) else {
        return;
    };
    let (_site, base) = bundled_served();
    b.goto(&format!("{base}cases/syn-0001/"));
    b.wait_for("document.readyState === 'complete'");
    let graphic = b
        .eval("document.querySelectorAll('.photo-graphic').length")
        .as_u64()
        .unwrap();
    assert!(graphic >= 1);
    b.call("Emulation.setEmulatedMedia", json!({"media": "print"}));
    let shown = "Array.from(document.querySelectorAll('.photo-graphic')).filter(f => getComputedStyle(f).visibility === 'visible' && f.getBoundingClientRect().height > 0).length";
    let line = "getComputedStyle(document.querySelector('.photos'), '::after').content";
    assert_eq!(b.eval(shown), 0);
    let text = b.eval(line).as_str().unwrap().to_string();
    assert!(text.contains("left out of this printout"), "{text}");
    // The reader opens one: it prints, and the line counts one fewer (or goes).
    b.eval("document.querySelector('.photo-graphic details').open = true");
    assert_eq!(b.eval(shown), 1);
    if graphic == 1 {
        assert_eq!(b.eval(line), "none");
    }
    // Without its switch, and whole on one page rather than split across two.
    let opened = "(d => [getComputedStyle(d.querySelector('.reveal-label')).display, getComputedStyle(d.closest('.photo')).breakInside])(document.querySelector('.photo-graphic details'))";
    assert_eq!(b.eval(opened), json!(["none", "avoid"]));
    // On screen, the open switch offers to hide the photograph again.
    b.call("Emulation.setEmulatedMedia", json!({"media": "screen"}));
    assert_eq!(
        b.eval("document.querySelector('.photo-graphic details summary').innerText.trim()"),
        "Hide image"
    );
    b.eval("document.querySelector('.photo-graphic details').open = false");
    assert_eq!(
        b.eval("document.querySelector('.photo-graphic details summary').innerText.trim()"),
        "Show image"
    );
    b.call("Emulation.setEmulatedMedia", json!({"media": "print"}));
    let badge = b.eval(
        "(s => [s.color, s.backgroundColor, parseFloat(s.borderTopWidth)])(getComputedStyle(document.querySelector('.badge-synthetic')))",
    );
    assert_eq!(badge[0], "rgb(0, 0, 0)", "{badge}");
    assert!(badge[2].as_f64().unwrap() >= 1.0, "{badge}");
}

/// On a phone the header takes two rows (title and search; navigation scrolling sideways in
/// its own row, and the languages), so the content starts within about 120 px.
#[test]
fn browser_on_a_phone_the_header_leaves_the_content_in_view() {
    let Some(mut b) = Browser::launch("browser_on_a_phone_the_header_leaves_the_content_in_view")
    else {
        return;
    };
    let (_site, base) = bundled_served();
    screen_width(&mut b, 375);
    for page in [
        "",
        "ar/",
        "cases/syn-0001/",
        "ar/cases/syn-0001/",
        "search/",
    ] {
        b.goto(&format!("{base}{page}"));
        b.wait_for("document.readyState === 'complete'");
        let top = b.eval("document.querySelector('main').getBoundingClientRect().top");
        assert!(
            top.as_f64().unwrap() <= 125.0,
            "/{page}: content starts at {top} px"
        );
        // The navigation is one row, scrolling sideways inside itself, not the page.
        let rows = b.eval(
            "new Set(Array.from(document.querySelectorAll('.site-nav a')).map(a => Math.round(a.getBoundingClientRect().top))).size",
        );
        assert_eq!(rows, 1, "/{page}");
        let widths = b.eval("[document.documentElement.scrollWidth, window.innerWidth]");
        assert!(
            widths[0].as_u64() <= widths[1].as_u64(),
            "/{page}: {widths}"
        );
    }
}

/// axe-core's browser script: `CASEBOOK_AXE`, or `target/axe/node_modules/axe-core/axe.min.js`
/// (`npm install --prefix target/axe axe-core@4.14`, which `.ci/run` does). Without it the
/// sweep says how to get it and passes, except under CI.
pub(crate) fn axe_source() -> Option<String> {
    let path = std::env::var_os("CASEBOOK_AXE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            crate::support::repo_root().join("target/axe/node_modules/axe-core/axe.min.js")
        });
    match std::fs::read_to_string(&path) {
        Ok(source) => Some(source),
        Err(_) if std::env::var_os("CI").is_some() => {
            panic!(
                "axe-core not found at {}: npm install --prefix target/axe axe-core@4.14",
                path.display()
            )
        }
        Err(_) => {
            eprintln!(
                "accessibility sweep skipped: axe-core not found at {} (npm install --prefix target/axe axe-core@4.14, or set CASEBOOK_AXE to axe.min.js)",
                path.display()
            );
            None
        }
    }
}

/// Every page of the bundled site and of the `i18n` and `charts` fixtures, in the light and
/// the dark scheme: no axe-core violation of moderate impact or worse; and at 320 px wide,
/// none scrolls sideways.
#[test]
fn browser_every_page_passes_axe_in_light_and_dark() {
    let Some(axe) = axe_source() else {
        return;
    };
    let Some(mut b) = Browser::launch("browser_every_page_passes_axe_in_light_and_dark") else {
        return;
    };
    // Injected into every page as it loads.
    b.call("Page.enable", json!({}));
    b.call(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({ "source": axe }),
    );
    let mut failures = Vec::new();
    let mut checked = 0;
    let sites = swept_sites();
    for site in &sites {
        site.build().success();
        let base = serve(&site.public());
        let pages = html_pages(site);
        for scheme in ["light", "dark"] {
            b.call(
                "Emulation.setEmulatedMedia",
                json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}),
            );
            for page in &pages {
                b.goto(&format!("{base}{page}"));
                let found = b.eval(
                    "axe.run(document).then(r => r.violations.filter(v => ['moderate', 'serious', 'critical'].includes(v.impact)).map(v => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`))",
                );
                checked += 1;
                for v in found.as_array().unwrap() {
                    failures.push(format!("{scheme} /{page}: {}", v.as_str().unwrap()));
                }
            }
        }
        // Reflow (WCAG 1.4.10): at 320 CSS pixels no page scrolls sideways.
        screen_width(&mut b, 320);
        for page in &pages {
            b.goto(&format!("{base}{page}"));
            let widths = b.eval("[document.documentElement.scrollWidth, window.innerWidth]");
            if widths[0].as_u64() > widths[1].as_u64() {
                failures.push(format!("320 px /{page}: {widths} wide"));
            }
        }
        b.call("Emulation.clearDeviceMetricsOverride", json!({}));
    }
    assert!(checked > 300, "only {checked} pages checked");
    assert!(
        failures.is_empty(),
        "{} violations:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The sites the sweeps go over: the bundled site and the `i18n` and `charts` fixtures.
fn swept_sites() -> [crate::support::SiteTest; 3] {
    [
        bundled(),
        crate::support::SiteTest::fixture("i18n"),
        crate::support::SiteTest::fixture("charts"),
    ]
}

/// Every HTML page of a built site, relative to its output folder, sorted.
fn html_pages(site: &crate::support::SiteTest) -> Vec<String> {
    let mut pages: Vec<String> = walkdir::WalkDir::new(site.public())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .map(|e| {
            let rel = e.path().strip_prefix(site.public()).unwrap();
            rel.to_string_lossy().replace('\\', "/")
        })
        .collect();
    pages.sort();
    pages
}

/// The policy docs/deploying.md recommends, with the other headers it lists.
const RECOMMENDED_HEADERS: &str = "Content-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'\r\nReferrer-Policy: no-referrer\r\nX-Content-Type-Options: nosniff\r\n";

/// Every page of the bundled site and the `i18n` and `charts` fixtures, served with the
/// recommended Content-Security-Policy: no violation, on load nor when the visitor searches or
/// opens every graphic photograph. Then with JavaScript off: no visible control that needs it
/// (a button that is not a form's, a field outside a form, a link to `#`).
#[test]
fn browser_every_page_keeps_the_recommended_policy_and_shows_no_dead_control_without_javascript() {
    let Some(mut b) = Browser::launch(
        "browser_every_page_keeps_the_recommended_policy_and_shows_no_dead_control_without_javascript",
    ) else {
        return;
    };
    b.call(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({ "source": "window.violations = []; document.addEventListener('securitypolicyviolation', e => window.violations.push(`${e.violatedDirective} ${e.blockedURI || 'inline'} ${e.sourceFile}:${e.lineNumber}`));" }),
    );
    // After two frames, what the page has done on load is done.
    const SETTLED: &str = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(window.violations))))";
    let dead_controls = r##"[...document.querySelectorAll('button, select, input, textarea, [role=button], a[href="#"], a[href^="javascript:"]')]
        .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden' && e.type !== 'hidden')
        .filter(e => e.matches('a') || !e.form || (e.matches('button') && e.type !== 'submit'))
        .map(e => e.outerHTML.slice(0, 100))"##;
    let mut failures = Vec::new();
    let mut checked = 0;
    let sites = swept_sites();
    for site in &sites {
        site.build().success();
        let (base, _) =
            crate::support::browser::serve_with_headers(&site.public(), RECOMMENDED_HEADERS);
        let pages = html_pages(site);
        for page in &pages {
            b.goto(&format!("{base}{page}"));
            let mut found = b.eval(SETTLED);
            if b.eval("document.querySelectorAll('details.reveal').length > 0") == true {
                b.eval("document.querySelectorAll('details.reveal').forEach(d => d.open = true)");
                found = b.eval(SETTLED);
            }
            checked += 1;
            for v in found.as_array().unwrap() {
                failures.push(format!("policy /{page}: {}", v.as_str().unwrap()));
            }
        }
        if site.public().join("search/index.html").exists() {
            b.goto(&format!("{base}search/?q=starvation"));
            b.wait_for("document.getElementById('search-status').textContent");
            for v in b.eval(SETTLED).as_array().unwrap() {
                failures.push(format!(
                    "policy /search/?q=starvation: {}",
                    v.as_str().unwrap()
                ));
            }
        }
        b.call(
            "Emulation.setScriptExecutionDisabled",
            json!({ "value": true }),
        );
        for page in &pages {
            b.goto(&format!("{base}{page}"));
            for control in b.eval(dead_controls).as_array().unwrap() {
                failures.push(format!("no script /{page}: {}", control.as_str().unwrap()));
            }
        }
        b.call(
            "Emulation.setScriptExecutionDisabled",
            json!({ "value": false }),
        );
    }
    assert!(checked > 150, "only {checked} pages checked");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A keyboard user tabs through a case page (English and Arabic), the search page with
/// results and the verify page: at every stop the focus can be seen, the focused element's
/// box looking different from the same box unfocused.
#[test]
fn browser_every_tab_stop_shows_where_the_focus_is() {
    let Some(mut b) = Browser::launch("browser_every_tab_stop_shows_where_the_focus_is") else {
        return;
    };
    let (_site, base) = bundled_served();
    b.call(
        "Emulation.setEmulatedMedia",
        json!({"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}),
    );
    let mut failures = Vec::new();
    let mut stops = 0;
    for page in [
        "cases/syn-0001/",
        "ar/cases/syn-0001/",
        "search/?q=starvation",
        "verify/",
    ] {
        b.goto(&format!("{base}{page}"));
        if page.starts_with("search") {
            b.wait_for("document.querySelectorAll('#search-results h2 a').length > 0");
        }
        b.eval("window.scrollTo(0, 0); document.activeElement && document.activeElement.blur()");
        let mut first: Option<String> = None;
        for _ in 0..150 {
            for kind in ["keyDown", "keyUp"] {
                b.call(
                    "Input.dispatchKeyEvent",
                    json!({"type": kind, "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9}),
                );
            }
            // The focused element, brought into view, and its box in page coordinates.
            let stop = b.eval(
                "(e => { if (!e || e === document.body) return null; e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); return [e.outerHTML.slice(0, 90), r.left + scrollX, r.top + scrollY, r.width, r.height]; })(document.activeElement)",
            );
            let Some(stop) = stop.as_array() else {
                break;
            };
            let what = stop[0].as_str().unwrap().to_string();
            if first.as_ref() == Some(&what) {
                break;
            }
            first.get_or_insert(what.clone());
            let n = |i: usize| stop[i].as_f64().unwrap();
            let clip = json!({"x": (n(1) - 6.0).max(0.0), "y": (n(2) - 6.0).max(0.0), "width": n(3) + 12.0, "height": n(4) + 12.0, "scale": 1});
            let shot = |b: &mut Browser| {
                b.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))");
                b.call(
                    "Page.captureScreenshot",
                    json!({"format": "png", "clip": clip, "captureBeyondViewport": true}),
                )["data"]
                    .as_str()
                    .unwrap()
                    .to_string()
            };
            let focused = shot(&mut b);
            b.eval("window.focusedStop = document.activeElement; document.activeElement.blur()");
            let unfocused = shot(&mut b);
            b.eval("window.focusedStop.focus()");
            stops += 1;
            if focused == unfocused {
                failures.push(format!("/{page}: no visible focus on {what}"));
            }
        }
    }
    assert!(stops > 40, "only {stops} tab stops");
    assert!(
        failures.is_empty(),
        "{} stops without a visible focus:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
