//! `reviewed = { by = "…", on = 2024-05-14, covers = "…" }` on a photograph: who checked
//! its redaction, when, and what exactly they checked.
//!
//! `covers` is a digest of what the review saw: the source's SHA-256, the regions and the
//! sensitivity. A review counts only while that digest is still the photograph's own, so
//! changing any of them afterwards (in the workbench, by hand, or by replacing the file)
//! leaves the photograph not reviewed.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::{RedactMethod, Region};
use crate::config::Sensitivity;
use crate::error::{Diagnostic, did_you_mean};

const REVIEW_KEYS: [&str; 3] = ["by", "on", "covers"];

/// Hex digits of `covers`: 64 bits, enough to tell one state of a photograph from another
/// (it guards against mistakes, not against someone who edits the file on purpose).
pub(crate) const COVERS_LEN: usize = 16;

/// A photograph's review, as written in its entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Review {
    /// Who reviewed it.
    pub(crate) by: String,
    /// When, as `YYYY-MM-DD`.
    pub(crate) on: String,
    /// `review_covers` of what was reviewed.
    pub(crate) covers: String,
}

/// What a review of a photograph in this state covers: the first 16 hex digits of the
/// SHA-256 of the source's SHA-256, the sensitivity and the regions (as casebook writes
/// them: `Region::normalized`), so a region written `0.30` by hand and `0.3` by the
/// workbench is the same region.
pub(crate) fn review_covers(
    source_sha256: &str,
    regions: &[Region],
    sensitivity: Sensitivity,
) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"casebook-review-1\n");
    hasher.update(source_sha256.to_ascii_lowercase().as_bytes());
    hasher.update(format!("\n{}\n", sensitivity.name()).as_bytes());
    for r in regions {
        let r = r.normalized();
        let method = match r.method {
            RedactMethod::Fill => "fill",
            RedactMethod::Pixelate => "pixelate",
        };
        hasher.update(
            format!(
                "{method} {} {} {} {}\n",
                fraction(r.x),
                fraction(r.y),
                fraction(r.w),
                fraction(r.h)
            )
            .as_bytes(),
        );
    }
    crate::hashing::hex(&hasher.finalize())[..COVERS_LEN].to_string()
}

/// A fraction as casebook writes it: rounded to at most 4 decimals, always with a decimal
/// point (`0.3`, `0.0512`, `1.0`).
pub(crate) fn fraction(v: f64) -> String {
    let mut s = format!("{:.4}", round4(v));
    while s.ends_with('0') && !s.ends_with(".0") {
        s.pop();
    }
    s
}

fn round4(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

impl Region {
    /// The region as casebook writes it: each number to 4 decimals, kept within the image
    /// (`x + w` and `y + h` at most 1 after rounding).
    pub(crate) fn normalized(&self) -> Region {
        let x = round4(self.x).clamp(0.0, 1.0);
        let y = round4(self.y).clamp(0.0, 1.0);
        Region {
            x,
            y,
            w: round4(self.w).clamp(0.0, round4(1.0 - x)),
            h: round4(self.h).clamp(0.0, round4(1.0 - y)),
            method: self.method,
        }
    }
}

/// Parses the `reviewed` value of photograph `photo` (written at `line` of `page`).
pub(super) fn parse(
    value: &toml::Value,
    page: &Path,
    line: usize,
    photo: usize,
    diags: &mut Vec<Diagnostic>,
) -> Option<Review> {
    let field = |k: &str| format!("photos[{photo}].reviewed{k}");
    let error = |k: &str, message: &str, hint: &str| {
        Diagnostic::new(page, message)
            .at(line, 1)
            .field(field(k))
            .hint(hint)
    };
    let Some(table) = value.as_table() else {
        diags.push(error(
            "",
            "reviewed must be a table",
            "write reviewed = { by = \"A. Editor\", on = 2024-05-14, covers = \"…\" }, or mark the photograph reviewed in the workbench of `casebook serve`",
        ));
        return None;
    };
    let before = diags.len();
    for key in table.keys().filter(|k| !REVIEW_KEYS.contains(&k.as_str())) {
        diags.push(
            Diagnostic::new(page, format!("unknown review key `{key}`"))
                .at(line, 1)
                .field(field(&format!(".{key}")))
                .hint(
                    did_you_mean(key, REVIEW_KEYS)
                        .unwrap_or_else(|| format!("known keys: {}", REVIEW_KEYS.join(", "))),
                ),
        );
    }
    let by = table
        .get("by")
        .and_then(toml::Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty());
    if by.is_none() {
        diags.push(error(
            ".by",
            "a review needs the reviewer's name",
            "write by = \"A. Editor\"",
        ));
    }
    let on = table.get("on").and_then(date);
    if on.is_none() {
        diags.push(error(
            ".on",
            "a review needs the date it was made, as a valid date",
            "write on = 2024-05-14 (year, month, day)",
        ));
    }
    let covers = table
        .get("covers")
        .and_then(toml::Value::as_str)
        .map(str::to_ascii_lowercase)
        .filter(|c| c.len() == COVERS_LEN && c.bytes().all(|b| b.is_ascii_hexdigit()));
    if covers.is_none() {
        diags.push(error(
            ".covers",
            "a review needs `covers`, the 16 hexadecimal digits of what it covered",
            "mark the photograph reviewed in the workbench of `casebook serve`, or copy the value `casebook check --verbose` lists for it (docs/photographs.md)",
        ));
    }
    if diags.len() > before {
        return None;
    }
    Some(Review {
        by: by?.to_string(),
        on: on?,
        covers: covers?,
    })
}

/// `YYYY-MM-DD` of a TOML date (no time) or of a string that is one (YAML's dates).
fn date(value: &toml::Value) -> Option<String> {
    let text = match value {
        toml::Value::Datetime(d) if d.time.is_none() && d.offset.is_none() => d.to_string(),
        toml::Value::String(s) => s.trim().to_string(),
        _ => return None,
    };
    let parsed = chrono::NaiveDate::parse_from_str(&text, "%Y-%m-%d").ok()?;
    Some(parsed.format("%Y-%m-%d").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(x: f64, y: f64, w: f64, h: f64) -> Region {
        Region {
            x,
            y,
            w,
            h,
            method: RedactMethod::Fill,
        }
    }

    #[test]
    fn covers_changes_with_the_source_the_regions_and_the_sensitivity() {
        let sha = "ab".repeat(32);
        let regions = [region(0.3, 0.05, 0.4, 0.3)];
        let base = review_covers(&sha, &regions, Sensitivity::Graphic);
        assert_eq!(base.len(), 16);
        assert!(base.bytes().all(|b| b.is_ascii_hexdigit()));
        // Written differently, the same region: the same review.
        assert_eq!(
            review_covers(
                &sha.to_uppercase(),
                &[region(0.30, 0.050_000_01, 0.4, 0.3)],
                Sensitivity::Graphic
            ),
            base
        );
        assert_ne!(
            review_covers(&"cd".repeat(32), &regions, Sensitivity::Graphic),
            base
        );
        assert_ne!(review_covers(&sha, &regions, Sensitivity::Sensitive), base);
        assert_ne!(
            review_covers(&sha, &[region(0.3, 0.05, 0.4, 0.31)], Sensitivity::Graphic),
            base
        );
        let mut pixelated = regions;
        pixelated[0].method = RedactMethod::Pixelate;
        assert_ne!(review_covers(&sha, &pixelated, Sensitivity::Graphic), base);
        assert_ne!(review_covers(&sha, &[], Sensitivity::Graphic), base);
    }

    #[test]
    fn fractions_have_at_most_four_decimals_and_stay_within_the_image() {
        assert_eq!(fraction(0.3), "0.3");
        assert_eq!(fraction(0.123_456), "0.1235");
        assert_eq!(fraction(1.0), "1.0");
        assert_eq!(fraction(0.0), "0.0");
        assert_eq!(fraction(0.000_01), "0.0");
        let r = region(0.333_35, 0.5, 0.666_65, 0.5).normalized();
        assert!(r.x + r.w <= 1.0 + 1e-9, "{r:?}");
        assert_eq!(fraction(r.x + r.w), "1.0");
    }

    fn parsed(text: &str) -> (Option<Review>, Vec<Diagnostic>) {
        let value: toml::Table = toml::from_str(text).unwrap();
        let mut diags = Vec::new();
        let review = parse(&value["reviewed"], Path::new("p.md"), 7, 2, &mut diags);
        (review, diags)
    }

    #[test]
    fn a_review_is_checked_key_by_key() {
        let (review, diags) = parsed(
            "reviewed = { by = \" A. Editor \", on = 2024-05-14, covers = \"0123456789ABCDEF\" }",
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            review,
            Some(Review {
                by: "A. Editor".into(),
                on: "2024-05-14".into(),
                covers: "0123456789abcdef".into()
            })
        );
        // YAML gives dates as strings.
        let (review, _) =
            parsed("reviewed = { by = \"B\", on = \"2024-02-29\", covers = \"0123456789abcdef\" }");
        assert_eq!(review.unwrap().on, "2024-02-29");

        let (review, diags) = parsed(
            "reviewed = { by = \"\", on = \"2023-02-29\", covers = \"xyz\", checked = true }",
        );
        assert_eq!(review, None);
        let fields: Vec<_> = diags.iter().map(|d| d.field.clone().unwrap()).collect();
        assert_eq!(
            fields,
            [
                "photos[2].reviewed.checked",
                "photos[2].reviewed.by",
                "photos[2].reviewed.on",
                "photos[2].reviewed.covers"
            ]
        );
        assert!(diags.iter().all(|d| d.line == 7 && d.hint.is_some()));
        let (_, diags) = parsed(
            "reviewed = { by = \"B\", on = 2024-05-14, covers = \"0123456789abcdef\", cover = 1 }",
        );
        assert_eq!(diags[0].hint.as_deref(), Some("did you mean `covers`?"));
        let (_, diags) = parsed("reviewed = \"yes\"");
        assert_eq!(diags[0].field.as_deref(), Some("photos[2].reviewed"));
        let (_, diags) = parsed(
            "reviewed = { by = \"B\", on = 2024-05-14T10:00:00, covers = \"0123456789abcdef\" }",
        );
        assert_eq!(diags[0].field.as_deref(), Some("photos[2].reviewed.on"));
    }
}
