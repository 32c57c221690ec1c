//! Drawing: a [`Chart`] (plain data) -> one `<figure>` of inline SVG plus its data table.
//!
//! Layout is computed in left-to-right coordinates and mirrored for right-to-left pages;
//! text anchors stay logical (`start`/`end`) and the SVG declares its `direction`, so the
//! same anchors put labels on the correct side in both. Colours are CSS classes only, so
//! the theme's palette, dark mode and print styles apply. Numbers are rounded to 0.1 so
//! the bytes are the same on every machine.

use std::fmt::Write;

use crate::html::escape as esc;
use crate::locale::Digits;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Horizontal bars, one row per category, labels beside them.
    Bar,
    /// Vertical columns along a time axis.
    Column,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bar {
    /// The value's key (`215`, `2013-05`), kept in `data-key` for tests and scripts.
    pub(crate) key: String,
    pub(crate) label: String,
    /// A label under the time axis at this column (the year, at its first month).
    pub(crate) tick: Option<String>,
    pub(crate) count: u64,
    /// The page listing exactly the cases this bar counts.
    pub(crate) href: Option<String>,
}

/// The texts a chart shows besides its data, in the page's language.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Texts {
    /// The heading of the table's first column (`Branch`, `Month`).
    pub(crate) category: String,
    /// The heading of the counts column.
    pub(crate) count: String,
    /// The `<summary>` that opens the table.
    pub(crate) table: String,
    /// Shown instead of bars when there is nothing to count.
    pub(crate) empty: String,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chart {
    /// Unique within the page; the title, description and table are named after it.
    pub(crate) id: String,
    pub(crate) kind: Kind,
    pub(crate) title: String,
    /// The main finding in one or two sentences, for `<desc>` and the caption.
    pub(crate) desc: String,
    pub(crate) bars: Vec<Bar>,
    pub(crate) rtl: bool,
    /// The compact form for a sidebar or a list page's header.
    pub(crate) small: bool,
    pub(crate) digits: Digits,
    pub(crate) texts: Texts,
    /// Set when the data includes synthetic sample records: (badge, note).
    pub(crate) sample: Option<(String, String)>,
}

const WIDTH: f64 = 640.0;
const FONT: f64 = 13.0;
/// An average glyph's advance at `FONT`, for sizing label columns without font metrics.
const GLYPH: f64 = 7.4;

impl Chart {
    pub(crate) fn total(&self) -> u64 {
        self.bars.iter().map(|b| b.count).sum()
    }

    /// The whole `<figure>`: caption, SVG and the data table.
    pub(crate) fn to_html(&self) -> String {
        let mut out = String::with_capacity(2048 + self.bars.len() * 300);
        let kind = match self.kind {
            Kind::Bar => "chart-bar",
            Kind::Column => "chart-column",
        };
        let size = if self.small { " chart-small" } else { "" };
        let empty = if self.total() == 0 {
            " chart-empty"
        } else {
            ""
        };
        let _ = write!(
            out,
            r#"<figure class="chart {kind}{size}{empty}" id="{id}"><figcaption class="chart-caption"><span class="chart-title">{title}</span> <span class="chart-desc">{desc}</span>"#,
            id = esc(&self.id),
            title = esc(&self.title),
            desc = esc(&self.desc),
        );
        if let Some((badge, note)) = &self.sample {
            let _ = write!(
                out,
                r#" <span class="chart-sample"><span class="badge badge-synthetic">{}</span> {}</span>"#,
                esc(badge),
                esc(note)
            );
        }
        out.push_str("</figcaption>");
        out.push_str(&self.svg());
        self.table(&mut out);
        out.push_str("</figure>");
        out
    }

    /// The SVG alone, named by its `<title>` and described by its `<desc>`: `role="img"`,
    /// or, when bars link to their pages, `role="group"` with the drawing hidden from
    /// assistive technology (an image may not hold links). The links are for pointer users;
    /// keyboard and screen-reader users get the same links in the table, so the bars' links
    /// stay out of the tab order.
    pub(crate) fn svg(&self) -> String {
        let (height, body) = if self.total() == 0 {
            self.draw_empty()
        } else {
            match self.kind {
                Kind::Bar => self.draw_bars(),
                Kind::Column => self.draw_columns(),
            }
        };
        let id = esc(&self.id);
        let desc = match &self.sample {
            Some((_, note)) => format!("{} {note}", self.desc),
            None => self.desc.clone(),
        };
        let (role, body) = if body.contains("<a ") {
            ("group", format!(r#"<g aria-hidden="true">{body}</g>"#))
        } else {
            ("img", body)
        };
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart-svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="{role}" aria-labelledby="{id}-title {id}-desc" direction="{dir}" font-size="{FONT}"><title id="{id}-title">{title}</title><desc id="{id}-desc">{desc}</desc>{body}</svg>"#,
            w = num(self.width()),
            h = num(height),
            dir = if self.rtl { "rtl" } else { "ltr" },
            title = esc(&self.title),
            desc = esc(&desc),
        )
    }

    fn width(&self) -> f64 {
        if self.small { WIDTH / 2.0 } else { WIDTH }
    }

    /// An x coordinate (or a box's left edge, given its width) on this chart's side.
    fn x(&self, x: f64, w: f64) -> f64 {
        if self.rtl { self.width() - x - w } else { x }
    }

    fn n(&self, count: u64) -> String {
        self.digits.apply(&count.to_string())
    }

    fn draw_empty(&self) -> (f64, String) {
        let h = if self.small { 48.0 } else { 72.0 };
        let mut out = String::new();
        let _ = write!(
            out,
            r#"<line class="chart-axis" x1="0" y1="{b}" x2="{w}" y2="{b}"/><text class="chart-note" x="{mid}" y="{y}" text-anchor="middle">{text}</text>"#,
            b = num(h - 8.0),
            w = num(self.width()),
            mid = num(self.width() / 2.0),
            y = num(h / 2.0),
            text = esc(&self.texts.empty),
        );
        (h, out)
    }

    fn draw_bars(&self) -> (f64, String) {
        let row = if self.small { 22.0 } else { 28.0 };
        let thick = row * 0.64;
        let pad = 6.0;
        let longest = self
            .bars
            .iter()
            .map(|b| b.label.chars().count())
            .max()
            .unwrap_or(0);
        let label_w = (longest as f64 * GLYPH + 8.0).clamp(48.0, self.width() * 0.42);
        let widest_count = self
            .bars
            .iter()
            .map(|b| b.count.to_string().len())
            .max()
            .unwrap_or(1);
        let value_w = widest_count as f64 * 8.0 + 10.0;
        let start = label_w + 6.0;
        let room = (self.width() - start - value_w).max(10.0);
        let max = self.bars.iter().map(|b| b.count).max().unwrap_or(0).max(1) as f64;
        let height = pad * 2.0 + row * self.bars.len() as f64;
        let mut out = String::new();
        let _ = write!(
            out,
            r#"<line class="chart-axis" x1="{x}" y1="{pad}" x2="{x}" y2="{y2}"/>"#,
            x = num(self.x(start, 0.0)),
            y2 = num(height - pad),
        );
        for (i, bar) in self.bars.iter().enumerate() {
            let top = pad + row * i as f64;
            let len = bar.count as f64 / max * room;
            let mid = top + row / 2.0;
            let mut g = String::new();
            let _ = write!(
                g,
                r#"<rect class="chart-mark" x="{x}" y="{y}" width="{w}" height="{h}"/><text class="chart-label" x="{lx}" y="{ty}" text-anchor="end" dominant-baseline="middle">{label}</text><text class="chart-value" x="{vx}" y="{ty}" text-anchor="start" dominant-baseline="middle">{value}</text>"#,
                x = num(self.x(start, len)),
                y = num(mid - thick / 2.0),
                w = num(len),
                h = num(thick),
                lx = num(self.x(label_w, 0.0)),
                ty = num(mid),
                label = esc(&bar.label),
                vx = num(self.x(start + len + 4.0, 0.0)),
                value = self.n(bar.count),
            );
            self.mark(&mut out, bar, &g);
        }
        (height, out)
    }

    fn draw_columns(&self) -> (f64, String) {
        let (height, axis_w, bottom, top) = if self.small {
            (120.0, 28.0, 20.0, 8.0)
        } else {
            (240.0, 40.0, 26.0, 12.0)
        };
        let plot_left = axis_w;
        let plot_w = self.width() - axis_w - 6.0;
        let base = height - bottom;
        let plot_h = base - top;
        let max = self.bars.iter().map(|b| b.count).max().unwrap_or(0);
        let (step, ceiling) = nice_scale(max, if self.small { 2 } else { 4 });
        let mut out = String::new();
        // Grid lines and their values, from zero up.
        let mut tick = 0;
        while tick <= ceiling {
            let y = base - tick as f64 / ceiling as f64 * plot_h;
            let class = if tick == 0 {
                "chart-axis"
            } else {
                "chart-grid"
            };
            let _ = write!(
                out,
                r#"<line class="{class}" x1="{x1}" y1="{y}" x2="{x2}" y2="{y}"/><text class="chart-tick" x="{tx}" y="{y}" text-anchor="end" dominant-baseline="middle">{value}</text>"#,
                x1 = num(self.x(plot_left, 0.0)),
                x2 = num(self.x(plot_left + plot_w, 0.0)),
                y = num(y),
                tx = num(self.x(plot_left - 4.0, 0.0)),
                value = self.n(tick),
            );
            tick += step;
        }
        let slot = plot_w / self.bars.len().max(1) as f64;
        let w = (slot * 0.8).max(1.0);
        let show_values = !self.small && self.bars.len() <= 16;
        let mut next_tick = 0.0;
        for (i, bar) in self.bars.iter().enumerate() {
            let left = plot_left + slot * i as f64;
            let h = bar.count as f64 / ceiling as f64 * plot_h;
            let mut g = String::new();
            if bar.href.is_some() {
                // The whole slot answers a tap, not only a short column.
                let _ = write!(
                    g,
                    r#"<rect class="chart-hit" x="{x}" y="{top}" width="{w}" height="{h}"/>"#,
                    x = num(self.x(left, slot)),
                    top = num(top),
                    w = num(slot),
                    h = num(plot_h),
                );
            }
            let _ = write!(
                g,
                r#"<rect class="chart-mark" x="{x}" y="{y}" width="{w}" height="{h}"/>"#,
                x = num(self.x(left + (slot - w) / 2.0, w)),
                y = num(base - h),
                w = num(w),
                h = num(h),
            );
            if show_values {
                let _ = write!(
                    g,
                    r#"<text class="chart-value" x="{x}" y="{y}" text-anchor="middle">{v}</text>"#,
                    x = num(self.x(left + slot / 2.0, 0.0)),
                    y = num(base - h - 4.0),
                    v = self.n(bar.count),
                );
            }
            // A tick label that would run into the previous one is left out (the table and
            // the tooltips still name every column).
            let tick = bar.tick.as_ref().filter(|label| {
                let fits = left >= next_tick;
                if fits {
                    next_tick = left + label.chars().count() as f64 * GLYPH + 8.0;
                }
                fits
            });
            if let Some(label) = tick {
                let _ = write!(
                    g,
                    r#"<line class="chart-axis" x1="{x}" y1="{base}" x2="{x}" y2="{b2}"/><text class="chart-tick" x="{x}" y="{ty}" text-anchor="start">{label}</text>"#,
                    x = num(self.x(left, 0.0)),
                    base = num(base),
                    b2 = num(base + 4.0),
                    ty = num(base + if self.small { 14.0 } else { 17.0 }),
                    label = esc(&self.digits.apply(label)),
                );
            }
            self.mark(&mut out, bar, &g);
        }
        (height, out)
    }

    /// One bar's group: its key and count as data, a tooltip, and its link.
    fn mark(&self, out: &mut String, bar: &Bar, inner: &str) {
        let _ = write!(
            out,
            r#"<g class="chart-item" data-key="{key}" data-count="{count}">"#,
            key = esc(&bar.key),
            count = bar.count,
        );
        let tooltip = format!(
            "<title>{}: {}</title>",
            esc(&self.bar_label(bar)),
            self.n(bar.count)
        );
        match &bar.href {
            Some(href) => {
                let _ = write!(
                    out,
                    r#"<a href="{href}" tabindex="-1">{tooltip}{inner}</a>"#,
                    href = esc(href)
                );
            }
            None => {
                out.push_str(&tooltip);
                out.push_str(inner);
            }
        }
        out.push_str("</g>");
    }

    fn bar_label(&self, bar: &Bar) -> String {
        match self.kind {
            Kind::Bar => bar.label.clone(),
            Kind::Column => self.digits.apply(&bar.label),
        }
    }

    /// The exact numbers, every bar a row (zero rows included), each linking its page.
    fn table(&self, out: &mut String) {
        if self.bars.is_empty() {
            return;
        }
        let _ = write!(
            out,
            r#"<details class="chart-data"><summary>{summary}</summary><table class="chart-table"><caption>{title}</caption><thead><tr><th scope="col">{category}</th><th scope="col" class="num">{count}</th></tr></thead><tbody>"#,
            summary = esc(&self.texts.table),
            title = esc(&self.title),
            category = esc(&self.texts.category),
            count = esc(&self.texts.count),
        );
        for bar in &self.bars {
            let label = esc(&self.bar_label(bar));
            let _ = write!(out, r#"<tr data-key="{}"><th scope="row">"#, esc(&bar.key));
            match &bar.href {
                Some(href) => {
                    let _ = write!(out, r#"<a href="{}"><bdi>{label}</bdi></a>"#, esc(href));
                }
                None => {
                    let _ = write!(out, "<bdi>{label}</bdi>");
                }
            }
            let _ = write!(
                out,
                r#"</th><td class="num">{}</td></tr>"#,
                self.n(bar.count)
            );
        }
        out.push_str("</tbody></table></details>");
    }
}

/// A step of 1, 2 or 5 times a power of ten giving at most `lines` grid lines above zero,
/// and the top of the scale (a multiple of the step, at least `max`).
fn nice_scale(max: u64, lines: u64) -> (u64, u64) {
    let max = max.max(1);
    let mut magnitude = 1;
    loop {
        for factor in [1, 2, 5] {
            let step = factor * magnitude;
            let ceiling = max.div_ceil(step) * step;
            if ceiling / step <= lines {
                return (step, ceiling);
            }
        }
        magnitude *= 10;
    }
}

/// A coordinate with at most one decimal, without a trailing `.0`.
fn num(v: f64) -> String {
    let tenths = (v * 10.0).round() as i64;
    if tenths % 10 == 0 {
        (tenths / 10).to_string()
    } else {
        format!("{}.{}", tenths / 10, (tenths % 10).abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(kind: Kind, counts: &[u64]) -> Chart {
        Chart {
            id: "c".into(),
            kind,
            title: "Cases & more".into(),
            desc: "A finding.".into(),
            bars: counts
                .iter()
                .enumerate()
                .map(|(i, &count)| Bar {
                    key: format!("k{i}"),
                    label: format!("Label {i}"),
                    tick: (i == 0).then(|| "2013".into()),
                    count,
                    href: (count > 0).then(|| format!("/v/{i}/")),
                })
                .collect(),
            rtl: false,
            small: false,
            digits: Digits::Latin,
            texts: Texts {
                category: "Value".into(),
                count: "Cases".into(),
                table: "Numbers".into(),
                empty: "Nothing yet".into(),
            },
            sample: None,
        }
    }

    #[test]
    fn scales_are_round_and_cover_the_maximum() {
        assert_eq!(nice_scale(0, 4), (1, 1));
        assert_eq!(nice_scale(3, 4), (1, 3));
        assert_eq!(nice_scale(9, 4), (5, 10));
        assert_eq!(nice_scale(17, 4), (5, 20));
        assert_eq!(nice_scale(301, 4), (100, 400));
        assert_eq!(nice_scale(1_000, 2), (500, 1_000));
    }

    #[test]
    fn coordinates_are_short_and_stable() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(12.345), "12.3");
        assert_eq!(num(0.04), "0");
        assert_eq!(num(-1.25), "-1.3");
    }

    #[test]
    fn right_to_left_mirrors_marks_but_keeps_logical_anchors() {
        let ltr = chart(Kind::Bar, &[4, 2]);
        let rtl = Chart {
            rtl: true,
            ..ltr.clone()
        };
        let (a, b) = (ltr.svg(), rtl.svg());
        assert!(a.contains(r#"direction="ltr""#) && b.contains(r#"direction="rtl""#));
        // The axis sits at the label column's edge, on the other side.
        let axis = |s: &str| -> f64 {
            let rest = s.split(r#"class="chart-axis" x1=""#).nth(1).unwrap();
            rest.split('"').next().unwrap().parse().unwrap()
        };
        assert_eq!(axis(&a) + axis(&b), WIDTH);
        assert_eq!(
            a.matches("text-anchor=\"end\"").count(),
            b.matches("text-anchor=\"end\"").count()
        );
    }

    #[test]
    fn crowded_tick_labels_are_thinned() {
        let mut c = chart(Kind::Column, &[1; 40]);
        for bar in &mut c.bars {
            bar.tick = Some("Label that is long".into());
        }
        let svg = c.svg();
        let shown = svg.matches(">Label that is long</text>").count();
        // 40 columns of 14.8 units; each label needs about 134.
        assert!((3..=5).contains(&shown), "{shown}");
    }

    #[test]
    fn nothing_to_count_draws_a_note_and_no_marks() {
        let svg = chart(Kind::Column, &[0, 0, 0]).to_html();
        assert!(svg.contains("chart-empty") && svg.contains("Nothing yet"));
        assert!(!svg.contains("chart-mark"));
        // The table still says which values were counted.
        assert_eq!(svg.matches("<tr data-key").count(), 3);
    }

    #[test]
    fn text_is_escaped_and_zero_bars_have_rows_but_no_link() {
        let html = chart(Kind::Column, &[2, 0, 5]).to_html();
        assert!(html.contains("Cases &amp; more") && !html.contains("Cases & more"));
        assert!(html.contains(r#"data-key="k1" data-count="0""#));
        assert_eq!(html.matches(r#"<a href="/v/"#).count(), 4);
        assert!(!html.contains("/v/1/"));
    }
}
