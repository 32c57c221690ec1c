//! Build-time charts: what they count (against facet pages and `data/cases.csv`), how they
//! are drawn (well-formed SVG, accessible names, tables that match the bars, zero months,
//! empty facets, right-to-left), where they link, and a screenshot of the figures page.

use std::collections::BTreeMap;

use scraper::{ElementRef, Html, Selector};

use crate::support::browser::{Browser, serve};
use crate::support::{SiteTest, bundled, repo_root, texts};

fn select<'a>(node: ElementRef<'a>, selector: &str) -> Vec<ElementRef<'a>> {
    node.select(&Selector::parse(selector).unwrap()).collect()
}

fn figure<'a>(page: &'a Html, id: &str) -> ElementRef<'a> {
    let sel = Selector::parse(&format!("figure#{id}")).unwrap();
    page.select(&sel)
        .next()
        .unwrap_or_else(|| panic!("no figure#{id}"))
}

/// The bars of a chart: (key, count, link).
fn bars(figure: ElementRef) -> Vec<(String, u64, Option<String>)> {
    select(figure, "svg g.chart-item")
        .into_iter()
        .map(|g| {
            let link = select(g, "a")
                .first()
                .and_then(|a| a.value().attr("href").map(str::to_string));
            (
                g.value().attr("data-key").unwrap().to_string(),
                g.value().attr("data-count").unwrap().parse().unwrap(),
                link,
            )
        })
        .collect()
}

/// The rows of a chart's data table: (key, count as shown, link).
fn rows(figure: ElementRef) -> Vec<(String, u64, Option<String>)> {
    select(figure, "details table tbody tr")
        .into_iter()
        .map(|tr| {
            let link = select(tr, "th a")
                .first()
                .and_then(|a| a.value().attr("href").map(str::to_string));
            let count = select(tr, "td.num")[0].text().collect::<String>();
            (
                tr.value().attr("data-key").unwrap().to_string(),
                count.trim().parse().unwrap(),
                link,
            )
        })
        .collect()
}

fn counts(bars: &[(String, u64, Option<String>)]) -> BTreeMap<String, u64> {
    bars.iter().map(|(k, c, _)| (k.clone(), *c)).collect()
}

/// Counts per value of the CSV export's `column`: list cells split on `; `, dates by
/// `month` (`2013-02`) or year.
fn csv_counts(site: &SiteTest, column: &str, date: Option<&str>) -> BTreeMap<String, u64> {
    let text = site.file("data/cases.csv");
    let mut reader = csv::Reader::from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let header = reader.headers().unwrap().clone();
    let at = header.iter().position(|h| h == column).unwrap();
    let mut out = BTreeMap::new();
    for record in reader.records() {
        let cell = record.unwrap()[at].to_string();
        let values: Vec<String> = match date {
            Some("month") => vec![cell[..7].to_string()],
            Some(_) => vec![cell[..4].to_string()],
            None => cell
                .split("; ")
                .filter(|v| !v.is_empty())
                .map(str::to_string)
                .collect(),
        };
        for v in values {
            *out.entry(v).or_default() += 1;
        }
    }
    out
}

fn nonzero(map: BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    map.into_iter().filter(|(_, c)| *c > 0).collect()
}

/// The total a list page states ("Showing 1–2 of 3 cases").
fn listed_total(page: &Html) -> u64 {
    let status = texts(page, "#list-status").join(" ");
    let of = status
        .split(" of ")
        .nth(1)
        .unwrap_or_else(|| panic!("{status}"));
    of.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn bars_count_what_the_facet_pages_and_the_csv_export_count() {
    let site = SiteTest::fixture("charts");
    site.build().success();
    let page = site.html("figures/index.html");
    for (chart, facet, column, date) in [
        ("chart-branch", "branch", "branch", None),
        ("chart-indicator", "indicator", "indicators", None),
        ("chart-year", "year", "photographed", Some("year")),
        (
            "chart-photographed-year",
            "year",
            "photographed",
            Some("year"),
        ),
    ] {
        let drawn = bars(figure(&page, chart));
        // The facet's index page lists the same values in the same order, with the same counts.
        let index = site.html(&format!("cases/{facet}/index.html"));
        let listed: Vec<u64> = texts(&index, ".facet-table td.num")
            .iter()
            .map(|n| n.parse().unwrap())
            .collect();
        let drawn_counts: Vec<u64> = drawn.iter().map(|b| b.1).collect();
        assert_eq!(drawn_counts, listed, "{chart}");
        assert_eq!(
            nonzero(counts(&drawn)),
            csv_counts(&site, column, date),
            "{chart}"
        );
        // Every bar with cases leads to the facet page listing exactly those cases.
        for (key, count, link) in &drawn {
            if *count == 0 {
                assert_eq!(link, &None, "{chart} {key}");
                continue;
            }
            assert_eq!(
                link.as_deref(),
                Some(format!("../cases/{facet}/{key}/").as_str())
            );
            let value_page = site.html(&format!("cases/{facet}/{key}/index.html"));
            assert_eq!(listed_total(&value_page), *count, "{chart} {key}");
        }
    }
    // The indicator chart counts a case once per indicator: more than there are cases.
    let indicators: u64 = bars(figure(&page, "chart-indicator"))
        .iter()
        .map(|b| b.1)
        .sum();
    assert_eq!(indicators, 7);
    assert_eq!(csv_counts(&site, "case_id", None).len(), 5);
}

#[test]
fn months_without_cases_are_drawn_as_zero_and_months_link_to_their_own_pages() {
    let site = SiteTest::fixture("charts");
    site.build().success();
    let page = site.html("figures/index.html");
    let drawn = bars(figure(&page, "chart-photographed-month"));
    let expect = [
        ("2012-11", 2),
        ("2012-12", 0),
        ("2013-01", 0),
        ("2013-02", 2),
        ("2013-03", 0),
        ("2013-04", 1),
    ];
    let got: Vec<(&str, u64)> = drawn.iter().map(|b| (b.0.as_str(), b.1)).collect();
    assert_eq!(got, expect);
    assert_eq!(
        nonzero(counts(&drawn)),
        csv_counts(&site, "photographed", Some("month"))
    );
    for (key, count, link) in &drawn {
        let (year, month) = key.split_once('-').unwrap();
        if *count == 0 {
            assert_eq!(link, &None);
            assert!(!site.exists(&format!("cases/year/{year}/{month}/index.html")));
            continue;
        }
        assert_eq!(
            link.as_deref(),
            Some(format!("../cases/year/{year}/{month}/").as_str())
        );
        let month_page = site.html(&format!("cases/year/{year}/{month}/index.html"));
        assert_eq!(listed_total(&month_page), *count);
        // A month page leads back to its year.
        assert_eq!(
            crate::support::attrs(&month_page, ".breadcrumb a", "href")
                .last()
                .unwrap(),
            "../"
        );
    }
    // The zero months are in the table too, as zero, and their columns have no height.
    let table = rows(figure(&page, "chart-photographed-month"));
    assert_eq!(table.iter().filter(|r| r.1 == 0).count(), 3);
    let zero = select(
        figure(&page, "chart-photographed-month"),
        "g[data-key='2012-12'] rect.chart-mark",
    );
    assert_eq!(zero[0].value().attr("height"), Some("0"));
}

#[test]
fn each_data_table_matches_its_bars() {
    let site = SiteTest::fixture("charts");
    site.build().success();
    let page = site.html("figures/index.html");
    let figures = select(page.root_element(), "figure.chart");
    assert_eq!(figures.len(), 6);
    for f in figures {
        let id = f.value().attr("id").unwrap();
        if f.value().classes().any(|c| c == "chart-empty") {
            // Nothing to draw: no bars, and a table of zeros.
            assert!(
                bars(f).is_empty() && rows(f).iter().all(|r| r.1 == 0),
                "{id}"
            );
        } else {
            assert_eq!(bars(f), rows(f), "{id}");
        }
        // Headed by what it counts, captioned by the chart's title.
        assert_eq!(select(f, "table thead th").len(), 2, "{id}");
        let caption = select(f, "table caption")[0].text().collect::<String>();
        let title = select(f, "figcaption .chart-title")[0]
            .text()
            .collect::<String>();
        assert_eq!(caption, title, "{id}");
    }
}

#[test]
fn an_empty_facet_draws_an_empty_state_not_a_broken_chart() {
    let site = SiteTest::fixture("charts");
    site.build().success();
    let page = site.html("figures/index.html");
    let status = figure(&page, "chart-status");
    assert!(status.value().classes().any(|c| c == "chart-empty"));
    assert!(select(status, "rect.chart-mark").is_empty());
    assert_eq!(
        select(status, "svg text.chart-note")[0]
            .text()
            .collect::<String>(),
        "No cases to show."
    );
    assert_eq!(
        select(status, "svg desc")[0].text().collect::<String>(),
        "No cases to show. Includes 4 synthetic sample records."
    );
    // The table still lists the values, each zero.
    let counted: Vec<(String, u64)> = rows(status).into_iter().map(|r| (r.0, r.1)).collect();
    assert_eq!(
        counted,
        [("identified".into(), 0), ("unidentified".into(), 0)]
    );
}

#[test]
fn every_chart_is_well_formed_svg_with_an_accessible_name_and_description() {
    let site = SiteTest::fixture("charts");
    site.build().success();
    for rel in [
        "figures/index.html",
        "cases/branch/215/index.html",
        "cases/year/2013/index.html",
    ] {
        let html = site.file(rel);
        let svgs: Vec<&str> = html
            .split("<svg")
            .skip(1)
            .map(|rest| &rest[..rest.find("</svg>").unwrap()])
            .collect();
        assert!(!svgs.is_empty(), "{rel}");
        for body in svgs {
            let xml = format!("<svg{body}</svg>");
            let doc = roxmltree::Document::parse(&xml)
                .unwrap_or_else(|e| panic!("{rel}: not well-formed XML: {e}\n{xml}"));
            let svg = doc.root_element();
            assert_eq!(
                svg.tag_name().namespace(),
                Some("http://www.w3.org/2000/svg")
            );
            // An image, unless its bars are links (an image may not hold links): then a
            // group whose drawing is hidden from assistive technology, the table below
            // carrying the same links.
            if svg.descendants().any(|n| n.tag_name().name() == "a") {
                assert_eq!(svg.attribute("role"), Some("group"), "{rel}");
                for a in svg.descendants().filter(|n| n.tag_name().name() == "a") {
                    assert!(
                        a.ancestors()
                            .any(|n| n.attribute("aria-hidden") == Some("true")),
                        "{rel}"
                    );
                    assert_eq!(a.attribute("tabindex"), Some("-1"), "{rel}");
                }
            } else {
                assert_eq!(svg.attribute("role"), Some("img"), "{rel}");
            }
            assert!(svg.attribute("viewBox").is_some());
            // Named by its own <title> and <desc>, which say something.
            let labelled: Vec<&str> = svg
                .attribute("aria-labelledby")
                .unwrap()
                .split(' ')
                .collect();
            let [title, desc] = labelled[..] else {
                panic!("{labelled:?}")
            };
            for (id, tag) in [(title, "title"), (desc, "desc")] {
                let node = svg
                    .children()
                    .find(|n| n.attribute("id") == Some(id))
                    .unwrap_or_else(|| panic!("{rel}: no #{id}"));
                assert_eq!(node.tag_name().name(), tag);
                assert!(node.text().is_some_and(|t| t.len() > 10), "{rel}: {id}");
            }
            // Theme colours only: no colour is written into the chart.
            assert!(
                !xml.contains("fill=\"#") && !xml.contains("stroke=\"#"),
                "{rel}"
            );
            assert!(!xml.contains("style="), "{rel}");
        }
    }
}

#[test]
fn a_facet_value_page_shows_a_small_chart_of_its_cases_over_time() {
    let site = SiteTest::fixture("charts");
    site.build().success();
    let branch = site.html("cases/branch/215/index.html");
    let chart = select(branch.root_element(), "figure.chart-small");
    assert_eq!(chart.len(), 1);
    let got: Vec<(String, u64)> = bars(chart[0]).into_iter().map(|b| (b.0, b.1)).collect();
    let want = [
        ("2012-11", 2),
        ("2012-12", 0),
        ("2013-01", 0),
        ("2013-02", 0),
        ("2013-03", 0),
        ("2013-04", 1),
    ];
    assert_eq!(got, want.map(|(k, c)| (k.to_string(), c)));
    // Its months sum to the value's cases.
    assert_eq!(listed_total(&branch), 3);
    // Only on the first page of the list, and not on a month's own page.
    assert!(
        select(
            site.html("cases/branch/215/page/2/index.html")
                .root_element(),
            "figure.chart"
        )
        .is_empty()
    );
    assert!(
        select(
            site.html("cases/year/2013/02/index.html").root_element(),
            "figure.chart"
        )
        .is_empty()
    );
    // A year's page charts its months.
    let year = site.html("cases/year/2013/index.html");
    let months: Vec<String> = bars(select(year.root_element(), "figure.chart-small")[0])
        .into_iter()
        .map(|b| b.0)
        .collect();
    assert_eq!(months, ["2013-02", "2013-03", "2013-04"]);
}

#[test]
fn a_chart_of_partly_synthetic_data_says_so() {
    let site = SiteTest::fixture("charts");
    site.build().success();
    let page = site.html("figures/index.html");
    for f in select(page.root_element(), "figure.chart") {
        let note = select(f, "figcaption .chart-sample");
        assert_eq!(note.len(), 1);
        assert!(
            note[0]
                .text()
                .collect::<String>()
                .contains("Includes 4 synthetic sample records.")
        );
    }
    // With every case real, there is no note.
    let real = SiteTest::fixture("charts");
    for c in ["a", "b", "c", "d"] {
        let rel = format!("content/cases/syn-{c}.md");
        let text = std::fs::read_to_string(real.root().join(&rel)).unwrap();
        std::fs::write(
            real.root().join(&rel),
            text.replace("synthetic = true", "synthetic = false"),
        )
        .unwrap();
    }
    real.build().success();
    assert!(!real.file("figures/index.html").contains("chart-sample"));
}

#[test]
fn chart_mistakes_are_build_errors_naming_the_file_and_the_fix() {
    let site = SiteTest::fixture("charts").edit(
        "content/figures.md",
        "facet = \"branch\"",
        "facet = \"brnch\"",
    );
    site.build()
        .failure(1)
        .stderr_has("content/figures.md")
        .stderr_has("chart(): facet=\"brnch\" is not a facet of the case schema (facets: `branch`, `year`, `indicator`, `status`)");
    let site = SiteTest::fixture("charts").write(
        "templates/figures.html",
        "{% extends \"base.html\" %}{% block content %}{{ chart(facte=\"branch\") }}{% endblock content %}",
    );
    site.build()
        .failure(1)
        .stderr_has("unknown argument `facte`; did you mean `facet`?")
        .stderr_has("docs/charts.md");
    let site = SiteTest::fixture("charts").write(
        "templates/figures.html",
        "{% extends \"base.html\" %}{% block content %}{{ chart(facet=\"branch\", value=\"215\") }}{% endblock content %}",
    );
    site.build()
        .failure(1)
        .stderr_has("value= goes with by= (a time series)");
    let site = SiteTest::fixture("charts").edit(
        "content/figures.md",
        "field = \"photographed\"\nby = \"month\"",
        "field = \"branch\"\nby = \"month\"",
    );
    site.build().failure(1).stderr_has(
        "field=\"branch\" is not a date field of the case schema (date fields: `photographed`)",
    );
}

#[test]
fn the_bundled_figures_page_gives_both_counts_and_mirrors_its_charts_in_arabic() {
    let site = bundled();
    site.build().success();
    for (rel, dir) in [
        ("figures/index.html", "ltr"),
        ("ar/figures/index.html", "rtl"),
    ] {
        let html = site.file(rel);
        for figure in ["55,000", "11,000", "53,275", "28,707", "6,786", "24,568"] {
            assert!(html.contains(figure), "{rel} lacks {figure}");
        }
        let page = Html::parse_document(&html);
        let charts = select(page.root_element(), "figure.chart");
        assert_eq!(charts.len(), 5, "{rel}");
        for chart in &charts {
            let svg = select(*chart, "svg")[0];
            assert_eq!(svg.value().attr("direction"), Some(dir), "{rel}");
            // Every bundled case is synthetic, and every chart says so.
            assert_eq!(
                select(*chart, ".chart-sample .badge-synthetic").len(),
                1,
                "{rel}"
            );
        }
        assert_eq!(
            select(page.root_element(), ".sample-note").len(),
            1,
            "{rel}"
        );
        // Bars start from the side the language reads from: the axis sits left of the middle
        // in English and right of it in Arabic.
        let axis: f64 = select(figure(&page, "chart-branch"), "line.chart-axis")[0]
            .value()
            .attr("x1")
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(axis < 320.0, dir == "ltr", "{rel}: axis at {axis}");
        // The same numbers in both editions.
        let branch: Vec<u64> = bars(figure(&page, "chart-branch"))
            .iter()
            .map(|b| b.1)
            .collect();
        assert_eq!(branch.iter().sum::<u64>(), 24, "{rel}");
    }
    // Four branches share the largest count.
    assert_eq!(
        texts(
            &site.html("figures/index.html"),
            "figure#chart-branch svg desc"
        ),
        [
            "Tied for the most, with 5 of 24 cases each: Sample branch S1, Sample branch S2, \
          Sample branch S3, Sample branch S4. Sample data: synthetic records, not real cases."
        ]
    );
    let ar = site.html("ar/figures/index.html");
    assert_eq!(
        texts(&ar, "figure#chart-branch .chart-title"),
        ["الفرع: عدد الحالات"]
    );
}

#[test]
fn browser_figures_page_renders_its_charts() {
    let Some(mut b) = Browser::launch("browser_figures_page_renders_its_charts") else {
        return;
    };
    let site = bundled();
    site.build().success();
    let base = serve(&site.public());
    let shots = repo_root().join("target/test-screenshots");
    for (path, shot) in [("figures/", "figures-en"), ("ar/figures/", "figures-ar")] {
        b.goto(&format!("{base}{path}"));
        // Drawn at a real size, with visible bars in the theme's accent colour.
        let width =
            b.eval("document.querySelector('#chart-branch svg').getBoundingClientRect().width");
        assert!(width.as_f64().unwrap() > 200.0, "{path}: {width}");
        let fill =
            b.eval("getComputedStyle(document.querySelector('#chart-branch .chart-mark')).fill");
        assert_eq!(fill, "rgb(122, 46, 31)", "{path}");
        b.eval("document.querySelectorAll('details.chart-data').forEach(d => d.open = true)");
        b.screenshot_full(&shots.join(format!("{shot}.png")));
    }
    // Dark mode: the bars follow the palette.
    b.call(
        "Emulation.setEmulatedMedia",
        serde_json::json!({ "features": [{ "name": "prefers-color-scheme", "value": "dark" }] }),
    );
    b.goto(&format!("{base}figures/"));
    let fill = b.eval("getComputedStyle(document.querySelector('#chart-branch .chart-mark')).fill");
    assert_eq!(fill, "rgb(229, 154, 133)");
    b.screenshot_full(&shots.join("figures-en-dark.png"));
}

#[test]
fn descriptions_state_the_main_finding_and_ties_as_ties() {
    let site = SiteTest::fixture("charts");
    site.build().success();
    let page = site.html("figures/index.html");
    let desc = |id: &str| texts(&page, &format!("figure#{id} svg desc")).join("");
    assert_eq!(
        desc("chart-branch"),
        "The most: Branch 215, with 3 of 5 cases. Includes 4 synthetic sample records."
    );
    // November 2012 and February 2013 both have 2.
    assert_eq!(
        desc("chart-photographed-month"),
        "5 cases from November 2012 to April 2013; the highest count, 2, comes 2 times. \
         Includes 4 synthetic sample records."
    );
    assert_eq!(
        desc("chart-indicator"),
        "The most: Starvation, with 3 of 5 cases. Includes 4 synthetic sample records."
    );
}

#[test]
fn a_withdrawn_case_leaves_every_chart() {
    let site = SiteTest::fixture("charts");
    site.build().success();
    let total = |site: &SiteTest, chart: &str| -> u64 {
        bars(figure(&site.html("figures/index.html"), chart))
            .iter()
            .map(|b| b.1)
            .sum()
    };
    let before = total(&site, "chart-branch");
    let site = site.edit(
        "content/cases/syn-a.md",
        "synthetic = true",
        "synthetic = true\nwithdrawn = { reason = \"family request\", date = 2026-12-01 }",
    );
    site.build().success();
    assert_eq!(total(&site, "chart-branch"), before - 1);
    // Case A had two indicators: both bars lose it.
    let page = site.html("figures/index.html");
    assert_eq!(
        nonzero(counts(&bars(figure(&page, "chart-indicator")))),
        csv_counts(&site, "indicators", None)
    );
    assert_eq!(
        nonzero(counts(&bars(figure(&page, "chart-year")))),
        csv_counts(&site, "photographed", Some("year"))
    );
    assert!(!site.file("data/cases.csv").contains("syn-a"));
}
