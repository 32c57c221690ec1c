//! The case schema: `[cases]` and its `[[cases.fields]]`, the fields every case file is
//! validated against and the facets built from them.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use toml::Spanned;

use crate::error::{Diagnostics, Located, did_you_mean};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCases {
    section: Spanned<String>,
    id_field: Spanned<String>,
    #[serde(default)]
    synthetic_field: Option<Spanned<String>>,
    #[serde(default)]
    fields: Vec<RawField>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    name: Spanned<String>,
    #[serde(rename = "type")]
    kind: Spanned<String>,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    facet: bool,
    #[serde(default)]
    facet_name: Option<Spanned<String>>,
    #[serde(default)]
    facet_label: Option<String>,
    #[serde(default)]
    column: bool,
    #[serde(default)]
    values: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    value_labels: BTreeMap<String, String>,
}

/// The case collection: which section holds cases and what each case carries.
#[derive(Debug, Clone)]
pub(crate) struct CaseSchema {
    /// The section folder below `content/`, e.g. `cases`.
    pub(crate) section: String,
    pub(crate) id_field: String,
    /// A boolean field marking sample records that describe no real person; such cases are
    /// labelled "synthetic" wherever they appear.
    pub(crate) synthetic_field: Option<String>,
    pub(crate) fields: Vec<FieldDef>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FieldType {
    String,
    Integer,
    Date,
    Boolean,
    Enum,
    /// A list of enum values.
    List,
}

impl FieldType {
    const NAMES: [&'static str; 6] = ["string", "integer", "date", "boolean", "enum", "list"];

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "string" => FieldType::String,
            "integer" => FieldType::Integer,
            "date" => FieldType::Date,
            "boolean" => FieldType::Boolean,
            "enum" => FieldType::Enum,
            "list" => FieldType::List,
            _ => return None,
        })
    }

    pub(crate) fn describe(self) -> &'static str {
        match self {
            FieldType::String => "a string",
            FieldType::Integer => "an integer",
            FieldType::Date => "a date (YYYY-MM-DD)",
            FieldType::Boolean => "true or false",
            FieldType::Enum => "one of the allowed values",
            FieldType::List => "a list of allowed values",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct FieldDef {
    pub(crate) name: String,
    pub(crate) kind: FieldType,
    pub(crate) required: bool,
    pub(crate) label: String,
    pub(crate) description: Option<String>,
    /// The URL segment of this field's facet pages (`/cases/<facet>/<value>/`), if it is a facet.
    pub(crate) facet: Option<String>,
    /// Shown as a column of case lists.
    pub(crate) column: bool,
    /// The heading of the facet's pages; defaults to `label`.
    pub(crate) facet_label: String,
    /// Allowed values for `enum` and `list`.
    pub(crate) values: Vec<String>,
    pub(crate) value_labels: BTreeMap<String, String>,
    /// The texts above in the site's other languages (`[translations.<lang>]`).
    pub(crate) translated: BTreeMap<String, FieldTexts>,
}

/// A field's texts in one other language. Every text the default language has is present
/// (a build error otherwise), so no English shows in, say, the Arabic edition.
#[derive(Debug, Clone, Default)]
pub(crate) struct FieldTexts {
    pub(crate) label: String,
    pub(crate) facet_label: String,
    pub(crate) description: Option<String>,
    pub(crate) value_labels: BTreeMap<String, String>,
}

impl FieldDef {
    /// The display label of a value in the default language: the configured label, else
    /// the value itself.
    pub(crate) fn value_label<'a>(&'a self, value: &'a str) -> &'a str {
        self.value_labels.get(value).map_or(value, String::as_str)
    }

    /// The field's label in `lang`.
    pub(crate) fn label_in(&self, lang: &str) -> &str {
        self.translated.get(lang).map_or(&self.label, |t| &t.label)
    }

    /// The heading of the field's facet pages in `lang`.
    pub(crate) fn facet_label_in(&self, lang: &str) -> &str {
        self.translated
            .get(lang)
            .map_or(&self.facet_label, |t| &t.facet_label)
    }

    pub(crate) fn description_in(&self, lang: &str) -> Option<&str> {
        match self.translated.get(lang) {
            Some(t) => t.description.as_deref(),
            None => self.description.as_deref(),
        }
    }

    /// The display label of a value in `lang`.
    pub(crate) fn value_label_in<'a>(&'a self, value: &'a str, lang: &str) -> &'a str {
        self.translated
            .get(lang)
            .and_then(|t| t.value_labels.get(value))
            .map_or_else(|| self.value_label(value), String::as_str)
    }
}

impl CaseSchema {
    pub(crate) fn field(&self, name: &str) -> Option<&FieldDef> {
        self.fields.iter().find(|f| f.name == name)
    }

    pub(crate) fn facets(&self) -> impl Iterator<Item = (&FieldDef, &str)> {
        self.fields
            .iter()
            .filter_map(|f| f.facet.as_deref().map(|facet| (f, facet)))
    }
}

/// Names that end up in URLs must be plain lowercase ASCII so links survive every host.
pub(crate) fn is_url_safe(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// Validates `[cases]`.
pub(super) fn resolve(raw: RawCases, file: Located, diags: &mut Diagnostics) -> CaseSchema {
    let mut fields = Vec::new();
    let mut seen_names = BTreeSet::new();
    let mut seen_facets = BTreeSet::new();
    for (i, f) in raw.fields.into_iter().enumerate() {
        let name = f.name.get_ref().clone();
        let key = |k: &str| format!("cases.fields[{i}].{k}");
        if !seen_names.insert(name.clone()) {
            diags.push(
                file.at(f.name.span(), format!("field `{name}` is declared twice"))
                    .field(key("name")),
            );
        }
        let kind = match FieldType::parse(f.kind.get_ref()) {
            Some(k) => k,
            None => {
                let wrong = f.kind.get_ref();
                diags.push(
                    file.at(f.kind.span(), format!("unknown field type `{wrong}`"))
                        .field(key("type"))
                        .hint(did_you_mean(wrong, FieldType::NAMES).unwrap_or_else(|| {
                            format!("use one of: {}", FieldType::NAMES.join(", "))
                        })),
                );
                FieldType::String
            }
        };
        let values = f
            .values
            .as_ref()
            .map(|v| v.get_ref().clone())
            .unwrap_or_default();
        if matches!(kind, FieldType::Enum | FieldType::List) {
            if values.is_empty() {
                diags.push(
                    file.at(
                        f.kind.span(),
                        format!(
                            "`{name}` is an {} field but lists no values",
                            f.kind.get_ref()
                        ),
                    )
                    .field(key("values"))
                    .hint("add values = [\"a\", \"b\"] with every allowed value"),
                );
            }
            for v in &values {
                if !is_url_safe(v) {
                    diags.push(
                        file.at(f.values.as_ref().map_or(f.kind.span(), |v| v.span()), format!("value `{v}` of `{name}` is not URL-safe"))
                            .field(key("values"))
                            .hint("values appear in facet URLs: use lowercase letters, digits, `-` and `_`; put the display text in value_labels"),
                    );
                }
            }
        } else if let Some(v) = &f.values {
            diags.push(
                file.at(
                    v.span(),
                    format!(
                        "only enum and list fields take values; `{name}` is {}",
                        f.kind.get_ref()
                    ),
                )
                .field(key("values")),
            );
        }
        let facet = if f.facet || f.facet_name.is_some() {
            let facet_name = f
                .facet_name
                .as_ref()
                .map_or(name.clone(), |n| n.get_ref().clone());
            let span = f.facet_name.as_ref().map_or(f.name.span(), |n| n.span());
            if !is_url_safe(&facet_name) || facet_name == "page" {
                diags.push(
                    file.at(span.clone(), format!("facet name `{facet_name}` cannot be used in URLs"))
                        .field(key("facet_name"))
                        .hint("use lowercase letters, digits, `-` and `_`; `page` is reserved for pagination"),
                );
            }
            if !seen_facets.insert(facet_name.clone()) {
                diags.push(
                    file.at(
                        span,
                        format!("two fields use the facet name `{facet_name}`"),
                    )
                    .field(key("facet_name")),
                );
            }
            Some(facet_name)
        } else {
            None
        };
        let label = f.label.unwrap_or_else(|| name.replace('_', " "));
        fields.push(FieldDef {
            facet_label: f.facet_label.unwrap_or_else(|| label.clone()),
            column: f.column,
            label,
            name,
            kind,
            required: f.required,
            description: f.description,
            facet,
            values,
            value_labels: f.value_labels,
            translated: BTreeMap::new(),
        });
    }
    let id_field = raw.id_field.get_ref().clone();
    match fields.iter().find(|f| f.name == id_field) {
        Some(f) if f.kind == FieldType::String && f.required => {}
        Some(_) => {
            diags.push(
                file.at(
                    raw.id_field.span(),
                    format!("the id field `{id_field}` must be a required string field"),
                )
                .field("cases.id_field")
                .hint("declare it with type = \"string\" and required = true"),
            );
        }
        None => {
            diags.push(
                file.at(
                    raw.id_field.span(),
                    format!("no field named `{id_field}` is declared"),
                )
                .field("cases.id_field")
                .maybe_hint(did_you_mean(
                    &id_field,
                    fields.iter().map(|f| f.name.as_str()),
                )),
            );
        }
    }
    let synthetic_field = raw.synthetic_field.map(|s| {
        let name = s.get_ref().clone();
        if !fields
            .iter()
            .any(|f| f.name == name && f.kind == FieldType::Boolean)
        {
            diags.push(
                file.at(
                    s.span(),
                    format!("`{name}` must name a declared boolean field"),
                )
                .field("cases.synthetic_field")
                .hint("declare it in [[cases.fields]] with type = \"boolean\""),
            );
        }
        name
    });
    let section = raw.section.get_ref().trim_matches('/').to_string();
    CaseSchema {
        section,
        id_field,
        synthetic_field,
        fields,
    }
}
