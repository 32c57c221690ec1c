//! Which pages a change affects, for `casebook serve`'s rebuilds.
//!
//! Two loads of the site are compared: if the set of pages, their URLs and sections stayed
//! the same, only the pages whose sources (or photographs) changed are marked, and a page
//! job is re-rendered when anything its context is made of changed: its page, its section,
//! the slice of a list it shows, its facet, its templates (with everything they extend or
//! include) or a shared value that one of those templates uses. Anything else (a page
//! added, removed or moved; the configuration) re-renders everything. The serve tests
//! compare rebuilt sites with full builds to keep these rules honest.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::chart_data::ChartDiff;
use super::context::SharedValues;
use super::{Job, Prepared, Renderer, Shared};
use crate::content::Corpus;
use crate::images::ImageSet;
use crate::theme::Theme;

/// Which pages changed between two loads of the same structure; `None` when the structure
/// itself changed (pages added, removed or moved, sections changed shape).
pub(crate) fn changed_pages(
    old: &Corpus,
    new: &Corpus,
    old_images: &ImageSet,
    new_images: &ImageSet,
) -> Option<Vec<bool>> {
    let same_sections = old.sections.len() == new.sections.len()
        && old.sections.iter().zip(&new.sections).all(|(a, b)| {
            a.meta.path == b.meta.path
                && a.meta.source == b.meta.source
                && a.dir == b.dir
                && a.subsections == b.subsections
                && a.is_case_collection == b.is_case_collection
                && a.paginate_by == b.paginate_by
        });
    let same_pages = old.pages.len() == new.pages.len()
        && old.pages.iter().zip(&new.pages).all(|(a, b)| {
            a.meta.path == b.meta.path
                && a.meta.source == b.meta.source
                && a.meta.key == b.meta.key
                && a.section == b.section
        });
    if !same_sections || !same_pages || old.assets != new.assets {
        return None;
    }
    Some(
        old.pages
            .iter()
            .zip(&new.pages)
            .map(|(a, b)| {
                a != b
                    || b.meta
                        .photos
                        .iter()
                        .any(|spec| !old_images.same_for(new_images, spec))
            })
            .collect(),
    )
}

/// What changed between the previous build and this one.
pub(crate) struct Delta<'a> {
    changed_pages: Vec<bool>,
    /// Whether the release's date (`cite::released`), which case citations name, changed.
    released_changed: bool,
    changed_sections: Vec<bool>,
    /// Each section's pages in the previous build, in display order.
    old_section_pages: Vec<Vec<usize>>,
    /// The previous build's facets by (language, name).
    old_facets: HashMap<(&'a str, &'a str), &'a super::Facet>,
    /// Facets (language, name) with any value, count or page list changed.
    changed_facets: HashSet<(&'a str, &'a str)>,
    /// Page templates whose own source, or that of a template they use, changed.
    changed_templates: BTreeSet<String>,
    /// Per language, which shared context values changed (`nav`, `facets`, ...).
    changed_shared: HashMap<String, Vec<&'static str>>,
    /// Template -> the shared values its sources mention.
    uses: HashMap<String, Vec<&'static str>>,
    /// Templates whose only time charts are of the page's own facet value.
    own_series: HashSet<String>,
    /// Per language, what changed in the time charts' data.
    chart_changes: HashMap<String, ChartDiff>,
    /// Whether any withdrawn case (its tombstone) changed.
    withdrawn_changed: bool,
}

/// Shared context values a template may use: a template uses one when it mentions its name.
const SHARED: &[&str] = SharedValues::KEYS;

/// What a template's `chart()` calls read: `facets` and `chart_data` for facet charts (the
/// bars, and the totals for the description and sample note), `chart_data` for time series
/// (all of it, or only the page's own facet value's series and the totals).
#[derive(Debug, Default, PartialEq)]
struct ChartReads {
    any: bool,
    facets: bool,
    all_series: bool,
    own_series: bool,
}

fn chart_reads(source: &str) -> ChartReads {
    let mut reads = ChartReads::default();
    for (i, _) in source.match_indices("chart(") {
        let before = source[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            continue;
        }
        reads.any = true;
        let Some(args) = source[i + 6..].split(')').next() else {
            continue;
        };
        let args: String = args.chars().filter(|c| !c.is_whitespace()).collect();
        if !args.contains("field=") && !args.contains("by=") {
            // The bars, and the archive's totals from the chart data (its sample note).
            reads.facets = true;
            reads.all_series = true;
        } else if args.contains("facet=facet.name") && args.contains("value=value.value") {
            reads.own_series = true;
        } else {
            reads.all_series = true;
        }
    }
    reads
}

/// What a template (with everything it extends, includes or imports) reads of the shared
/// values.
pub(crate) struct SharedReads {
    /// The shared values it mentions or its charts read.
    pub(crate) used: Vec<&'static str>,
    /// Its charts read the page's own facet value's series of `chart_data`, and nothing else
    /// of it.
    pub(crate) own_series: bool,
}

/// What each template of the theme reads of the shared values.
pub(crate) fn shared_reads(theme: &Theme) -> HashMap<String, SharedReads> {
    theme
        .templates
        .keys()
        .map(|name| {
            let closure = theme.template_closure(name);
            let reads: Vec<ChartReads> = closure
                .iter()
                .map(|t| chart_reads(&theme.templates[t]))
                .collect();
            let charts = |f: fn(&ChartReads) -> bool| reads.iter().any(f);
            let used: Vec<&'static str> = SHARED
                .iter()
                .copied()
                .filter(|var| {
                    let by_chart = match *var {
                        "facets" => charts(|r| r.facets),
                        "chart_data" => charts(|r| r.all_series),
                        "t" => charts(|r| r.any),
                        _ => false,
                    };
                    by_chart || closure.iter().any(|t| mentions(&theme.templates[t], var))
                })
                .collect();
            let own_series = charts(|r| r.own_series) && !used.contains(&"chart_data");
            (name.clone(), SharedReads { used, own_series })
        })
        .collect()
}

/// One build's inputs to its pages, as a delta compares them.
pub(crate) struct Builds<'a> {
    pub(crate) corpus: &'a Corpus,
    pub(crate) prepared: &'a Prepared,
    pub(crate) shared: &'a Shared,
    pub(crate) theme: &'a Theme,
}

impl<'a> Delta<'a> {
    pub(crate) fn new(old: Builds<'a>, new: Builds<'a>, changed_pages: Vec<bool>) -> Delta<'a> {
        let (old_corpus, new_corpus) = (old.corpus, new.corpus);
        let (old_shared, new_shared) = (old.shared, new.shared);
        let (old_theme, new_theme) = (old.theme, new.theme);
        let (old, new) = (old.prepared, new.prepared);
        let changed_sections = old_corpus
            .sections
            .iter()
            .zip(&new_corpus.sections)
            .zip(old.section_md.iter().zip(&new.section_md))
            .map(|((a, b), (ma, mb))| a.meta != b.meta || ma.html != mb.html)
            .collect();
        let mut changed_templates = BTreeSet::new();
        for name in new_theme.templates.keys() {
            let closure = new_theme.template_closure(name);
            if closure != old_theme.template_closure(name)
                || closure
                    .iter()
                    .any(|t| old_theme.templates.get(t) != new_theme.templates.get(t))
            {
                changed_templates.insert(name.clone());
            }
        }
        let mut uses = HashMap::new();
        let mut own_series = HashSet::new();
        for (name, reads) in shared_reads(new_theme) {
            if reads.own_series {
                own_series.insert(name.clone());
            }
            uses.insert(name, reads.used);
        }
        let mut changed_shared = HashMap::new();
        let mut chart_changes = HashMap::new();
        for (lang, new_lang) in &new_shared.per_lang {
            let Some(old_lang) = old_shared.per_lang.get(lang) else {
                changed_shared.insert(lang.clone(), SHARED.to_vec());
                continue;
            };
            let chart_diff = ChartDiff::between(&old_lang.charts, &new_lang.charts);
            let mut changed: Vec<&'static str> = old_lang
                .values
                .fields()
                .into_iter()
                .zip(new_lang.values.fields())
                // Chart data is compared as data below: cheaper, and it says which series.
                .filter(|((name, old), (_, new))| *name != "chart_data" && old != new)
                .map(|((name, _), _)| name)
                .collect();
            if chart_diff.any() {
                changed.push("chart_data");
            }
            changed_shared.insert(lang.clone(), changed);
            chart_changes.insert(lang.clone(), chart_diff);
        }
        let old_facets: HashMap<(&str, &str), &super::Facet> = old
            .facets
            .iter()
            .map(|f| ((f.lang.as_str(), f.name.as_str()), f))
            .collect();
        Delta {
            released_changed: old.released != new.released,
            withdrawn_changed: old_corpus.withdrawn != new_corpus.withdrawn,
            changed_pages,
            changed_sections,
            old_section_pages: old_corpus
                .sections
                .iter()
                .map(|s| s.pages.clone())
                .collect(),
            changed_facets: new
                .facets
                .iter()
                .filter(|f| old_facets.get(&(f.lang.as_str(), f.name.as_str())) != Some(f))
                .map(|f| (f.lang.as_str(), f.name.as_str()))
                .collect(),
            old_facets,
            changed_templates,
            changed_shared,
            uses,
            own_series,
            chart_changes,
        }
    }

    /// Whether a page job's output may differ from the previous build's.
    pub(crate) fn dirty(&self, renderer: &Renderer, job: &Job) -> bool {
        let template = renderer.template(job);
        if self.changed_templates.contains(template) {
            return true;
        }
        // A template that is not in the theme fails to render: let it report that.
        let Some(uses) = self.uses.get(template) else {
            return true;
        };
        let lang = renderer.lang(job);
        let shared = self.changed_shared.get(lang).map_or(&[][..], Vec::as_slice);
        if shared.iter().any(|var| uses.contains(var)) {
            return true;
        }
        if self.own_series.contains(template) {
            let own_changed = match (self.chart_changes.get(lang), job) {
                (None, _) => true,
                (Some(diff), Job::FacetValue { facet, value, .. }) => {
                    diff.global
                        || diff
                            .values
                            .contains(&(facet.name.clone(), value.value.clone()))
                }
                (Some(diff), _) => diff.any(),
            };
            if own_changed {
                return true;
            }
        }
        let corpus = renderer.corpus;
        match job {
            Job::Page(i) => {
                self.changed_pages[*i]
                    || self.changed_sections[corpus.pages[*i].section]
                    // A case's citation names the release's date.
                    || (self.released_changed && corpus.pages[*i].case.is_some())
            }
            Job::Section { index, page } => {
                let s = &corpus.sections[*index];
                let per_page = s.paginate_by.unwrap_or(renderer.config.paginate_by);
                self.changed_sections[*index]
                    || s.subsections.iter().any(|&i| self.changed_sections[i])
                    || self.slice_changed(
                        &self.old_section_pages[*index],
                        &s.pages,
                        per_page,
                        *page,
                    )
            }
            Job::FacetIndex { facet } => self.facet_changed(facet),
            Job::FacetValue { facet, value, page } => {
                let old = self
                    .old_facets
                    .get(&(facet.lang.as_str(), facet.name.as_str()))
                    .and_then(|f| f.value(&value.value));
                match old {
                    Some(old) => {
                        self.facet_changed(facet)
                            || self.slice_changed(
                                &old.pages,
                                &value.pages,
                                renderer.config.paginate_by,
                                *page,
                            )
                    }
                    None => true,
                }
            }
            // The search page changes with the index, which is rebuilt after the pages.
            Job::Withdrawn(_) => self.withdrawn_changed,
            Job::NotFound { .. } | Job::Search { .. } | Job::Verify { .. } => false,
        }
    }

    /// Whether the page `page` of a list shows other items than before, or changed items.
    fn slice_changed(&self, old: &[usize], new: &[usize], per_page: usize, page: usize) -> bool {
        let range = |len: usize| ((page - 1) * per_page).min(len)..(page * per_page).min(len);
        old.len() != new.len()
            || old[range(old.len())] != new[range(new.len())]
            || new[range(new.len())].iter().any(|&i| self.changed_pages[i])
    }

    /// Whether any value, count or page list of a facet changed. Facet pages show the whole
    /// facet (the other values and their counts), so any change re-renders all of them.
    fn facet_changed(&self, facet: &super::Facet) -> bool {
        self.changed_facets
            .contains(&(facet.lang.as_str(), facet.name.as_str()))
    }
}

/// Whether a template's source mentions `var` as a whole word.
fn mentions(source: &str, var: &str) -> bool {
    source.match_indices(var).any(|(i, _)| {
        let before = source[..i].chars().next_back();
        let after = source[i + var.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after) && before != Some('.')
    })
}

#[cfg(test)]
mod tests {
    use super::{ChartReads, chart_reads, mentions};

    #[test]
    fn chart_calls_read_facets_or_series() {
        assert_eq!(chart_reads("{{ charts }}"), ChartReads::default());
        let facet = chart_reads(r#"{{ chart(facet="branch") }}"#);
        assert!(facet.any && facet.facets && facet.all_series && !facet.own_series);
        let all = chart_reads(r#"{{ chart(field="photographed", by="month") }}"#);
        assert!(all.all_series && !all.facets);
        let own = chart_reads(
            r#"{{ chart(field=f, by="month", facet=facet.name, value = value.value) }}"#,
        );
        assert!(own.own_series && !own.all_series);
        let default_field = chart_reads(r#"{{ chart(by="month") }}"#);
        assert!(default_field.all_series && !default_field.facets);
        assert!(!chart_reads("{{ piechart(facet=1) }}").any);
    }

    #[test]
    fn mentions_whole_words_only() {
        assert!(mentions("{% for f in facets %}", "facets"));
        assert!(mentions("{{ t.title }}", "t"));
        assert!(!mentions("{{ page.facets }}", "facets"));
        assert!(!mentions("{{ item.nav_title }}", "nav"));
        assert!(!mentions("{{ content }}", "t"));
    }
}
