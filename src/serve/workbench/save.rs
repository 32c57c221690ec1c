//! Saving an edit from the workbench: the case file's photograph entry (regions,
//! sensitivity, alt text, caption, review) and the translated alt text and captions in each
//! language's file, each written only over the bytes the editor read (`casefile`). A change
//! to the regions or the sensitivity takes the review away unless the same save marks it
//! reviewed again; a review covers the regions and sensitivity saved with it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::catalogue::Catalogue;
use crate::casefile::{
    PhotoEdit, WriteError, edit_photo, edit_translated_photo, write_if_unchanged,
};
use crate::config::Sensitivity;
use crate::content::photos::Region;
use crate::content::{Review, review_covers};
use crate::images::Warm;

/// A page file's text and the SHA-256 of its bytes as they are on disk now, read once
/// (both empty if it cannot be read): what the editor opened, so a save refused over a
/// change made since can show the difference.
pub(crate) fn file_text_and_sha256(path: &Path) -> (String, String) {
    std::fs::read(path)
        .map(|b| {
            (
                String::from_utf8_lossy(&b).into_owned(),
                crate::hashing::hex(&Sha256::digest(&b)),
            )
        })
        .unwrap_or_default()
}

#[derive(serde::Deserialize)]
pub(super) struct SaveRequest {
    dir: String,
    file: String,
    /// The case file's SHA-256 when the editor opened it.
    sha256: String,
    regions: Option<Vec<Region>>,
    sensitivity: Option<String>,
    alt: Option<String>,
    caption: Option<String>,
    /// Other languages: their file's SHA-256 as opened, and what changed.
    #[serde(default)]
    translations: BTreeMap<String, TranslatedEdit>,
    /// Marks the photograph reviewed by this name, as saved.
    review_by: Option<String>,
}

#[derive(serde::Deserialize)]
pub(super) struct TranslatedEdit {
    sha256: String,
    alt: Option<String>,
    caption: Option<String>,
}

fn answer(status: StatusCode, body: serde_json::Value) -> Response {
    let mut r = (status, body.to_string()).into_response();
    r.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    r.headers_mut().insert(
        axum::http::header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static("no-store"),
    );
    r
}

fn failed(status: StatusCode, message: String) -> Response {
    answer(status, serde_json::json!({ "error": message }))
}

/// Carries out one save; the answer names each file's new SHA-256. Each file written is
/// added to `written`, whatever the answer.
pub(super) fn save(
    catalogue: &Catalogue,
    body: &[u8],
    written: &mut Vec<PathBuf>,
    warm: Option<&Warm>,
) -> Response {
    let asked: SaveRequest = match serde_json::from_slice(body) {
        Ok(a) => a,
        Err(e) => return failed(StatusCode::BAD_REQUEST, format!("not a save request: {e}")),
    };
    let Some(i) = catalogue.find(&asked.dir, &asked.file) else {
        return failed(
            StatusCode::NOT_FOUND,
            "No photograph of the site has this address.".into(),
        );
    };
    let row = &catalogue.rows[i];
    let sensitivity = match asked.sensitivity.as_deref().map(Sensitivity::parse) {
        Some(None) => {
            return failed(
                StatusCode::BAD_REQUEST,
                "sensitivity is none, sensitive or graphic".into(),
            );
        }
        Some(Some(s)) => Some(s),
        None => None,
    };
    if let Some(bad) = asked
        .regions
        .iter()
        .flatten()
        .find(|r| !super::region_is_valid(r))
    {
        return failed(
            StatusCode::BAD_REQUEST,
            format!("a region lies outside the picture: {bad:?}"),
        );
    }
    let changes_what_is_published = asked.regions.as_ref().is_some_and(|r| *r != row.regions)
        || sensitivity.is_some_and(|s| s != row.sensitivity);
    let reviewed = match asked.review_by.as_deref().map(str::trim) {
        Some("") => {
            return failed(
                StatusCode::BAD_REQUEST,
                "a review needs the reviewer's name".into(),
            );
        }
        Some(by) => {
            let regions = asked.regions.as_ref().unwrap_or(&row.regions);
            let sensitivity = sensitivity.unwrap_or(row.sensitivity);
            Some(Some(Review {
                by: by.to_string(),
                on: chrono::Utc::now()
                    .date_naive()
                    .format("%Y-%m-%d")
                    .to_string(),
                covers: review_covers(&row.source_sha256, regions, sensitivity),
            }))
        }
        // Whatever changes the published pixels or their sensitivity is reviewed again.
        None if changes_what_is_published => Some(None),
        None => None,
    };
    let edit = PhotoEdit {
        redact: asked.regions.clone(),
        sensitivity,
        alt: asked.alt.clone(),
        caption: asked
            .caption
            .clone()
            .map(|c| Some(c).filter(|c| !c.trim().is_empty())),
        reviewed,
    };
    let mut saved = serde_json::Map::new();
    let mut texts = serde_json::Map::new();
    let page = row.page.clone();
    let edited = std::fs::read_to_string(&page)
        .map_err(|e| e.to_string())
        .and_then(|text| edit_photo(&text, &row.file, &edit));
    match edited.map(|text| write_if_unchanged(&page, &asked.sha256, &text)) {
        Ok(Ok(())) => {
            written.push(page.clone());
            // The rebuild this save starts will derive the photograph with its new regions
            // (as written: rounded to 4 decimals): begin now, while it loads the content.
            if let (Some(warm), Some(config), Some(regions)) =
                (warm, &catalogue.config, &asked.regions)
            {
                if *regions != row.regions {
                    let written: Vec<_> = regions.iter().map(|r| r.normalized()).collect();
                    warm.start(&config.root, &row.source, &written, &config.images);
                }
            }
            let (text, sha256) = file_text_and_sha256(&page);
            saved.insert(row.page_display.clone(), sha256.into());
            texts.insert(row.page_display.clone(), text.into());
        }
        Ok(Err(WriteError::Conflict { current })) => {
            return answer(
                StatusCode::CONFLICT,
                serde_json::json!({
                    "error": format!("{} changed on disk since this editor opened it; nothing was saved. Reload the editor to see the change, then make yours again.", row.page_display),
                    "current": current,
                }),
            );
        }
        Ok(Err(e)) => {
            return failed(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("{}: {e}", row.page_display),
            );
        }
        Err(e) => {
            return failed(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("{}: {e}", row.page_display),
            );
        }
    }
    for (lang, t) in &asked.translations {
        let Some(file) = row.translations.iter().find(|x| &x.lang == lang) else {
            return failed(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!(
                    "this case has no {lang} file to hold the translated alt text; create it first (docs/content.md, Translations)"
                ),
            );
        };
        let caption = t
            .caption
            .as_deref()
            .map(|c| Some(c).filter(|c| !c.trim().is_empty()));
        let edited = std::fs::read_to_string(&file.page)
            .map_err(|e| e.to_string())
            .and_then(|text| edit_translated_photo(&text, &row.file, t.alt.as_deref(), caption));
        let shown = file.page.display().to_string();
        match edited.map(|text| write_if_unchanged(&file.page, &t.sha256, &text)) {
            Ok(Ok(())) => {
                written.push(file.page.clone());
                let (text, sha256) = file_text_and_sha256(&file.page);
                saved.insert(lang.clone(), sha256.into());
                texts.insert(lang.clone(), text.into());
            }
            Ok(Err(WriteError::Conflict { current })) => {
                return answer(
                    StatusCode::CONFLICT,
                    serde_json::json!({
                        "error": format!("the {lang} file changed on disk since this editor opened it; the case file was saved, this language was not. Reload the editor, then make the change again."),
                        "current": current,
                        "lang": lang,
                    }),
                );
            }
            Ok(Err(e)) => {
                return failed(StatusCode::INTERNAL_SERVER_ERROR, format!("{shown}: {e}"));
            }
            Err(e) => return failed(StatusCode::UNPROCESSABLE_ENTITY, format!("{shown}: {e}")),
        }
    }
    answer(
        StatusCode::OK,
        serde_json::json!({ "saved": saved, "texts": texts }),
    )
}
