//! What time charts count: for every date field of the case schema, its cases per month and
//! per year, for the whole archive and within each facet value. Computed once per language
//! and handed to templates as `chart_data`; the `chart()` function only reads it.
//!
//! Every series runs without gaps from its first to its last case, so a month without cases
//! is drawn as zero rather than left out.

use std::collections::{BTreeMap, HashMap};

use chrono::Datelike;
use serde::Serialize;

use super::Facet;
use crate::config::{Config, FieldType};
use crate::content::{Corpus, FieldValue};
use crate::locale::format_month;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct ChartData {
    /// How many cases there are, and how many of them are synthetic samples: charts of
    /// sample data say so.
    pub(crate) cases: u64,
    pub(crate) synthetic: u64,
    /// Date field name -> its series.
    pub(crate) dates: BTreeMap<String, Timeline>,
    /// The schema's first date field: what `chart(by=...)` counts when no field is named.
    pub(crate) default_field: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Timeline {
    /// The field's label in the page's language.
    pub(crate) label: String,
    #[serde(flatten)]
    pub(crate) all: Series,
    /// Facet name -> value key -> the series of that value's cases.
    pub(crate) within: BTreeMap<String, BTreeMap<String, Series>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Series {
    pub(crate) month: Vec<Bucket>,
    pub(crate) year: Vec<Bucket>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Bucket {
    /// `2013-05` or `2013`.
    pub(crate) key: String,
    pub(crate) label: String,
    /// The label under the time axis: the year, at January and at the first bucket.
    pub(crate) tick: Option<String>,
    pub(crate) count: u64,
    /// The facet page of exactly these cases, when the field is a facet and there are any.
    pub(crate) path: Option<String>,
}

/// What differs between two builds' chart data, so that `serve` re-renders a facet value's
/// page only when its own series (or the archive-wide data) changed.
#[derive(Debug, Default)]
pub(crate) struct ChartDiff {
    /// Anything besides the per-value series: totals, labels, archive-wide series.
    pub(crate) global: bool,
    /// (facet, value) whose series changed.
    pub(crate) values: std::collections::HashSet<(String, String)>,
}

impl ChartDiff {
    pub(crate) fn between(old: &ChartData, new: &ChartData) -> ChartDiff {
        let mut diff = ChartDiff {
            global: old.cases != new.cases
                || old.synthetic != new.synthetic
                || old.default_field != new.default_field
                || old.dates.len() != new.dates.len(),
            ..ChartDiff::default()
        };
        let empty = BTreeMap::new();
        for (field, new_t) in &new.dates {
            let Some(old_t) = old.dates.get(field) else {
                diff.global = true;
                continue;
            };
            diff.global |= old_t.label != new_t.label || old_t.all != new_t.all;
            for (facet, values) in &new_t.within {
                let old_values = old_t.within.get(facet).unwrap_or(&empty);
                let keys = values.keys().chain(old_values.keys());
                for value in keys {
                    if values.get(value) != old_values.get(value) {
                        diff.values.insert((facet.clone(), value.clone()));
                    }
                }
            }
            diff.global |= old_t.within.keys().any(|f| !new_t.within.contains_key(f));
        }
        diff
    }

    pub(crate) fn any(&self) -> bool {
        self.global || !self.values.is_empty()
    }
}

/// The chart data of one language's case section.
pub(crate) fn compute(config: &Config, corpus: &Corpus, facets: &[Facet], lang: &str) -> ChartData {
    let mut data = ChartData::default();
    let (Some(schema), Some(section)) = (&config.cases, corpus.case_section(lang)) else {
        return data;
    };
    let section_pages = &corpus.sections[section].pages;
    data.cases = section_pages.len() as u64;
    data.synthetic = section_pages
        .iter()
        .filter_map(|&p| corpus.pages[p].case.as_ref())
        .filter(|c| c.is_synthetic())
        .count() as u64;
    let facets: Vec<&Facet> = facets.iter().filter(|f| f.lang == lang).collect();
    for field in schema.fields.iter().filter(|f| f.kind == FieldType::Date) {
        data.default_field.get_or_insert_with(|| field.name.clone());
        // Each case's month, looked up once: every facet value counts the same cases again.
        let mut months: Vec<Option<(i32, u32)>> = vec![None; corpus.pages.len()];
        for &p in section_pages {
            let value = corpus.pages[p]
                .case
                .as_ref()
                .and_then(|c| c.values.get(&field.name));
            if let Some(FieldValue::Date(d)) = value {
                months[p] = Some((d.year(), d.month()));
            }
        }
        // The field's own facet names the pages a bucket links to.
        let paths: HashMap<&str, &str> = facets
            .iter()
            .filter(|f| f.field == field.name)
            .flat_map(|f| f.values_and_months())
            .map(|v| (v.value.as_str(), v.path.as_str()))
            .collect();
        let path_of = |key: &str| paths.get(key).map(|p| p.to_string());
        let series =
            |pages: &[usize]| series(pages.iter().filter_map(|&p| months[p]), lang, &path_of);
        let within = facets
            .iter()
            .map(|f| {
                let values = f
                    .values
                    .iter()
                    .map(|v| (v.value.clone(), series(&v.pages)))
                    .collect();
                (f.name.clone(), values)
            })
            .collect();
        data.dates.insert(
            field.name.clone(),
            Timeline {
                label: field.label_in(lang).to_string(),
                all: series(section_pages),
                within,
            },
        );
    }
    data
}

fn series(
    months: impl Iterator<Item = (i32, u32)>,
    lang: &str,
    path_of: &dyn Fn(&str) -> Option<String>,
) -> Series {
    let mut counts: BTreeMap<(i32, u32), u64> = BTreeMap::new();
    for m in months {
        *counts.entry(m).or_default() += 1;
    }
    let (Some(&first), Some(&last)) = (counts.keys().next(), counts.keys().next_back()) else {
        return Series::default();
    };
    let mut month = Vec::new();
    let mut year: BTreeMap<i32, u64> = BTreeMap::new();
    let (mut y, mut m) = first;
    while (y, m) <= last {
        let count = counts.get(&(y, m)).copied().unwrap_or(0);
        *year.entry(y).or_default() += count;
        let key = format!("{y:04}-{m:02}");
        month.push(Bucket {
            path: (count > 0).then(|| path_of(&key)).flatten(),
            label: format_month(y, m, lang),
            tick: (m == 1 || (y, m) == first).then(|| y.to_string()),
            key,
            count,
        });
        (y, m) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    }
    let year = year
        .into_iter()
        .map(|(y, count)| {
            let key = y.to_string();
            Bucket {
                path: (count > 0).then(|| path_of(&key)).flatten(),
                label: key.clone(),
                tick: Some(key.clone()),
                key,
                count,
            }
        })
        .collect();
    Series { month, year }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_without_cases_are_zero_and_years_sum_their_months() {
        let months = [(2012, 11), (2013, 2), (2013, 2), (2012, 11), (2012, 11)];
        let s = series(months.into_iter(), "en", &|k| Some(format!("/y/{k}/")));
        let got: Vec<(&str, u64)> = s.month.iter().map(|b| (b.key.as_str(), b.count)).collect();
        assert_eq!(
            got,
            [
                ("2012-11", 3),
                ("2012-12", 0),
                ("2013-01", 0),
                ("2013-02", 2)
            ]
        );
        assert_eq!(s.month[0].label, "November 2012");
        // Zero months link nowhere; ticks mark the first month and each January.
        assert_eq!(s.month[1].path, None);
        assert_eq!(s.month[3].path.as_deref(), Some("/y/2013-02/"));
        let ticks: Vec<_> = s.month.iter().map(|b| b.tick.as_deref()).collect();
        assert_eq!(ticks, [Some("2012"), None, Some("2013"), None]);
        let years: Vec<(&str, u64)> = s.year.iter().map(|b| (b.key.as_str(), b.count)).collect();
        assert_eq!(years, [("2012", 3), ("2013", 2)]);
    }

    #[test]
    fn a_diff_names_the_values_whose_series_changed() {
        let series = |months: &[(i32, u32)]| series(months.iter().copied(), "en", &|_| None);
        let data = |a: &[(i32, u32)], b: &[(i32, u32)]| ChartData {
            cases: 3,
            synthetic: 3,
            dates: BTreeMap::from([(
                "photographed".to_string(),
                Timeline {
                    label: "Date".into(),
                    all: series(&[(2012, 1), (2012, 2), (2012, 3)]),
                    within: BTreeMap::from([(
                        "branch".to_string(),
                        BTreeMap::from([
                            ("215".to_string(), series(a)),
                            ("227".to_string(), series(b)),
                        ]),
                    )]),
                },
            )]),
            default_field: Some("photographed".into()),
        };
        let old = data(&[(2012, 1)], &[(2012, 2), (2012, 3)]);
        // A case moved from branch 227 to 215, its date unchanged.
        let new = data(&[(2012, 1), (2012, 3)], &[(2012, 2)]);
        let diff = ChartDiff::between(&old, &new);
        assert!(!diff.global);
        assert_eq!(diff.values.len(), 2);
        assert!(!ChartDiff::between(&old, &old).any());
        let mut later = new.clone();
        later.cases = 4;
        assert!(ChartDiff::between(&new, &later).global);
    }

    #[test]
    fn no_dates_make_an_empty_series() {
        let s = series(std::iter::empty(), "en", &|_| None);
        assert!(s.month.is_empty() && s.year.is_empty());
    }
}
