//! Static search: the index files, the search page, the configuration, the JavaScript
//! client's logic (Node) and the whole thing in headless Chromium.

use std::process::Command;

use crate::support::browser::{Browser, serve};
use crate::support::{SiteTest, attrs, bundled, copy_tree, repo_root, texts, tree};

fn index_files(site: &SiteTest) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(site.public().join("search/en"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_search_page_loads_a_hashed_index_and_every_page_has_a_search_box() {
    let site = SiteTest::fixture("search");
    site.build().success();
    let page = site.html("search/index.html");
    let src = attrs(&page, "script#search-index", "src");
    assert_eq!(src.len(), 1);
    // Relative to the page, and naming a file that exists.
    assert!(src[0].starts_with("en/meta."), "{src:?}");
    assert!(site.exists(&format!("search/{}", src[0])));
    assert_eq!(
        attrs(&page, "script[src$='casebook-search.js']", "src"),
        ["../casebook-search.js"]
    );
    for name in index_files(&site) {
        let (stem, rest) = name.split_once('.').unwrap();
        assert!(
            ["meta", "facets", "dates"].contains(&stem)
                || stem.starts_with('f')
                || stem.starts_with('t')
                || stem.starts_with('k')
                || stem.starts_with('n')
                || stem.starts_with('p')
                || stem.starts_with('d'),
            "{name}"
        );
        // `<kind>.<10 hex>.js`, the hash being of the bytes; a sharded kind's (`t3`) of
        // the bytes of all its files in order, which it names together.
        use sha2::Digest;
        let bytes = std::fs::read(site.public().join("search/en").join(&name)).unwrap();
        let sharded = stem.len() > 1 && stem.as_bytes()[1].is_ascii_digit();
        let hashed = if sharded {
            // The files of its volume: of its kind, with its hash, in order.
            let kind = &stem[..1];
            let mut volume: Vec<(usize, String)> = index_files(&site)
                .into_iter()
                .filter_map(|n| {
                    let (s, r) = n.split_once('.')?;
                    let i = s.strip_prefix(kind)?.parse().ok()?;
                    (r == rest).then_some((i, n.clone()))
                })
                .collect();
            volume.sort();
            let mut all = Vec::new();
            for (_, file) in volume {
                all.extend(std::fs::read(site.public().join("search/en").join(file)).unwrap());
            }
            all
        } else {
            bytes.clone()
        };
        let hash: String = sha2::Sha256::digest(&hashed)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(rest, format!("{}.js", &hash[..10]));
        assert!(bytes.starts_with(b"casebook.search.add("), "{name}");
    }
    // Every word shard has its positions file (for quoted phrases).
    let count = |kind: char| {
        index_files(&site)
            .iter()
            .filter(|n| n.starts_with(kind) && n.as_bytes()[1].is_ascii_digit())
            .count()
    };
    assert!(count('t') > 0);
    assert_eq!(count('t'), count('p'));
    let case = site.html("cases/syn-a/index.html");
    assert_eq!(
        attrs(&case, "form.header-search", "action"),
        ["../../search/"]
    );
    assert_eq!(attrs(&case, "form.header-search input", "name"), ["q"]);
}

#[test]
fn without_javascript_the_search_page_explains_and_links_to_the_facets() {
    let site = SiteTest::fixture("search");
    site.build().success();
    let page = site.html("search/index.html");
    let fallback = texts(&page, ".search-fallback p");
    assert!(fallback[0].contains("needs JavaScript"), "{fallback:?}");
    let links = attrs(&page, ".search-fallback a", "href");
    for facet in [
        "../cases/branch/",
        "../cases/year/",
        "../cases/indicator/",
        "../cases/",
    ] {
        assert!(links.iter().any(|l| l == facet), "{facet} in {links:?}");
    }
    // A labelled field and a live region for results.
    assert_eq!(texts(&page, "label[for=search-q]"), ["Search the archive"]);
    assert_eq!(attrs(&page, "#search-status", "aria-live"), ["polite"]);
}

#[test]
fn the_index_is_deterministic() {
    let a = SiteTest::fixture("search");
    a.build().success();
    let b = SiteTest::fixture("search");
    b.build().success();
    let search = |s: &SiteTest| tree(&s.public().join("search"));
    assert_eq!(search(&a), search(&b));
    // Rebuilding in place changes nothing either.
    let before = search(&a);
    a.build().success();
    assert_eq!(before, search(&a));
}

#[test]
fn markup_in_a_title_is_stored_as_a_string() {
    let site = SiteTest::fixture("search");
    site.build().success();
    let dir = site.public().join("search/en");
    // Every document chunk, one after another.
    let text: String = index_files(&site)
        .into_iter()
        .filter(|n| n.starts_with('d') && n.as_bytes()[1].is_ascii_digit())
        .map(|n| std::fs::read_to_string(dir.join(n)).unwrap())
        .collect();
    assert!(text.contains(r#""<img src=x onerror=alert(1)>""#), "{text}");
}

#[test]
fn search_can_be_turned_off() {
    let site = SiteTest::fixture("search").edit(
        "casebook.toml",
        "[search]\n",
        "[search]\nenabled = false\n",
    );
    site.build().success();
    assert!(!site.exists("search"));
    assert!(
        attrs(
            &site.html("cases/syn-a/index.html"),
            "form.header-search",
            "action"
        )
        .is_empty()
    );
}

#[test]
fn unknown_identifier_fields_are_located_errors() {
    let site = SiteTest::fixture("search").edit(
        "casebook.toml",
        r#""detainee_number/branch"]"#,
        r#""detainee_number/brnch"]"#,
    );
    site.build()
        .failure(1)
        .stderr_has("casebook.toml:7:")
        .stderr_has("search.identifiers")
        .stderr_has("`brnch` is not a case field")
        .stderr_has("did you mean `branch`?");
}

/// The script's data: `casebook.search.add("name", data)`.
fn script_data(site: &SiteTest, name: &str) -> serde_json::Value {
    let text = site.file(&format!("search/en/{name}"));
    let inner = &text["casebook.search.add(".len()..text.rfind(')').unwrap()];
    let pair: serde_json::Value = serde_json::from_str(&format!("[{inner}]")).unwrap();
    pair[1].clone()
}

#[test]
fn facet_slices_hold_the_whole_file_cut_by_documents() {
    let mut site = SiteTest::fixture("search");
    for i in 0..300 {
        let branch = ["215", "227"][i % 2];
        let indicator = ["beating", "starvation", "eye-injury"][i % 3];
        site = site.write(
            &format!("content/cases/gen-{i:03}.md"),
            &format!(
                "+++\ntitle = \"Generated {i}\"\ncase_id = \"gen-{i:03}\"\n\
                 detainee_number = {}\nbranch = \"{branch}\"\nphotographed = 2012-05-14\n\
                 indicators = [\"{indicator}\"]\nsynthetic = true\n+++\nGenerated.\n",
                50_000 + i
            ),
        );
    }
    site.build().success();
    let names = index_files(&site);
    let meta_name = names.iter().find(|n| n.starts_with("meta.")).unwrap();
    let meta = script_data(&site, meta_name);
    let n = meta["n"].as_u64().unwrap() as usize;
    let per = meta["facetSlice"].as_u64().unwrap() as usize;
    assert_eq!(per, 128);
    let whole = script_data(&site, meta["facetsFile"].as_str().unwrap());
    let widths: Vec<usize> = (meta["groups"].as_array().unwrap().iter())
        .map(|w| w.as_u64().unwrap() as usize)
        .collect();
    let volume = meta["volume"].as_u64().unwrap() as usize;
    let hashes = meta["files"]["f"].as_str().unwrap();
    let slices = n.div_ceil(per);
    assert!(slices >= 3, "{n} documents");
    for (g, width) in widths.iter().enumerate() {
        let mut joined = String::new();
        for i in 0..slices {
            // Named as the client names it: by its volume's hash.
            let hash = &hashes[i / volume * 10..i / volume * 10 + 10];
            let slice = script_data(&site, &format!("f{i}.{hash}.js"));
            let part = slice[g].as_str().unwrap();
            assert_eq!(part.len(), per.min(n - i * per) * width);
            joined.push_str(part);
        }
        assert_eq!(joined, whole[g].as_str().unwrap());
    }
}

#[test]
fn field_weights_are_checked() {
    let site = SiteTest::fixture("search").edit(
        "casebook.toml",
        "results_per_page = 2\n",
        "results_per_page = 2\nweights = { title = -1 }\n",
    );
    site.build()
        .failure(1)
        .stderr_has("search.weights.title")
        .stderr_has("out of range");
}

#[test]
fn the_published_client_is_small_and_never_evaluates_data() {
    let site = SiteTest::fixture("search");
    site.build().success();
    let client = site.file("casebook-search.js");
    // 21 KB since name keys, typos, phrases by position, written dates and the languages of
    // untranslated results (issues 29 and 30); 26 KB since exact and near matches are told
    // apart and shown apart (issue 41); 28 KB since the facets are fetched by slices of the
    // documents a query found (issue 43); 10 KB gzipped.
    assert!(
        client.len() < 28 * 1024,
        "client is {} bytes minified",
        client.len()
    );
    let source =
        std::fs::read_to_string(repo_root().join("themes/default/static/casebook-search.js"))
            .unwrap();
    for banned in [
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "eval(",
        "new Function",
        "document.write",
    ] {
        assert!(!source.contains(banned), "the client uses {banned}");
    }
}

/// The client's logic under `node --test`, against an index of the search fixture.
#[test]
fn javascript_unit_tests() {
    if Command::new("node").arg("--version").output().is_err() {
        crate::support::missing_tool(
            "javascript_unit_tests: Node.js not found (install nodejs to run tests/js)",
        );
        return;
    }
    let site = SiteTest::fixture("search");
    site.build().success();
    // The source, then the minified copy the site publishes.
    for client in [
        repo_root().join("themes/default/static/casebook-search.js"),
        site.public().join("casebook-search.js"),
    ] {
        let out = Command::new("node")
            .arg("--test")
            .arg(repo_root().join("tests/js/"))
            .env("CASEBOOK_SEARCH_INDEX", site.public().join("search/en"))
            .env("CASEBOOK_SEARCH_CLIENT", &client)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "node --test failed with {}:\n{stdout}\n{}",
            client.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("# skipped 0"), "{stdout}");
    }
}

/// The bundled site plus one case whose title is an XSS attempt.
fn bundled_with_hostile_case() -> SiteTest {
    let site = bundled();
    let cache = repo_root().join(".casebook-cache");
    if cache.is_dir() {
        copy_tree(&cache, &site.root().join(".casebook-cache"));
    }
    site.write(
        "content/cases/syn-9999/index.md",
        r#"+++
title = "<img src=x onerror=alert(1)>"
case_id = "syn-9999"
detainee_number = 97531
branch = "s5"
photographed = 2013-01-01
sex = "male"
age_range = "unknown"
indicators = ["beating"]
status = "unidentified"
synthetic = true
+++
A synthetic record whose title tries to inject markup.
"#,
    )
}

fn screenshot_dir() -> std::path::PathBuf {
    repo_root().join("target/test-screenshots")
}

/// Types a query and waits for its results; returns the status line.
fn search_for(b: &mut Browser, query: &str) -> String {
    b.eval("document.getElementById('search-q').focus(); document.getElementById('search-q').value = ''");
    b.type_text(query);
    let q = serde_json::to_string(&query.to_string()).unwrap();
    b.wait_for(&format!(
        "document.getElementById('search-status').textContent.includes({q}) && !document.getElementById('search-results').hasAttribute('aria-busy') && document.getElementById('search-status').textContent"
    ))
    .as_str()
    .unwrap()
    .to_string()
}

fn result_titles(b: &mut Browser) -> Vec<String> {
    serde_json::from_value(b.eval(
        "Array.from(document.querySelectorAll('#search-results h2 a')).map(a => a.textContent)",
    ))
    .unwrap()
}

fn count_of(b: &mut Browser, facet: &str, value: &str) -> usize {
    let v = b.eval(&format!(
        "document.querySelector('input[name={facet}][value=\"{value}\"]').labels[0].querySelector('.count').textContent"
    ));
    v.as_str()
        .unwrap()
        .trim_matches(['(', ')'])
        .parse()
        .unwrap()
}

/// The near-match groups shown: each spelling and its count.
fn near_groups(b: &mut Browser) -> Vec<(String, usize)> {
    let v = b.eval(
        "Array.from(document.querySelectorAll('#search-near .search-near-group > summary')).map(s => [s.querySelector('bdi').textContent, parseInt(s.textContent.split('(').pop(), 10)])",
    );
    serde_json::from_value(v).unwrap()
}

/// The `data-match` of every result shown, exact list first.
fn match_kinds(b: &mut Browser) -> Vec<String> {
    serde_json::from_value(b.eval(
        "Array.from(document.querySelectorAll('#search-results > li, #search-near li')).map(li => li.dataset.match)",
    ))
    .unwrap()
}

fn total(status: &str) -> usize {
    status
        .split_whitespace()
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap()
}

#[test]
fn browser_search_over_http() {
    let Some(mut b) = Browser::launch("browser_search_over_http") else {
        return;
    };
    let site = bundled_with_hostile_case();
    site.build().success();
    let base = serve(&site.public());
    b.goto(&format!("{base}search/"));
    b.wait_for("document.querySelector('.search-fallback').hidden");
    b.eval("window.alerted = false; window.alert = () => { window.alerted = true; }");

    // A word of the narratives and of the indicator field.
    let status = search_for(&mut b, "starvation");
    let found = total(&status);
    // Every page whose text has the word: cases and prose pages of the English edition.
    let starving = walkdir::WalkDir::new(site.root().join("content"))
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name().to_string_lossy();
            name.ends_with(".md") && name.matches('.').count() == 1
        })
        .filter(|e| {
            let text = std::fs::read_to_string(e.path()).unwrap().to_lowercase();
            text.split(|c: char| !c.is_alphanumeric())
                .any(|w| w == "starvation")
        })
        .count();
    assert!(starving > 0);
    assert_eq!(found, starving, "{status}");
    let titles = result_titles(&mut b);
    assert_eq!(titles.len(), found.min(10));
    assert!(
        titles.iter().any(|t| t.contains("(synthetic)")),
        "{titles:?}"
    );
    assert!(
        b.eval("location.search")
            .as_str()
            .unwrap()
            .contains("q=starvation")
    );
    // Highlighted words in the snippets.
    assert!(
        b.eval("document.querySelectorAll('#search-results mark').length")
            .as_u64()
            .unwrap()
            > 0
    );

    // The filters are folded, and a plain query fetched no facets file (every case's values):
    // opening them fetches it and shows the counts.
    assert!(b.eval("document.querySelector('.search-filters').open") == false);
    let facets_fetched = "performance.getEntriesByType('resource').some(e => /\\/facets\\.[^/]*\\.js$/.test(e.name))";
    assert!(b.eval(facets_fetched) == false);
    b.eval("document.querySelector('.search-filters > summary').click()");
    b.wait_for("document.querySelector('input[name=branch][value=\"s1\"]').labels[0].querySelector('.count').textContent !== ''");
    assert!(b.eval(facets_fetched) == true);
    // The reader's choice is remembered on the device.
    assert_eq!(
        b.eval("localStorage.getItem('casebook-search-filters')"),
        "open"
    );

    // A facet narrows the results to its count, and the other facets' counts change.
    let branch_s1 = count_of(&mut b, "branch", "s1");
    let male_before = count_of(&mut b, "sex", "male");
    b.eval("document.querySelector('input[name=branch][value=\"s1\"]').click()");
    let status = b
        .wait_for(&format!(
            "(s => s.startsWith('{branch_s1} ') && s)(document.getElementById('search-status').textContent)"
        ))
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(total(&status), branch_s1);
    assert!(count_of(&mut b, "sex", "male") <= male_before);
    assert!(
        b.eval("location.search")
            .as_str()
            .unwrap()
            .contains("branch=s1")
    );
    b.screenshot(&screenshot_dir().join("search-results.png"));

    // Open a result, then come back: the state is in the URL.
    let first = result_titles(&mut b)[0].clone();
    b.eval("document.querySelector('#search-results h2 a').click()");
    b.wait_for("location.pathname.includes('/cases/syn-') && document.readyState === 'complete'");
    let h1 = b.eval("document.querySelector('h1').textContent");
    assert!(
        h1.as_str().unwrap().trim().starts_with(&first),
        "{h1} / {first}"
    );
    b.eval("history.back()");
    b.wait_for("location.pathname.endsWith('/search/') && document.getElementById('search-results').children.length > 0");
    assert!(b.eval("document.getElementById('search-q').value === 'starvation' && document.querySelector('input[name=branch][value=\"s1\"]').checked") == true);

    // Exact detainee number and the hostile title, shown as text.
    b.eval("document.querySelector('.search-clear').click()");
    // While typing, longer numbers beginning with it follow; submitted, only the exact one.
    search_for(&mut b, "97531");
    assert_eq!(result_titles(&mut b)[0], "<img src=x onerror=alert(1)>");
    b.eval("document.getElementById('search-form').requestSubmit()");
    b.wait_for("document.getElementById('search-status').textContent.startsWith('1 result')");
    assert_eq!(result_titles(&mut b), ["<img src=x onerror=alert(1)>"]);
    assert_eq!(b.eval("document.querySelectorAll('#search-results img[src=x], #search-results img:not(.thumb)').length"), 0);
    assert_eq!(b.eval("window.alerted"), false);
}

#[test]
fn browser_search_from_disk_on_a_portable_build() {
    let Some(mut b) = Browser::launch("browser_search_from_disk_on_a_portable_build") else {
        return;
    };
    let site = bundled_with_hostile_case();
    site.run(&["build", "--portable"]).success();
    let url = format!("file://{}", site.public().join("index.html").display());
    b.goto(&url);
    // The header box submits to the search page on disk.
    b.eval("document.getElementById('header-q').value = 'beating'; document.querySelector('form.header-search').requestSubmit()");
    b.wait_for("location.pathname.endsWith('/search/index.html') && document.getElementById('search-results').children.length > 0");
    let titles = result_titles(&mut b);
    assert!(!titles.is_empty());
    let href = b.eval("document.querySelector('#search-results h2 a').getAttribute('href')");
    assert!(href.as_str().unwrap().ends_with("/index.html"), "{href}");
    b.eval("document.querySelector('#search-results h2 a').click()");
    b.wait_for("location.pathname.includes('/cases/syn-') && location.pathname.endsWith('/index.html') && document.readyState === 'complete'");
    let h1 = b.eval("document.querySelector('h1').textContent");
    assert!(h1.as_str().unwrap().trim().starts_with(&titles[0]), "{h1}");
    b.screenshot(&screenshot_dir().join("search-portable-result.png"));
}

#[test]
fn each_language_has_its_own_search_page_and_index() {
    let site = SiteTest::fixture("i18n");
    site.build().success();
    let ar = site.html("ar/search/index.html");
    assert_eq!(attrs(&ar, "html", "dir"), ["rtl"]);
    assert_eq!(texts(&ar, "h1"), ["البحث"]);
    let src = attrs(&ar, "script#search-index", "src");
    assert!(src[0].starts_with("../../search/ar/meta."), "{src:?}");
    assert!(site.public().join("ar/search").join(&src[0]).exists());
    let en = site.html("search/index.html");
    assert!(attrs(&en, "script#search-index", "src")[0].starts_with("en/meta."));
    // Arabic pages point their header box at the Arabic search page.
    let about = site.html("ar/about/index.html");
    assert_eq!(
        attrs(&about, "form.header-search", "action"),
        ["../search/"]
    );
}

#[test]
fn browser_arabic_query_with_diacritics() {
    let Some(mut b) = Browser::launch("browser_arabic_query_with_diacritics") else {
        return;
    };
    let site = SiteTest::fixture("i18n");
    site.build().success();
    let base = serve(&site.public());
    // "الأَرْشِيف" with harakat and hamza finds the page titled "عن الأرشيف".
    b.goto(&format!(
        "{base}ar/search/?q=%D8%A7%D9%84%D8%A3%D9%8E%D8%B1%D9%92%D8%B4%D9%90%D9%8A%D9%81"
    ));
    b.wait_for("document.querySelectorAll('#search-results h2 a').length > 0");
    assert!(result_titles(&mut b).contains(&"عن الأرشيف".to_string()));
    assert_eq!(
        b.eval("getComputedStyle(document.getElementById('search-results')).direction"),
        "rtl"
    );
    b.screenshot(&screenshot_dir().join("search-arabic.png"));
    // An untranslated case's English title and snippet say so.
    b.goto(&format!("{base}ar/search/?q=narrative"));
    b.wait_for("document.querySelectorAll('#search-results h2 a').length > 0");
    assert_eq!(
        b.eval("[...document.querySelectorAll('#search-results h2 a')].map(a => a.textContent + ':' + a.lang).join()"),
        "Case two:en"
    );
    assert_eq!(
        b.eval("document.querySelector('#search-results .snippet').lang"),
        "en"
    );
}

/// Every term of a language's index, read from its term shards.
fn index_terms(site: &SiteTest, lang: &str) -> Vec<String> {
    let mut terms = Vec::new();
    for entry in std::fs::read_dir(site.public().join("search").join(lang)).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with('t') {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // casebook.search.add("t3", [term, postings, term, postings, ...]);
        let start = text.find('[').unwrap();
        let end = text.rfind(']').unwrap();
        let list: Vec<serde_json::Value> = serde_json::from_str(&text[start..=end]).unwrap();
        terms.extend(
            list.chunks(2)
                .map(|pair| pair[0].as_str().unwrap().to_string()),
        );
    }
    terms
}

#[test]
fn arabic_function_words_are_not_indexed_so_the_name_ali_finds_no_page_without_it() {
    // The bundled Arabic pages say على ("on") dozens of times and name no one called علي
    // (Ali). Folding ى to ي made every one of them match علي; function words are now left out
    // of the index, and the name's letters stay what they are.
    let site = bundled();
    site.build().success();
    let pages: String = ["content/methodology.ar.md", "content/report/_index.ar.md"]
        .iter()
        .map(|p| std::fs::read_to_string(site.root().join(p)).unwrap())
        .collect();
    assert!(pages.contains(" على "), "the pages no longer hold the word");
    let terms = index_terms(&site, "ar");
    assert!(!terms.is_empty());
    for word in ["علي", "في", "من", "الى"] {
        assert!(!terms.iter().any(|t| t == word), "{word} is indexed");
    }
    // Words of the same pages are still there.
    assert!(terms.iter().any(|t| t == "تقرير" || t == "التقرير"));
}

#[test]
fn name_fields_must_be_case_fields() {
    let site = SiteTest::fixture("search").edit(
        "casebook.toml",
        r#"names = ["person", "person_ar"]"#,
        r#"names = ["person", "persn"]"#,
    );
    site.build()
        .failure(1)
        .stderr_has("casebook.toml:")
        .stderr_has("search.names")
        .stderr_has("`persn` is not a case field")
        .stderr_has("person");
}

#[test]
fn name_fields_get_keys_and_a_names_list_and_other_fields_do_not() {
    let site = SiteTest::fixture("search");
    site.build().success();
    // The kinds of index file: `k0.<hash>.js` is a `k`.
    let kinds = |site: &SiteTest| -> Vec<String> {
        let mut k: Vec<String> = index_files(site)
            .iter()
            .map(|n| {
                n.split('.')
                    .next()
                    .unwrap()
                    .trim_end_matches(|c: char| c.is_ascii_digit())
            })
            .map(str::to_string)
            .collect();
        k.sort();
        k.dedup();
        k
    };
    assert!(
        kinds(&site).contains(&"k".to_string()),
        "{:?}",
        kinds(&site)
    );
    assert!(kinds(&site).contains(&"n".to_string()));
    let keys = index_files(&site)
        .into_iter()
        .find(|n| n.starts_with("k0."))
        .unwrap();
    let text = std::fs::read_to_string(site.public().join("search/en").join(keys)).unwrap();
    // Mohammed, Muhammad and محمد share one loose skeleton.
    assert!(text.contains(r#""~mhmd~mUhAmd~u~mohammed""#), "{text}");
    assert!(text.contains(r#""~mhmd~mhmd~.~محمد""#), "{text}");

    let plain = SiteTest::fixture("search").edit(
        "casebook.toml",
        "names = [\"person\", \"person_ar\"]\n",
        "",
    );
    plain.build().success();
    assert!(
        !kinds(&plain).contains(&"k".to_string()),
        "{:?}",
        kinds(&plain)
    );
    assert!(!kinds(&plain).contains(&"n".to_string()));
}

/// Name matching runs in the browser from disk as in Node: other spellings, the other
/// script, a typo, quoted phrases and a written date (names of tests/fixtures/search).
#[test]
fn browser_name_search_from_disk() {
    let Some(mut b) = Browser::launch("browser_name_search_from_disk") else {
        return;
    };
    let site = SiteTest::fixture("search");
    site.run(&["build", "--portable"]).success();
    let page = site.public().join("search/index.html");
    let mut search = |q: &str| -> (usize, Vec<String>) {
        let url = url::Url::from_file_path(&page).unwrap();
        b.goto(&format!(
            "{url}?q={}",
            url::form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>()
        ));
        let status = b
            .wait_for("!document.getElementById('search-results').hasAttribute('aria-busy') && /[0-9]/.test(document.getElementById('search-status').textContent) && document.getElementById('search-status').textContent")
            .as_str()
            .unwrap()
            .to_string();
        (total(&status), result_titles(&mut b))
    };
    // Two results a page in this fixture: the exact spelling, then another spelling; the
    // Arabic spelling follows. Mahmoud is not counted: a near match, apart.
    assert_eq!(
        search("Mohamed"),
        (3, vec!["Case A".into(), "Case C".into()])
    );
    assert_eq!(search("محمد"), (3, vec!["Case B".into(), "Case A".into()]));
    assert_eq!(
        search("Khatib"),
        (2, vec!["Case A".into(), "Case B".into()])
    );
    assert_eq!(search("\"Mohammed al-Khatib\""), (1, vec!["Case A".into()]));
    // A phrase of the body text, read from its words' positions.
    assert_eq!(search("\"bruising across\""), (1, vec!["Case A".into()]));
    assert_eq!(search("14 May 2012"), (1, vec!["Case A".into()]));
    search("Mohamed");
    assert_eq!(near_groups(&mut b), vec![("Mahmoud".to_string(), 1)]);
}

/// Issue 41: on a site with Hassans and no Hussein, Hussein finds no result and shows the
/// Hassans apart, under their own heading; Ali finds Ali and علي alone (never the article of
/// al-Khatib); Joseph shows Yusuf as a near match. From disk, in Chromium.
#[test]
fn browser_similar_names_are_shown_apart_and_never_counted() {
    let Some(mut b) = Browser::launch("browser_similar_names_are_shown_apart_and_never_counted")
    else {
        return;
    };
    let case = |id: &str, number: u32, person: &str, person_ar: &str| {
        let mut names = String::new();
        if !person.is_empty() {
            names += &format!("person = \"{person}\"\n");
        }
        if !person_ar.is_empty() {
            names += &format!("person_ar = \"{person_ar}\"\n");
        }
        format!(
            "+++\ntitle = \"Case {id}\"\ncase_id = \"syn-{id}\"\ndetainee_number = {number}\nbranch = \"215\"\nphotographed = 2012-01-01\nsynthetic = true\n{names}+++\nA made-up record.\n"
        )
    };
    let site = SiteTest::fixture("search")
        .write(
            "content/cases/syn-h1.md",
            &case("h1", 4101, "Hassan al-Najjar", ""),
        )
        .write(
            "content/cases/syn-h2.md",
            &case("h2", 4102, "Hasan Kurdi", "حسن الكردي"),
        )
        .write(
            "content/cases/syn-l1.md",
            &case("l1", 4103, "Ali Homsi", ""),
        )
        .write(
            "content/cases/syn-l2.md",
            &case("l2", 4104, "", "علي الحلبي"),
        )
        .write(
            "content/cases/syn-y1.md",
            &case("y1", 4105, "Yusuf Attar", ""),
        );
    site.run(&["build", "--portable"]).success();
    let page = site.public().join("search/index.html");
    let url = url::Url::from_file_path(&page).unwrap();
    let search = |b: &mut Browser, q: &str| -> String {
        b.goto(&format!(
            "{url}?q={}",
            url::form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>()
        ));
        b.wait_for("!document.getElementById('search-results').hasAttribute('aria-busy') && document.getElementById('search-status').textContent")
            .as_str()
            .unwrap()
            .to_string()
    };
    let status = search(&mut b, "Hussein");
    assert!(status.starts_with("No result names “Hussein”"), "{status}");
    assert!(result_titles(&mut b).is_empty());
    let heading = b.eval("document.querySelector('#search-near h2').textContent");
    assert_eq!(heading, "Similar names");
    let groups = near_groups(&mut b);
    // Hassan and Hasan (one spelling of the key) and حسن: one name, one group of both cases.
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert!(
        ["Hasan", "Hassan", "حسن"].contains(&groups[0].0.as_str()),
        "{groups:?}"
    );
    assert_eq!(groups[0].1, 2, "{groups:?}");
    assert!(match_kinds(&mut b).iter().all(|k| k == "near"));
    // The near spelling is marked as near, never as the name searched for.
    let marks = b.eval("Array.from(document.querySelectorAll('#search-near mark')).map(m => m.className + ':' + m.textContent)");
    assert!(
        marks
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m.as_str().unwrap().starts_with("near:")),
        "{marks}"
    );

    let status = search(&mut b, "Ali");
    assert_eq!(total(&status), 2, "{status}");
    let mut titles = result_titles(&mut b);
    titles.sort();
    assert_eq!(titles, ["Case l1", "Case l2"]);
    assert!(match_kinds(&mut b).iter().all(|k| k == "exact"));

    let status = search(&mut b, "Joseph");
    assert!(status.starts_with("No result names “Joseph”"), "{status}");
    let groups = near_groups(&mut b);
    assert_eq!(groups, vec![("Yusuf".to_string(), 1)]);
    assert_eq!(match_kinds(&mut b), ["near"]);

    // Arabic: the article written apart is no name, and finds every Khatib.
    let status = search(&mut b, "ال خطيب");
    assert_eq!(total(&status), 2, "{status}");
}
