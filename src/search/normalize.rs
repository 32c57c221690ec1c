//! Text normalization for search, identical in Rust and in the JavaScript client.
//!
//! Compatibility forms folded (NFKC: fullwidth digits, Arabic presentation forms, ligatures);
//! zero-width and bidirectional control characters dropped; lowercase; strip diacritics
//! (decompose, drop combining marks); for Arabic also strip
//! harakat and tatweel, unify alef forms (أ إ آ ٱ -> ا), ى -> ي, ة -> ه; Arabic-Indic and
//! Persian digits -> ASCII. Terms are split on Unicode word boundaries, except that
//! identifiers such as `2761/215` are kept whole as well as split; Arabic words starting with
//! the article "ال" are indexed with and without it. The shared vectors in
//! `search-vectors.json` are checked by the Rust tests and the JavaScript tests alike.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use unicode_segmentation::UnicodeSegmentation;

/// Normalizes one piece of text (see the module docs).
pub(crate) fn normalize(text: &str) -> String {
    fold_maqsura(&unfolded(text))
}

/// `ى` written `ي`: the last step of [`normalize`], taken after function words are known.
fn fold_maqsura(text: &str) -> String {
    if text.contains('ى') {
        text.replace('ى', "ي")
    } else {
        text.to_string()
    }
}

/// Arabic function words, normalized but with `ى` kept: dropped from the index and from
/// queries that hold other words. Folded, `على` ("on") would be `علي` (the name Ali), and
/// `في`, `من` would match most of every Arabic page. Names such as منى or هدى are not here.
const ARABIC_STOP_WORDS: &[&str] = &[
    "على",
    "الى",
    "في",
    "من",
    "عن",
    "حتى",
    "لدى",
    "متى",
    "سوى",
    "عند",
    "مع",
    "منذ",
    "ثم",
    "او",
    "ان",
    "لا",
    "لم",
    "لن",
    "ما",
    "قد",
    "هل",
    "بل",
    "لكن",
    "الذي",
    "التي",
    "الذين",
    "هذا",
    "هذه",
    "ذلك",
    "تلك",
    "هو",
    "هي",
    "هم",
    "كان",
    "كانت",
    "بين",
    "بعد",
    "قبل",
    "دون",
    "خلال",
];

fn is_stop_word(word: &str) -> bool {
    ARABIC_STOP_WORDS.contains(&word)
}

/// [`normalize`] without the `ى` fold.
fn unfolded(text: &str) -> String {
    // ASCII has nothing to decompose, strip or recompose: lower case is the whole rule. Runs
    // of it are handled apart from the rest, which is safe because nothing composes with an
    // ASCII character once combining marks are gone.
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let ascii = rest.bytes().take_while(u8::is_ascii).count();
        out.extend(rest[..ascii].chars().map(|c| c.to_ascii_lowercase()));
        rest = &rest[ascii..];
        let other = rest
            .char_indices()
            .find(|(_, c)| c.is_ascii())
            .map_or(rest.len(), |(i, _)| i);
        if other > 0 {
            out.push_str(&normalize_unicode(&rest[..other]));
            rest = &rest[other..];
        }
    }
    out
}

fn normalize_unicode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.nfkd() {
        if is_combining_mark(c) || is_arabic_mark(c) || c == '\u{0640}' || is_invisible(c) {
            continue; // diacritics, harakat, tatweel, zero-width and bidi controls
        }
        let c = match c {
            'أ' | 'إ' | 'آ' | 'ٱ' => 'ا',
            'ة' => 'ه',
            '\u{0660}'..='\u{0669}' => char::from(b'0' + (c as u32 - 0x0660) as u8),
            '\u{06F0}'..='\u{06F9}' => char::from(b'0' + (c as u32 - 0x06F0) as u8),
            c => c,
        };
        out.extend(c.to_lowercase());
    }
    // NFKD splits آ into ا + madda (a combining mark), so alef forms mostly arrive bare;
    // recompose what is left so other scripts keep their canonical form.
    out.nfc().collect()
}

/// Characters that change how text is shown or joined, never what it says: the soft hyphen,
/// zero-width space, joiners and marks, bidirectional embeddings and isolates, the word
/// joiner and the byte-order mark. Pasted names often carry them.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// Harakat, Quranic annotation marks and the superscript alef.
fn is_arabic_mark(c: char) -> bool {
    matches!(c, '\u{064B}'..='\u{065F}' | '\u{0670}' | '\u{06D6}'..='\u{06ED}')
}

/// The index terms of a text, in order: identifiers like `2761/215` whole and in parts, an
/// ISO date whole and as its month (`2012-05-14`, `2012-05`), then `abd` joined to the name
/// after it (see [`abd_joined`]).
pub(crate) fn terms(text: &str) -> Vec<String> {
    terms_and_words(text).0
}

/// Adjacent words of a text as one term each (`died in` -> `died in`), so a quoted phrase
/// finds its words next to each other and in order. The words are those of [`terms`] as
/// written (function words left out, the article kept).
#[cfg(test)]
pub(crate) fn phrase_pairs(text: &str) -> Vec<String> {
    terms_and_pairs(text).1
}

/// [`terms`] and [`phrase_pairs`] of a text, read once.
pub(crate) fn terms_and_pairs(text: &str) -> (Vec<String>, Vec<String>) {
    let (terms, words) = terms_and_words(text);
    let pairs = words
        .windows(2)
        .map(|w| format!("{} {}", terms[w[0]], terms[w[1]]))
        .collect();
    (terms, pairs)
}

/// The index terms of a text, and where its words as written are among them, in order.
fn terms_and_words(text: &str) -> (Vec<String>, Vec<usize>) {
    let normalized = unfolded(text);
    let mut out = Vec::new();
    let mut plain: Vec<usize> = Vec::new();
    for chunk in normalized.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
        let chunk = chunk.trim_matches(|c: char| !c.is_alphanumeric());
        // Letters and digits in ASCII are one word by the Unicode rules: most of the text
        // of an English archive skips the word segmenter.
        if !chunk.is_empty() && chunk.bytes().all(|b| b.is_ascii_alphanumeric()) {
            plain.push(out.len());
            out.push(chunk.to_string());
            continue;
        }
        if is_compound(chunk) {
            out.push(chunk.to_string());
            if is_iso_date(chunk) {
                out.push(chunk[..7].to_string());
            }
        }
        for word in chunk.unicode_words() {
            if is_stop_word(word) {
                continue;
            }
            let word = fold_maqsura(word);
            let bare = word
                .strip_prefix("ال")
                .filter(|rest| rest.chars().count() >= 2)
                .map(str::to_string);
            plain.push(out.len());
            out.push(word);
            out.extend(bare);
        }
    }
    let joined = abd_joined(&out, &plain);
    out.extend(joined);
    (out, plain)
}

/// `abd` ("servant of", the first half of many names) joined to the name after it, through
/// a Latin article when there is one: `Abd al-Rahman` and `Abdel Rahman` are also
/// `abdalrahman` and `abdelrahman`, `عبد الرحمن` also `عبدالرحمن`, since names are written
/// both ways. `words` are the positions of the words as written among `terms`.
fn abd_joined(terms: &[String], words: &[usize]) -> Vec<String> {
    let mut out = Vec::new();
    let word = |i: usize| words.get(i).map(|&t| terms[t].as_str());
    for i in 0..words.len() {
        let first = terms[words[i]].as_str();
        if !is_abd(first) {
            continue;
        }
        match (word(i + 1), word(i + 2)) {
            (Some(article), Some(name)) if first == "abd" && is_latin_article(article) => {
                out.push(format!("{first}{article}{name}"));
            }
            (Some(name), _) => out.push(format!("{first}{name}")),
            (None, _) => {}
        }
    }
    out
}

/// `abd`, `عبد`, or `abd` with the article run on (`abdel`, `abdul`, `abdal`).
fn is_abd(word: &str) -> bool {
    matches!(
        word,
        "abd" | "عبد" | "abdel" | "abdul" | "abdal" | "abdil" | "abdol"
    )
}

/// `al`, `el`, `ul`: the Arabic article written apart in Latin letters (al-Khatib, el-Khatib).
fn is_latin_article(word: &str) -> bool {
    matches!(word, "al" | "el" | "ul")
}

/// The terms a query must match, in order, without repeats: an identifier like `2761/215`
/// as a whole only, and Arabic words as typed, article and all (the client also matches a
/// word typed with the article without it, ranked below: `الخطيب` finds `خطيب`, while
/// `الله` is never read as `له` alone). `abd` is joined to the name after it (`Abd
/// al-Rahman` is `abdalrahman`). Arabic function words and the article written apart in
/// Latin letters (`al`, `el`) are left out, unless the query holds nothing else (`على`
/// alone then looks for `علي`).
#[cfg(test)]
pub(crate) fn query_terms(text: &str) -> Vec<String> {
    let normalized = unfolded(text);
    let mut words: Vec<(String, bool)> = Vec::new();
    for chunk in normalized.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
        let chunk = chunk.trim_matches(|c: char| !c.is_alphanumeric());
        if is_compound(chunk) {
            words.push((chunk.to_string(), false));
            continue;
        }
        for word in chunk.unicode_words() {
            words.push((
                word.to_string(),
                is_stop_word(word) || is_latin_article(word),
            ));
        }
    }
    let mut joined: Vec<(String, bool)> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (word, stop) = &words[i];
        let next = words.get(i + 1).map(|w| w.0.as_str());
        let after = words.get(i + 2).map(|w| w.0.as_str());
        match (word.as_str(), next, after) {
            ("abd", Some(a), Some(name)) if is_latin_article(a) => {
                joined.push((format!("abd{a}{name}"), false));
                i += 3;
            }
            (first, Some(name), _) if is_abd(first) => {
                joined.push((format!("{word}{name}"), false));
                i += 2;
            }
            _ => {
                joined.push((word.clone(), *stop));
                i += 1;
            }
        }
    }
    let only_stop_words = joined.iter().all(|(_, stop)| *stop);
    let mut out: Vec<String> = Vec::new();
    for (word, stop) in joined {
        if stop && !only_stop_words {
            continue;
        }
        let term = fold_maqsura(&word);
        if !out.contains(&term) {
            out.push(term);
        }
    }
    out
}

/// Kept whole, besides its parts: an identifier like `2761/215`, or an ISO date like
/// `2012-10-01` (so a date query finds that day, not every text with 2012, 10 and 01).
fn is_compound(chunk: &str) -> bool {
    is_iso_date(chunk) || is_iso_month(chunk) || is_slashed(chunk)
}

/// `2012-05`: what a date's month is indexed as, and a query for a month becomes.
fn is_iso_month(chunk: &str) -> bool {
    chunk.len() == 7 && is_iso_date(&format!("{chunk}-01"))
}

fn is_iso_date(chunk: &str) -> bool {
    let bytes = chunk.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        })
}

fn is_slashed(chunk: &str) -> bool {
    chunk.contains('/')
        && chunk
            .split('/')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// Latin and Arabic letters, their marks and digits, separators and anything else.
        fn text() -> impl Strategy<Value = String> {
            let piece = prop_oneof![
                "[a-zA-Z0-9/ ,;.-]{1,8}",
                "[\u{0621}-\u{064A}\u{064B}-\u{0652}\u{0660}-\u{0669}\u{0640} ]{1,8}",
                Just("ال".to_string()),
                "[À-ÿ\u{0300}-\u{036F}]{1,4}",
                "\\PC{1,4}",
                ".{1,4}",
            ];
            proptest::collection::vec(piece, 0..8).prop_map(|p| p.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            /// Normalizing twice changes nothing more.
            #[test]
            fn normalizing_is_idempotent(t in text()) {
                let once = normalize(&t);
                prop_assert_eq!(normalize(&once), once);
            }

            /// Whatever a text is, searching for it finds it: each term of the query is
            /// among the terms the index holds for the same text (unless the text is only
            /// function words, which the index leaves out).
            #[test]
            fn a_text_searched_for_finds_itself(t in text()) {
                let indexed = terms(&t);
                prop_assume!(!indexed.is_empty());
                for q in query_terms(&t) {
                    prop_assert!(indexed.contains(&q), "{q:?} not in {indexed:?}");
                }
            }

            /// Terms are normalized and never empty.
            #[test]
            fn terms_are_normalized_words(t in text()) {
                for term in terms(&t) {
                    prop_assert!(!term.is_empty());
                    prop_assert_eq!(normalize(&term), term.clone());
                }
            }
        }
    }

    #[test]
    fn mixed_ascii_runs_match_the_whole_text_rule() {
        for text in [
            "Cafe\u{301} Straße · 2761/215",
            "e\u{301}",
            "Ab\u{64E}c",
            "x\u{1100}\u{1161}y",
        ] {
            assert_eq!(normalize(text), normalize_unicode(text), "{text:?}");
        }
    }

    #[test]
    fn ascii_words_skip_the_segmenter_with_the_same_terms() {
        for word in ["branch", "215", "syn0042", "a1b2", "x"] {
            let segmented: Vec<&str> = word.unicode_words().collect();
            assert_eq!(segmented, [word]);
            assert_eq!(terms(word), [word]);
        }
        assert_eq!(
            terms("Branch 215, al-Mezzeh; 2761/215 it's"),
            [
                "branch", "215", "al", "mezzeh", "2761/215", "2761", "215", "it's"
            ]
        );
    }

    #[test]
    fn shared_vectors_hold() {
        let vectors: serde_json::Value =
            serde_json::from_str(include_str!("../../search-vectors.json")).unwrap();
        let stop_words: Vec<&str> = vectors["stop_words"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        assert_eq!(stop_words, ARABIC_STOP_WORDS);
        for v in vectors["normalize"].as_array().unwrap() {
            assert_eq!(
                normalize(v["input"].as_str().unwrap()),
                v["output"].as_str().unwrap(),
                "{v}"
            );
        }
        type Split = fn(&str) -> Vec<String>;
        for (section, split) in [
            ("terms", terms as Split),
            ("query", query_terms as Split),
            ("pairs", phrase_pairs as Split),
        ] {
            for v in vectors[section].as_array().unwrap() {
                let expected: Vec<&str> = v["output"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t.as_str().unwrap())
                    .collect();
                assert_eq!(
                    split(v["input"].as_str().unwrap()),
                    expected,
                    "{section}: {v}"
                );
            }
        }
    }
}
