//! What an index is built from: the pages and case records of one language, with the
//! schema's facets. Plain data, filled in by `site` and read by the index builder.

use std::sync::Arc;

use chrono::NaiveDate;

/// One searchable page, as the index sees it.
#[derive(Debug, Clone, Default, Hash)]
pub(crate) struct Doc {
    /// Root-relative URL path (`/cases/syn-0001/`).
    pub(crate) path: String,
    pub(crate) title: String,
    /// The snippet source shown under the title.
    pub(crate) summary: String,
    /// The languages of the title and the summary when they are not the index's (an
    /// untranslated case): the client marks them with `lang`.
    pub(crate) title_lang: String,
    pub(crate) summary_lang: String,
    /// Key fields on one line (`Branch 215 · 14 May 2012`).
    pub(crate) info: String,
    pub(crate) date: Option<NaiveDate>,
    /// The blurred placeholder of a graphic photograph, root-relative; never the photograph.
    pub(crate) thumb: Option<String>,
    pub(crate) synthetic: bool,
    /// Matched exactly and whole (`syn-0001`, `2761/215`) as well as word by word.
    pub(crate) identifiers: Vec<String>,
    /// Case field values and their labels.
    pub(crate) fields: Vec<String>,
    /// Values of the name fields (`[search] names`), also among `fields`.
    pub(crate) names: Vec<String>,
    pub(crate) text: String,
}

/// A schema facet: which documents carry each value.
#[derive(Debug, Clone, Hash)]
pub(crate) struct FacetTable {
    pub(crate) name: String,
    pub(crate) label: String,
    /// A document may carry several values (list fields).
    pub(crate) multi: bool,
    pub(crate) values: Vec<FacetEntry>,
}

#[derive(Debug, Clone, Hash)]
pub(crate) struct FacetEntry {
    pub(crate) value: String,
    pub(crate) label: String,
    /// Indices into the language's documents.
    pub(crate) docs: Vec<usize>,
}

/// Everything one language's index is built from.
#[derive(Debug, Clone, Hash)]
pub(crate) struct LangInput {
    pub(crate) lang: String,
    /// Shared with the pages they come from, so a rebuild does not copy their text.
    pub(crate) docs: Vec<Arc<Doc>>,
    pub(crate) facets: Vec<FacetTable>,
}
