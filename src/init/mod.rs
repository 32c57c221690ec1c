//! `casebook init DIR`: a minimal site that builds as it is (config with a small case
//! schema, a home page, the case section and one synthetic case), using the built-in theme,
//! with a CI pipeline that builds, checks, verifies, signs and publishes it (`ci`).

mod ci;

use std::path::Path;

use crate::error::{Diagnostic, Error, Result};

pub use ci::{Ci, DEFAULT_SHARDS, MAX_SHARDS};

/// What `casebook init` writes besides the site.
#[derive(Debug, Clone, Copy)]
pub struct InitOptions {
    /// The CI pipeline to write; `None` writes none.
    pub ci: Option<Ci>,
    /// Whether the pipeline was asked for by name: then an existing site gets the pipeline
    /// alone instead of an error.
    pub ci_asked: bool,
    /// In how many parallel jobs the pipeline derives the photographs.
    pub shards: u32,
    /// Replace an existing pipeline file.
    pub force: bool,
}

impl Default for InitOptions {
    fn default() -> Self {
        InitOptions {
            ci: Some(Ci::Github),
            ci_asked: false,
            shards: DEFAULT_SHARDS,
            force: false,
        }
    }
}

const FILES: &[(&str, &str)] = &[
    (
        "casebook.toml",
        r#"# Site configuration. Every key is documented in casebook's docs/configuration.md.
title = "My archive"
description = "A documentation archive built with casebook."
base_url = "https://example.org/"
default_language = "en"
languages = ["en"]
theme = "default"      # built in; put a copy in themes/default/ to change it
paginate_by = 20
minify = true
# Who publishes the archive, named in every page's citation ("Cite this case"):
# publisher = "Our organisation"
# The terms your text may be reused under, shown in every page's footer and the feeds:
# license = { name = "CC BY 4.0", url = "https://creativecommons.org/licenses/by/4.0/" }

# The case collection: which section holds case files, and the fields each case carries.
[cases]
section = "cases"
id_field = "case_id"
synthetic_field = "synthetic"

[[cases.fields]]
name = "case_id"
type = "string"
required = true
label = "Case"

[[cases.fields]]
name = "recorded"
type = "date"
required = true
label = "Date recorded"
facet = true
facet_name = "year"

[[cases.fields]]
name = "location"
type = "enum"
values = ["north", "south"]
value_labels = { north = "Northern district", south = "Southern district" }
required = true
label = "Location"
facet = true

[[cases.fields]]
name = "synthetic"
type = "boolean"
required = true
label = "Synthetic sample"

# Uncomment so that build and check refuse any photograph whose redaction nobody has
# reviewed (in the workbench of `casebook serve`): CI then cannot publish an unchecked face.
# [images]
# require_review = true
"#,
    ),
    (
        "content/_index.md",
        r#"+++
title = "My archive"
description = "What this archive documents and how to use it."
+++

Describe the archive here. Browse the [cases](@/cases/_index.md).
"#,
    ),
    (
        "content/cases/_index.md",
        r#"+++
title = "Cases"
description = "Every case record of the archive."
weight = 1
+++

Each case is a folder below `content/cases/` with an `index.md`.
"#,
    ),
    (
        "content/cases/example-0001/index.md",
        r#"+++
title = "Example case 0001 (synthetic)"
case_id = "example-0001"
recorded = 2012-05-14
location = "north"
synthetic = true
+++

This is a synthetic example record; it does not describe a real person.
"#,
    ),
];

/// Writes the skeleton and the CI pipeline into `dir`, refusing to overwrite an existing
/// site; into an existing site, a pipeline asked for by name is added alone.
pub fn init(dir: &Path, options: &InitOptions) -> Result<Vec<String>> {
    let site_exists = dir.join("casebook.toml").exists() || dir.join("content").exists();
    if site_exists && !options.ci_asked {
        return Err(Error::one(
            Diagnostic::new(
                dir,
                "a site already exists here (casebook.toml or content/ found)",
            )
            .hint("choose an empty or new folder; to add a CI pipeline to this site, run `casebook init DIR --ci github` (or gitlab)"),
        ));
    }
    if site_exists && !dir.join("casebook.toml").exists() {
        return Err(Error::one(
            Diagnostic::new(dir, "content/ is here but casebook.toml is not")
                .hint("run `casebook init` in the site's folder, the one holding casebook.toml"),
        ));
    }
    if let Some(ci) = options.ci {
        ci::refuse_to_overwrite(dir, ci, options.force)?;
    }
    let mut written = if site_exists {
        Vec::new()
    } else {
        write_site(dir)?
    };
    if let Some(ci) = options.ci {
        for file in ci::write(dir, ci, options.shards)? {
            if !written.contains(&file) {
                written.push(file);
            }
        }
    }
    Ok(written)
}

fn write_site(dir: &Path) -> Result<Vec<String>> {
    let mut written = Vec::new();
    for (rel, text) in FILES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        std::fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
        written.push(rel.to_string());
    }
    let gitignore = dir.join(".gitignore");
    if !gitignore.exists() {
        std::fs::write(
            &gitignore,
            "/public\n/.public.casebook-*\n/.casebook-cache\n# Secret signing keys never belong in a site repository.\n*.key\n",
        )
        .map_err(|e| Error::io(&gitignore, e))?;
        written.push(".gitignore".into());
    }
    Ok(written)
}
