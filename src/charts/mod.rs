//! Charts of the case records, drawn at build time as inline SVG: the `chart()` template
//! function.
//!
//! ```text
//! {{ chart(facet="branch") }}                                  cases per branch (bars)
//! {{ chart(field="photographed", by="month") }}                cases per month (columns)
//! {{ chart(by="month", facet=facet.name, value=value.value, size="small") }}
//!                                         one facet value's cases per month of the first
//!                                         date field (what facet_value.html shows)
//! ```
//!
//! Every bar links to the facet page listing the cases it counts, and the exact numbers sit
//! in a table beside the chart. The data comes from the page context (`facets`,
//! `chart_data`), so a chart always agrees with the facet pages of the same build.
//!
//! **Why our own SVG and not a charting crate.** plotters (the established choice) draws
//! through a backend that emits one presentation-attributed element per primitive, with
//! fixed colours and fonts, absolute pixel sizes and no `role`, `<title>`/`<desc>`,
//! links or right-to-left layout; getting theme colours, dark mode, links and
//! accessible names out of it would mean post-processing its output. The two chart forms
//! an archive needs (counted categories, counts over time) are a few hundred lines here,
//! with CSS classes instead of colours, `viewBox` scaling, a mirrored layout for Arabic and
//! byte-stable numbers.

pub(crate) mod svg;

use tera::{Kwargs, State, Tera, TeraResult, Value};

use crate::error::did_you_mean;
use crate::locale::Digits;
use svg::{Bar, Chart, Kind, Texts};

const ARGUMENTS: &[&str] = &[
    "facet", "field", "by", "value", "kind", "title", "id", "size",
];

/// Adds `chart()` to the theme's templates.
pub(crate) fn register(tera: &mut Tera) {
    tera.register_function("chart", ChartFunction);
}

struct ChartFunction;

impl tera::Function<TeraResult<Value>> for ChartFunction {
    fn call(&self, kwargs: Kwargs, state: &State) -> TeraResult<Value> {
        let html = chart(&kwargs, state)?
            .map(|c| c.to_html())
            .unwrap_or_default();
        Ok(Value::safe_string(&html))
    }

    fn is_safe(&self) -> bool {
        true
    }
}

fn fail(message: String) -> tera::Error {
    tera::Error::message(format!("chart(): {message}"))
}

/// The chart a call asks for, from the page's context.
fn chart(kwargs: &Kwargs, state: &State) -> TeraResult<Option<Chart>> {
    for (key, _) in kwargs.iter() {
        let key = key.to_string();
        if !ARGUMENTS.contains(&key.as_str()) {
            let hint = did_you_mean(&key, ARGUMENTS.iter().copied())
                .map_or_else(String::new, |s| format!("; {s}"));
            return Err(fail(format!(
                "unknown argument `{key}`{hint} (it takes {})",
                ARGUMENTS.join(", ")
            )));
        }
    }
    let arg = |name: &str| -> TeraResult<Option<String>> {
        Ok(kwargs
            .get::<Value>(name)?
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)))
    };
    let (facet, field, by) = (arg("facet")?, arg("field")?, arg("by")?);
    let (value, kind, title, id) = (arg("value")?, arg("kind")?, arg("title")?, arg("id")?);
    let small = match arg("size")?.as_deref() {
        None | Some("normal") => false,
        Some("small") => true,
        Some(other) => {
            return Err(fail(format!(
                "size=\"{other}\": use \"small\" or \"normal\""
            )));
        }
    };
    let t = state.get::<Value>("t")?.unwrap_or_else(Value::none);
    let text = |key: &str| -> String {
        t.get_from_path(key)
            .and_then(Value::as_str)
            .unwrap_or(key)
            .to_string()
    };
    let digits = state
        .get::<String>("digits")?
        .and_then(|d| Digits::parse(&d))
        .unwrap_or_default();
    let rtl = state.get::<String>("dir")?.as_deref() == Some("rtl");
    let n = |count: u64| digits.apply(&count.to_string());
    let data = state
        .get::<Value>("chart_data")?
        .unwrap_or_else(Value::none);
    let data_count = |key: &str| member(&data, key).and_then(Value::as_u64).unwrap_or(0);

    // A time series may leave the field to the schema (its first date field); with no date
    // field at all there is nothing to draw, which lets a theme chart time on every site.
    let field = match (field, &by) {
        (None, Some(_)) => match member(&data, "default_field").and_then(Value::as_str) {
            Some(f) => Some(f.to_string()),
            None => return Ok(None),
        },
        (field, _) => field,
    };
    let (bars, default_kind, title_default, category, default_id) = match (&field, &facet) {
        (Some(field), _) => {
            let by = by.as_deref().unwrap_or("month");
            let within = match (&facet, &value) {
                (Some(f), Some(v)) => Some((f.as_str(), v.as_str())),
                (None, None) => None,
                _ => {
                    return Err(fail(
                        "with field=, give both facet= and value= to chart one value's cases"
                            .into(),
                    ));
                }
            };
            let (bars, label) = time_bars(&data, field, by, within)?;
            let (title_key, category) = match by {
                "month" => ("chart_month_title", "chart_month"),
                _ => ("chart_year_title", "chart_year"),
            };
            let mut id = format!("chart-{field}-{by}");
            if let Some((f, v)) = within {
                id = format!("{id}-{f}-{v}");
            }
            let title = text(title_key).replace("{label}", &label);
            (bars, Kind::Column, title, text(category), id)
        }
        (None, Some(facet)) => {
            if value.is_some() {
                return Err(fail(
                    "value= goes with by= (a time series); a facet chart takes facet= alone".into(),
                ));
            }
            let (bars, label) = facet_bars(state, facet)?;
            let title = text("chart_count_title").replace("{label}", &label);
            (bars, Kind::Bar, title, label, format!("chart-{facet}"))
        }
        (None, None) => {
            return Err(fail(
                "say what to count: facet=\"branch\", or field=\"photographed\" with by=\"month\""
                    .into(),
            ));
        }
    };
    let kind = match kind.as_deref() {
        None => default_kind,
        Some("bar") => Kind::Bar,
        Some("column") => Kind::Column,
        Some(other) => return Err(fail(format!("kind=\"{other}\": use \"bar\" or \"column\""))),
    };
    let (cases, synthetic) = (data_count("cases"), data_count("synthetic"));
    let sample = (synthetic > 0).then(|| {
        let note = if synthetic == cases {
            text("chart_sample_note")
        } else {
            text("chart_sample_some").replace("{n}", &n(synthetic))
        };
        (text("synthetic_badge"), note)
    });
    let mut chart = Chart {
        id: id.unwrap_or(default_id),
        kind,
        title: title.unwrap_or(title_default),
        desc: String::new(),
        bars,
        rtl,
        small,
        digits,
        texts: Texts {
            category,
            count: text("facet_count"),
            table: text("chart_table"),
            empty: text("chart_empty"),
        },
        sample,
    };
    chart.desc = finding(&chart, field.is_some(), cases, &text, &n);
    Ok(Some(chart))
}

/// A date field's cases per month or year (within one facet value, if given), and the
/// field's label.
fn time_bars(
    data: &Value,
    field: &str,
    by: &str,
    within: Option<(&str, &str)>,
) -> TeraResult<(Vec<Bar>, String)> {
    if by != "month" && by != "year" {
        return Err(fail(format!("by=\"{by}\": use \"month\" or \"year\"")));
    }
    let dates = member(data, "dates");
    let Some(timeline) = dates.and_then(|d| member(d, field)) else {
        let known = dates.and_then(Value::as_map).map(|m| {
            m.keys()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect()
        });
        return Err(fail(format!(
            "field=\"{field}\" is not a date field of the case schema (date fields: {})",
            listing(known.unwrap_or_default())
        )));
    };
    let series = match within {
        Some((f, v)) => {
            let values = member(timeline, "within")
                .and_then(|w| member(w, f))
                .ok_or_else(|| fail(format!("facet=\"{f}\" is not a facet of the case schema")))?;
            // A value without cases has no series: an empty chart.
            member(values, v)
        }
        None => Some(timeline),
    };
    let bars = series
        .and_then(|s| member(s, by))
        .and_then(Value::as_array)
        .unwrap_or(&[])
        .iter()
        .map(|b| Bar {
            key: string(b, "key"),
            label: string(b, "label"),
            tick: member(b, "tick")
                .and_then(Value::as_str)
                .map(str::to_string),
            count: member(b, "count").and_then(Value::as_u64).unwrap_or(0),
            href: member(b, "path")
                .and_then(Value::as_str)
                .map(str::to_string),
        })
        .collect();
    Ok((bars, string(timeline, "label")))
}

/// A facet's values with their counts, and the facet's label.
fn facet_bars(state: &State, facet: &str) -> TeraResult<(Vec<Bar>, String)> {
    let facets = state.get::<Value>("facets")?.unwrap_or_else(Value::none);
    let facets = facets.as_array().unwrap_or(&[]);
    let Some(found) = facets.iter().find(|f| string(f, "name") == facet) else {
        let names = facets.iter().map(|f| string(f, "name")).collect();
        return Err(fail(format!(
            "facet=\"{facet}\" is not a facet of the case schema (facets: {})",
            listing(names)
        )));
    };
    let bars = member(found, "values")
        .and_then(Value::as_array)
        .unwrap_or(&[])
        .iter()
        .map(|v| {
            let count = member(v, "count").and_then(Value::as_u64).unwrap_or(0);
            Bar {
                key: string(v, "value"),
                label: string(v, "label"),
                tick: Some(string(v, "label")),
                count,
                href: (count > 0).then(|| string(v, "path")),
            }
        })
        .collect();
    Ok((bars, string(found, "label")))
}

/// `` `a`, `b` `` for an error message, or `none`.
fn listing(names: Vec<String>) -> String {
    if names.is_empty() {
        return "none".into();
    }
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The chart's main finding in a sentence: the largest value, or the span and peak of a
/// time series.
fn finding(
    chart: &Chart,
    over_time: bool,
    cases: u64,
    text: &dyn Fn(&str) -> String,
    n: &dyn Fn(u64) -> String,
) -> String {
    let total = chart.total();
    let max = chart.bars.iter().map(|b| b.count).max().unwrap_or(0);
    if max == 0 {
        return text("chart_empty");
    }
    // Every bar at the maximum, in the chart's order: a tie is said as one.
    let peaks: Vec<&Bar> = chart.bars.iter().filter(|b| b.count == max).collect();
    let label = |b: &Bar| chart.digits.apply(&b.label);
    if over_time {
        let nonzero: Vec<&Bar> = chart.bars.iter().filter(|b| b.count > 0).collect();
        let key = if peaks.len() == 1 {
            "chart_time_desc"
        } else {
            "chart_time_desc_tied"
        };
        text(key)
            .replace("{total}", &n(total))
            .replace("{first}", &label(nonzero[0]))
            .replace("{last}", &label(nonzero[nonzero.len() - 1]))
            .replace("{peak}", &label(peaks[0]))
            .replace("{n}", &n(peaks.len() as u64))
            .replace("{count}", &n(max))
    } else {
        // A case counts once per value of a list facet, so the share is of all cases.
        let key = if peaks.len() == 1 {
            "chart_bar_desc"
        } else {
            "chart_bar_desc_tied"
        };
        let names: Vec<&str> = peaks.iter().map(|b| b.label.as_str()).collect();
        text(key)
            .replace("{top}", &names.join(&text("list_separator")))
            .replace("{count}", &n(max))
            .replace("{total}", &n(cases))
    }
}

/// A map's member by name (`get_from_path` would read `2013` as an array index).
fn member<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    v.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn string(v: &Value, key: &str) -> String {
    member(v, key)
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
        .unwrap_or_default()
}
