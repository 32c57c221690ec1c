//! The page every page of the preview becomes while the last rebuild failed: the
//! diagnostics, located, with their hints.

use crate::error::Diagnostic;

use super::LIVE_TAG;

/// The page shown instead of the site while the last rebuild failed.
pub(super) fn page(errors: &[Diagnostic]) -> String {
    let esc = crate::html::escape;
    let mut items = String::new();
    for d in errors {
        let mut place = d.path.display().to_string();
        if d.line > 0 {
            place.push_str(&format!(":{}", d.line));
            if d.column > 0 {
                place.push_str(&format!(":{}", d.column));
            }
        }
        items.push_str(&format!(
            "<li><p><code class=\"place\">{}</code>",
            esc(&place)
        ));
        if let Some(field) = &d.field {
            items.push_str(&format!(
                " <span class=\"field\">field <code>{}</code></span>",
                esc(field)
            ));
        }
        items.push_str(&format!("</p><p class=\"message\">{}</p>", esc(&d.message)));
        if let Some(hint) = &d.hint {
            items.push_str(&format!(
                "<p class=\"hint\">How to fix it: {}</p>",
                esc(hint)
            ));
        }
        items.push_str("</li>");
    }
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>Build failed · casebook serve</title><style>{}</style></head><body>\
<main id=\"casebook-errors\"><h1>The site did not build</h1>\
<p>{} problem{} below. Fix {} and save: this page reloads by itself. \
The published site is not affected.</p><ol>{items}</ol></main>{LIVE_TAG}</body></html>",
        OVERLAY_CSS,
        errors.len(),
        if errors.len() == 1 { " is" } else { "s are" },
        if errors.len() == 1 { "it" } else { "them" },
    )
}

const OVERLAY_CSS: &str = "body{font:1rem/1.5 system-ui,sans-serif;margin:0;background:#fff;color:#1a1a1a}\
main{max-width:48rem;margin:2rem auto;padding:0 1rem}h1{color:#a4161a}\
li{border-inline-start:4px solid #a4161a;padding-inline-start:.75rem;margin-block:1rem}\
li p{margin:.2rem 0}.place{font-weight:bold}.hint{color:#3b3b3b}\
@media (prefers-color-scheme:dark){body{background:#161616;color:#eee}h1{color:#ff8a8a}\
li{border-color:#ff8a8a}.hint{color:#ccc}}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlay_escapes_and_locates() {
        let d = Diagnostic::new("content/cases/x/index.md", "bad <value>")
            .at(3, 1)
            .field("date")
            .hint("write a date");
        let html = page(&[d]);
        assert!(html.contains("content/cases/x/index.md:3:1"));
        assert!(html.contains("bad &lt;value&gt;"));
        assert!(html.contains("<code>date</code>"));
        assert!(html.contains(LIVE_TAG));
    }
}
