//! The workbench's two pages, made on the server: the queue (filtered and paged here, so
//! 55,000 photographs cost one page of rows) and the editor's frame, which
//! `workbench.js` brings to life.

use super::catalogue::{Catalogue, Row};
use crate::config::Sensitivity;
use crate::html::escape;

const PAGE_SIZE: usize = 100;

/// The interface's words, in English and Arabic; another language gets English.
fn t(lang: &str, key: &str) -> &'static str {
    let ar = lang == "ar";
    match (key, ar) {
        ("photos", false) => "Photographs",
        ("photos", true) => "الصور",
        ("reviewed_of", false) => "reviewed",
        ("reviewed_of", true) => "مُراجَعة",
        ("of", false) => "of",
        ("of", true) => "من",
        ("state", false) => "Review",
        ("state", true) => "المراجعة",
        ("all", false) => "All",
        ("all", true) => "الكل",
        ("not_reviewed", false) => "Not reviewed",
        ("not_reviewed", true) => "غير مُراجَعة",
        ("reviewed", false) => "Reviewed",
        ("reviewed", true) => "مُراجَعة",
        ("case", false) => "Case",
        ("case", true) => "الحالة",
        ("section", false) => "Section",
        ("section", true) => "القسم",
        ("file", false) => "File",
        ("file", true) => "الملف",
        ("sensitivity", false) => "Sensitivity",
        ("sensitivity", true) => "الحساسية",
        ("regions", false) => "Regions",
        ("regions", true) => "المناطق",
        ("filter", false) => "Filter",
        ("filter", true) => "تصفية",
        ("page", false) => "Page",
        ("page", true) => "الصفحة",
        ("prev_page", false) => "Previous page",
        ("prev_page", true) => "الصفحة السابقة",
        ("next_page", false) => "Next page",
        ("next_page", true) => "الصفحة التالية",
        ("none_found", false) => "No photograph matches these filters.",
        ("none_found", true) => "لا صورة تطابق هذا التصفية.",
        ("queue", false) => "Queue",
        ("queue", true) => "القائمة",
        ("previous", false) => "Previous photograph",
        ("previous", true) => "الصورة السابقة",
        ("next", false) => "Next photograph",
        ("next", true) => "الصورة التالية",
        ("source", false) => "Source (unredacted, this machine only)",
        ("source", true) => "الأصل (غير محجوب، على هذا الجهاز فقط)",
        ("published", false) => "As published",
        ("published", true) => "كما سيُنشر",
        ("photo", false) => "Photograph",
        ("photo", true) => "الصورة",
        ("in_queue", false) => "in this queue",
        ("in_queue", true) => "في هذه القائمة",
        ("workbench", false) => "Workbench",
        ("workbench", true) => "منضدة الحجب",
        ("language", false) => "Language",
        ("language", true) => "اللغة",
        ("any", false) => "Any",
        ("any", true) => "أيّ",
        (_, false) => "",
        (_, true) => "",
    }
}

fn sensitivity_name(s: Sensitivity) -> &'static str {
    match s {
        Sensitivity::None => "none",
        Sensitivity::Sensitive => "sensitive",
        Sensitivity::Graphic => "graphic",
    }
}

/// The filters a queue address carries, and the language of the interface.
pub(crate) struct Filters {
    state: String,
    case: String,
    section: String,
    sensitivity: String,
    page: usize,
    lang: String,
}

impl Filters {
    fn of(catalogue: &Catalogue, query: &[(String, String)]) -> Filters {
        let get = |k: &str| {
            query
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.trim().to_string())
                .unwrap_or_default()
        };
        let lang = get("lang");
        let lang = if catalogue.languages.contains(&lang) {
            lang
        } else {
            catalogue
                .languages
                .first()
                .cloned()
                .unwrap_or_else(|| "en".into())
        };
        Filters {
            state: get("state"),
            case: get("case"),
            section: get("section"),
            sensitivity: get("sensitivity"),
            page: get("page").parse().unwrap_or(1).max(1),
            lang,
        }
    }

    fn admits(&self, row: &Row) -> bool {
        let state = match self.state.as_str() {
            "reviewed" => row.reviewed,
            "not-reviewed" => !row.reviewed,
            _ => true,
        };
        state
            && (self.case.is_empty() || row.case.to_lowercase().contains(&self.case.to_lowercase()))
            && (self.section.is_empty() || row.section == self.section)
            && (self.sensitivity.is_empty()
                || sensitivity_name(row.sensitivity) == self.sensitivity)
    }

    /// The filters as a query string (without the page), `&`-joined and escaped for HTML.
    fn query(&self) -> String {
        let mut parts = vec![format!("lang={}", enc(&self.lang))];
        for (k, v) in [
            ("state", &self.state),
            ("case", &self.case),
            ("section", &self.section),
            ("sensitivity", &self.sensitivity),
        ] {
            if !v.is_empty() {
                parts.push(format!("{k}={}", enc(v)));
            }
        }
        parts.join("&amp;")
    }
}

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn editor_href(row: &Row, filters: &Filters) -> String {
    format!(
        "{}{}/{}?{}",
        super::PREFIX,
        crate::html::percent_encode_path(&row.dir),
        enc(&row.file),
        filters.query()
    )
}

fn head(lang: &str, title: &str) -> String {
    let dir = if lang == "ar" { "rtl" } else { "ltr" };
    format!(
        "<!doctype html><html lang=\"{lang}\" dir=\"{dir}\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<meta name=\"robots\" content=\"noindex\"><title>{} · {}</title>\
<link rel=\"stylesheet\" href=\"/__casebook/workbench.css\"></head><body>",
        escape(title),
        t(lang, "workbench")
    )
}

fn options(current: &str, values: &[(&str, &str)]) -> String {
    values
        .iter()
        .map(|(v, label)| {
            let selected = if *v == current { " selected" } else { "" };
            format!(
                "<option value=\"{}\"{selected}>{}</option>",
                escape(v),
                escape(label)
            )
        })
        .collect()
}

/// The queue: counts, filters, one page of rows.
pub(crate) fn queue(catalogue: &Catalogue, query: &[(String, String)]) -> String {
    let f = Filters::of(catalogue, query);
    let l = f.lang.as_str();
    let shown: Vec<&Row> = catalogue.rows.iter().filter(|r| f.admits(r)).collect();
    let pages = shown.len().div_ceil(PAGE_SIZE).max(1);
    let page = f.page.min(pages);
    let mut sections: Vec<&str> = catalogue.rows.iter().map(|r| r.section.as_str()).collect();
    sections.sort_unstable();
    sections.dedup();
    let mut out = head(l, t(l, "photos"));
    out += &format!(
        "<header class=\"wb-bar\"><h1>{}</h1><p id=\"wb-count\">{}</p>{}</header><main>",
        t(l, "photos"),
        reviewed_of(catalogue, l),
        languages(catalogue, &f)
    );
    let section_options: Vec<(&str, &str)> = std::iter::once(("", t(l, "all")))
        .chain(sections.iter().filter(|s| !s.is_empty()).map(|s| (*s, *s)))
        .collect();
    out += &format!(
        "<form class=\"wb-filters\" method=\"get\" action=\"{}\"><input type=\"hidden\" name=\"lang\" value=\"{}\">\
<label>{} <select name=\"state\">{}</select></label>\
<label>{} <input name=\"case\" value=\"{}\" size=\"12\"></label>\
<label>{} <select name=\"section\">{}</select></label>\
<label>{} <select name=\"sensitivity\">{}</select></label>\
<button type=\"submit\">{}</button></form>",
        super::PREFIX,
        escape(l),
        t(l, "state"),
        options(
            &f.state,
            &[
                ("", t(l, "all")),
                ("not-reviewed", t(l, "not_reviewed")),
                ("reviewed", t(l, "reviewed"))
            ]
        ),
        t(l, "case"),
        escape(&f.case),
        t(l, "section"),
        options(&f.section, &section_options),
        t(l, "sensitivity"),
        options(
            &f.sensitivity,
            &[
                ("", t(l, "any")),
                ("none", "none"),
                ("sensitive", "sensitive"),
                ("graphic", "graphic")
            ]
        ),
        t(l, "filter"),
    );
    if shown.is_empty() {
        out += &format!("<p>{}</p>", t(l, "none_found"));
    } else {
        out += &format!(
            "<div class=\"wb-scroll\" tabindex=\"0\" role=\"region\" aria-labelledby=\"wb-queue-caption\"><table class=\"wb-queue\"><caption id=\"wb-queue-caption\">{} {page} {} {pages} ({})</caption><thead><tr>\
<th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th>\
<th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead><tbody>",
            t(l, "page"),
            t(l, "of"),
            shown.len(),
            t(l, "case"),
            t(l, "file"),
            t(l, "section"),
            t(l, "sensitivity"),
            t(l, "regions"),
            t(l, "state"),
        );
        for row in shown.iter().skip((page - 1) * PAGE_SIZE).take(PAGE_SIZE) {
            let state = if row.reviewed {
                "reviewed"
            } else {
                "not_reviewed"
            };
            out += &format!(
                "<tr data-state=\"{}\"><td>{}</td><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                state.replace('_', "-"),
                escape(&row.case),
                editor_href(row, &f),
                escape(&row.file),
                escape(&row.section),
                sensitivity_name(row.sensitivity),
                row.regions.len(),
                t(l, state)
            );
        }
        out += "</tbody></table></div>";
        out += "<nav class=\"wb-pages\">";
        let at = |p: usize| format!("{}?{}&amp;page={p}", super::PREFIX, f.query());
        if page > 1 {
            out += &format!(
                "<a rel=\"prev\" href=\"{}\">{}</a> ",
                at(page - 1),
                t(l, "prev_page")
            );
        }
        if page < pages {
            out += &format!(
                "<a rel=\"next\" href=\"{}\">{}</a>",
                at(page + 1),
                t(l, "next_page")
            );
        }
        out += "</nav>";
    }
    out += "</main></body></html>";
    out
}

fn languages(catalogue: &Catalogue, f: &Filters) -> String {
    if catalogue.languages.len() < 2 {
        return String::new();
    }
    let links: Vec<String> = catalogue
        .languages
        .iter()
        .map(|code| {
            let current = if *code == f.lang {
                " aria-current=\"true\""
            } else {
                ""
            };
            format!(
                "<a href=\"{}?lang={}\" lang=\"{code}\"{current}>{code}</a>",
                super::PREFIX,
                enc(code)
            )
        })
        .collect();
    format!(
        "<nav class=\"wb-langs\" aria-label=\"{}\">{}</nav>",
        t(&f.lang, "language"),
        links.join(" ")
    )
}

/// The editor's frame for row `i`: the photograph's data for `workbench.js`, the queue's
/// neighbours, the token.
pub(crate) fn editor(
    catalogue: &Catalogue,
    i: usize,
    token: &str,
    query: &[(String, String)],
) -> String {
    let f = Filters::of(catalogue, query);
    let l = f.lang.as_str();
    let row = &catalogue.rows[i];
    let order: Vec<usize> = (0..catalogue.rows.len())
        .filter(|&j| f.admits(&catalogue.rows[j]))
        .collect();
    let at = order.iter().position(|&j| j == i);
    let neighbour = |step: isize| {
        at.and_then(|a| a.checked_add_signed(step))
            .and_then(|a| order.get(a))
            .map(|&j| editor_href(&catalogue.rows[j], &f))
    };
    let (text, sha256) = super::save::file_text_and_sha256(&row.page);
    let data = serde_json::json!({
        "dir": row.dir,
        "file": row.file,
        "case": row.case,
        "page": row.page_display,
        "url": row.url,
        "sensitivity": sensitivity_name(row.sensitivity),
        "regions": row.regions,
        "alt": row.alt,
        "caption": row.caption,
        "reviewed": row.reviewed,
        "lang": l,
        "widths": catalogue.config.as_ref().map(|c| c.images.widths.clone()).unwrap_or_default(),
        "sha256": sha256,
        "text": text,
        "translations": row.translations.iter().map(|t| {
            let (text, sha256) = super::save::file_text_and_sha256(&t.page);
            serde_json::json!({
                "lang": t.lang,
                "alt": t.alt,
                "caption": t.caption,
                "sha256": sha256,
                "text": text,
            })
        }).collect::<Vec<_>>(),
    });
    // `</` cannot end the script element early.
    let data = data.to_string().replace("</", "<\\/");
    let mut out = head(l, &format!("{} · {}", row.case, row.file));
    out = out.replace(
        "</head>",
        &format!("<meta name=\"casebook-token\" content=\"{}\"><script src=\"/__casebook/workbench.js\" defer></script></head>", escape(token)),
    );
    let nav = |href: Option<String>, rel: &str, key: &str| match href {
        Some(h) => format!(
            "<a rel=\"{rel}\" id=\"wb-{rel}\" href=\"{h}\">{}</a>",
            t(l, key)
        ),
        None => String::new(),
    };
    out += &format!(
        "<header class=\"wb-bar\"><a href=\"{}?{}\">{}</a> {} {} <h1>{} · {}</h1>{}</header>\
<main id=\"wb-editor\"><script type=\"application/json\" id=\"wb-data\">{data}</script>\
<div class=\"wb-panes\"><figure class=\"wb-pane\"><figcaption>{}</figcaption><div id=\"wb-stage\" class=\"wb-stage\">\
<img id=\"wb-source\" alt=\"\" src=\"/__casebook/source/{}/{}?w=1600\"></div></figure>\
<figure class=\"wb-pane\"><figcaption>{}</figcaption><img id=\"wb-preview\" alt=\"\"></figure></div>\
<div id=\"wb-tools\"></div><p id=\"wb-announce\" class=\"wb-announce\" aria-live=\"polite\"></p></main></body></html>",
        super::PREFIX,
        f.query(),
        t(l, "queue"),
        nav(neighbour(-1), "prev", "previous"),
        nav(neighbour(1), "next", "next"),
        escape(&row.case),
        escape(&row.file),
        counts(catalogue, l, at.map(|a| (a + 1, order.len()))),
        t(l, "source"),
        crate::html::percent_encode_path(&row.dir),
        enc(&row.file),
        t(l, "published"),
    );
    out
}

/// Where the editor is in the queue, and how much of the site is reviewed: "Photograph 17 of
/// 312 in this queue · 312 of 55,000 reviewed".
fn counts(catalogue: &Catalogue, l: &str, position: Option<(usize, usize)>) -> String {
    let mut out = String::from("<p class=\"wb-counts\" id=\"wb-counts\">");
    if let Some((at, of)) = position {
        out += &format!(
            "{} {} {} {} {} · ",
            t(l, "photo"),
            at,
            t(l, "of"),
            of,
            t(l, "in_queue")
        );
    }
    out += &reviewed_of(catalogue, l);
    out += "</p>";
    out
}

/// "312 of 55000 reviewed": the queue's count and the editor's.
fn reviewed_of(catalogue: &Catalogue, l: &str) -> String {
    let reviewed = catalogue.rows.iter().filter(|r| r.reviewed).count();
    format!(
        "{reviewed} {} {} {}",
        t(l, "of"),
        catalogue.rows.len(),
        t(l, "reviewed_of")
    )
}
