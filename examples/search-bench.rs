//! Search benchmark in headless Chromium over a built site (see `benches/search.sh`).
//!
//! `cargo run --release --example search-bench -- SITE_DIR [RUNS]`
//!
//! For each query it opens the search page with an empty cache, runs the query, and reports
//! the files the browser downloaded, as the server saw them (count, raw bytes, gzip -6
//! bytes; the page itself and its stylesheet included), then the time from
//! the last keystroke to rendered results and from the index files' arrival to rendered
//! results (medians over RUNS typed queries). If `SITE_DIR/pagefind-bench.html` exists
//! (written by the script when Pagefind has indexed the site), Pagefind is measured the
//! same way.

// Helpers in the support modules are shared across this crate's modules, not exported.
#![allow(unreachable_pub)]

#[path = "../tests/support/browser.rs"]
#[allow(dead_code)]
mod browser;

use std::path::Path;
use std::process::Command;

use std::path::PathBuf;

use browser::{Browser, Served, serve_logged};

fn gz(path: &Path) -> usize {
    let out = Command::new("gzip")
        .args(["-6", "-c"])
        .arg(path)
        .output()
        .expect("gzip");
    out.stdout.len()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Count, raw and gzipped bytes of every file served since the log was last cleared
/// (the server's view, so files fetched by workers count too).
/// The page's own HTML and stylesheet are reported apart from search files (index + client).
fn downloaded(served: &Served) -> String {
    let files: Vec<PathBuf> = std::mem::take(&mut *served.lock().unwrap());
    let (mut n, mut raw, mut packed, mut page_raw, mut page_gz) = (0, 0, 0, 0, 0);
    for path in &files {
        let size = std::fs::metadata(path).map_or(0, |m| m.len() as usize);
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ["html", "css", "ico"].contains(&ext) {
            page_raw += size;
            page_gz += gz(path);
        } else {
            n += 1;
            raw += size;
            packed += gz(path);
        }
    }
    format!("{n:>6} {raw:>10} {packed:>10}   (+ page and CSS: {page_raw} B, {page_gz} B gzipped)")
}

fn casebook_query(b: &mut Browser, base: &str, query: &str) {
    b.goto(&format!("{base}search/{query}"));
    b.wait_for("window.casebook && casebook.search.last && casebook.search.last.total > 0");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let site = Path::new(args.get(1).expect("usage: search-bench SITE_DIR [RUNS]")).to_path_buf();
    let runs: usize = args.get(2).map_or(7, |r| r.parse().unwrap());
    let (base, served) = serve_logged(&site);

    println!(
        "{:<34} {:>6} {:>10} {:>10}",
        "casebook query (cold cache)", "files", "search_B", "gzip_B"
    );
    for (label, query) in [
        ("one word: starvation", "?q=starvation"),
        (
            "two words + facet: bruising neck, branch s1",
            "?q=bruising+neck&branch=s1",
        ),
    ] {
        let mut b = Browser::launch("search-bench").expect("Chromium is needed");
        served.lock().unwrap().clear();
        casebook_query(&mut b, &base, query);
        println!("{label:<34} {}", downloaded(&served));
    }

    // Keystroke to rendered results, typing a word into a loaded page (cold shard cache
    // for the first word of each run: a new browser each time).
    let mut to_render = Vec::new();
    let mut after_load = Vec::new();
    for _ in 0..runs {
        let mut b = Browser::launch("search-bench").expect("Chromium is needed");
        b.goto(&format!("{base}search/"));
        b.wait_for("document.querySelector('.search-fallback').hidden");
        b.eval("window.lastKey = 0; document.getElementById('search-q').addEventListener('input', () => { window.lastKey = performance.now(); }); document.getElementById('search-q').focus()");
        b.type_text("emaciation");
        b.wait_for("casebook.search.last && casebook.search.last.rendered > window.lastKey && document.getElementById('search-status').textContent.includes('emaciation')");
        let t: Vec<f64> = serde_json::from_value(b.eval(
            "[casebook.search.last.rendered - window.lastKey, casebook.search.last.rendered - casebook.search.last.loaded]",
        ))
        .unwrap();
        to_render.push(t[0]);
        after_load.push(t[1]);
    }
    println!(
        "keystroke -> rendered results: median {:.1} ms (includes the 80 ms typing pause); index files arrived -> rendered: median {:.1} ms ({runs} runs)",
        median(to_render),
        median(after_load)
    );

    if site.join("pagefind-bench.html").exists() {
        println!(
            "{:<34} {:>6} {:>10} {:>10}",
            "Pagefind query (cold cache)", "files", "search_B", "gzip_B"
        );
        for (label, query) in [
            ("one word: starvation", "starvation"),
            ("two words: bruising neck", "bruising neck"),
        ] {
            let mut b = Browser::launch("search-bench").expect("Chromium is needed");
            served.lock().unwrap().clear();
            b.goto(&format!(
                "{base}pagefind-bench.html?q={}",
                query.replace(' ', "+")
            ));
            b.wait_for("window.pagefindDone === true");
            println!("{label:<34} {}", downloaded(&served));
        }
        let mut times = Vec::new();
        for _ in 0..runs {
            let mut b = Browser::launch("search-bench").expect("Chromium is needed");
            b.goto(&format!("{base}pagefind-bench.html"));
            b.wait_for("window.pagefindReady === true");
            let ms = b.eval("(async () => { const t = performance.now(); const r = await window.pf.search('emaciation'); await Promise.all(r.results.slice(0, 10).map(x => x.data())); return performance.now() - t; })()");
            times.push(ms.as_f64().unwrap());
        }
        println!(
            "Pagefind: query to 10 results' data, cold: median {:.1} ms ({runs} runs)",
            median(times)
        );
    }
}
