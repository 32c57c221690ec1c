//! Languages as the site writes them: which codes are languages, their direction and own
//! names, the digits numbers are written in, month names, dates and list separators.
//!
//! Everything that depends on a language alone (not on the site's configuration) lives here,
//! so config, content, rendering and charts share one answer.

use chrono::Datelike;

/// Languages written right to left; everything else is left to right.
const RTL_LANGUAGES: &[&str] = &[
    "ar", "arc", "ckb", "dv", "fa", "he", "ps", "sd", "ug", "ur", "yi",
];

/// Whether `code` is a language code as casebook accepts one: two or three lowercase ASCII
/// letters (ISO 639-1 or 639-3), the same in `languages` and in file names (`index.ar.md`).
pub(crate) fn is_language_code(code: &str) -> bool {
    (2..=3).contains(&code.len()) && code.bytes().all(|b| b.is_ascii_lowercase())
}

/// `rtl` or `ltr`.
pub(crate) fn direction(code: &str) -> &'static str {
    if RTL_LANGUAGES.contains(&code) {
        "rtl"
    } else {
        "ltr"
    }
}

/// A language's own name for itself, for the language switcher.
pub(crate) fn language_name(code: &str) -> Option<&'static str> {
    Some(match code {
        "ar" => "العربية",
        "en" => "English",
        "fr" => "Français",
        "de" => "Deutsch",
        "es" => "Español",
        "fa" => "فارسی",
        "ku" => "Kurdî",
        "tr" => "Türkçe",
        "he" => "עברית",
        "ru" => "Русский",
        _ => return None,
    })
}

/// Between the items of a list: Arabic script has its own comma.
pub(crate) fn list_separator(lang: &str) -> &'static str {
    if lang == "ar" || lang == "fa" || lang == "ur" {
        "، "
    } else {
        ", "
    }
}

/// The digits a language's numbers and dates are written in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Digits {
    /// 0123456789
    #[default]
    Latin,
    /// ٠١٢٣٤٥٦٧٨٩ (as in much Arabic print)
    ArabicIndic,
}

impl Digits {
    pub(crate) const NAMES: [&'static str; 2] = ["latin", "arabic-indic"];

    pub(crate) fn parse(s: &str) -> Option<Digits> {
        match s {
            "latin" => Some(Digits::Latin),
            "arabic-indic" => Some(Digits::ArabicIndic),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Digits::Latin => "latin",
            Digits::ArabicIndic => "arabic-indic",
        }
    }

    /// `text` with its ASCII digits written in these digits.
    pub(crate) fn apply(self, text: &str) -> String {
        match self {
            Digits::Latin => text.to_string(),
            Digits::ArabicIndic => text
                .chars()
                .map(|c| match c.to_digit(10) {
                    Some(d) if c.is_ascii_digit() => char::from_u32(0x0660 + d).unwrap_or(c),
                    _ => c,
                })
                .collect(),
        }
    }
}

const EN_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
/// Month names as used across the Levant (Syrian usage).
const AR_MONTHS: [&str; 12] = [
    "كانون الثاني",
    "شباط",
    "آذار",
    "نيسان",
    "أيار",
    "حزيران",
    "تموز",
    "آب",
    "أيلول",
    "تشرين الأول",
    "تشرين الثاني",
    "كانون الأول",
];

/// A month's name (1 to 12) in the language.
fn month_name(month: u32, lang: &str) -> &'static str {
    let months = if lang == "ar" { &AR_MONTHS } else { &EN_MONTHS };
    months[(month.clamp(1, 12) - 1) as usize]
}

/// `May 2013`, in the language's month names.
pub(crate) fn format_month(year: i32, month: u32, lang: &str) -> String {
    format!("{} {year}", month_name(month, lang))
}

/// `14 May 2013`, in the language's month names.
pub(crate) fn format_date(d: &chrono::NaiveDate, lang: &str) -> String {
    format!("{} {} {}", d.day(), month_name(d.month(), lang), d.year())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arabic_is_right_to_left_and_has_its_own_comma() {
        assert_eq!(direction("ar"), "rtl");
        assert_eq!(direction("en"), "ltr");
        assert_eq!(list_separator("ar"), "، ");
        assert_eq!(language_name("ar"), Some("العربية"));
    }

    #[test]
    fn language_codes_are_two_or_three_lowercase_letters() {
        assert!(is_language_code("ar") && is_language_code("ckb"));
        assert!(!is_language_code("AR") && !is_language_code("e") && !is_language_code("en-gb"));
    }

    #[test]
    fn digits_and_dates() {
        assert_eq!(Digits::ArabicIndic.apply("14 أيار 2012"), "١٤ أيار ٢٠١٢");
        assert_eq!(Digits::Latin.apply("2012"), "2012");
        let d = chrono::NaiveDate::from_ymd_opt(2013, 5, 14).unwrap();
        assert_eq!(format_date(&d, "en"), "14 May 2013");
        assert_eq!(format_month(2013, 5, "ar"), "أيار 2013");
    }
}
