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
    let mut out = String::with_capacity(text.len());
    unfolded_into(text, &mut out);
    out
}

/// [`unfolded`], written at the end of `out`.
fn unfolded_into(text: &str, out: &mut String) {
    // ASCII has nothing to decompose, strip or recompose: lower case is the whole rule. Runs
    // of it are handled apart from the rest, which is safe because nothing composes with an
    // ASCII character once combining marks are gone.
    let mut rest = text;
    while !rest.is_empty() {
        let ascii = rest.bytes().take_while(u8::is_ascii).count();
        let start = out.len();
        out.push_str(&rest[..ascii]);
        out[start..].make_ascii_lowercase();
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
/// after it (see [`Terms::join_abd`]).
#[cfg(test)]
pub(crate) fn terms(text: &str) -> Vec<String> {
    let t = Terms::read(text);
    t.iter().map(str::to_string).collect()
}

/// The words of a text as written, in order, whose positions the index keeps for quoted
/// phrases: those of [`terms`] without the forms added to them (function words left out, the
/// article kept).
#[cfg(test)]
pub(crate) fn phrase_words(text: &str) -> Vec<String> {
    let t = Terms::read(text);
    t.words.iter().map(|&w| t.get(w).to_string()).collect()
}

/// The terms of one text as ranges of one buffer: the normalized text, then whatever is not
/// a piece of it (a word with `ى` folded, `abd` joined). Indexing a whole archive reads
/// millions of words; none of them costs an allocation of its own.
#[derive(Default)]
pub(crate) struct Terms {
    buf: String,
    spans: Vec<(u32, u32)>,
    /// Which of `spans` are words as written (not a bare form, month or joined name), in
    /// order.
    pub(crate) words: Vec<u32>,
}

impl Terms {
    pub(crate) fn read(text: &str) -> Terms {
        let mut t = Terms::default();
        t.reread(text);
        t
    }

    /// The terms of `text` in place of the ones held, reusing their memory.
    pub(crate) fn reread(&mut self, text: &str) {
        self.buf.clear();
        self.spans.clear();
        self.words.clear();
        unfolded_into(text, &mut self.buf);
        let len = self.buf.len();
        let mut at = 0;
        while at < len {
            let rest = &self.buf[at..len];
            let end = rest
                .find(|c: char| c.is_whitespace() || c == ',' || c == ';')
                .unwrap_or(rest.len());
            let raw = &rest[..end];
            let chunk = raw.trim_matches(|c: char| !c.is_alphanumeric());
            let from = at + (chunk.as_ptr() as usize - raw.as_ptr() as usize);
            let sep = rest[end..].chars().next().map_or(0, char::len_utf8);
            at += end + sep;
            if chunk.is_empty() {
                continue;
            }
            // Letters and digits in ASCII are one word by the Unicode rules: most of the text
            // of an English archive skips the word segmenter.
            if chunk.bytes().all(|b| b.is_ascii_alphanumeric()) {
                self.push_word(from, from + chunk.len());
                continue;
            }
            self.read_chunk(from, from + chunk.len());
        }
        self.join_abd();
    }

    fn read_chunk(&mut self, from: usize, to: usize) {
        let chunk = &self.buf[from..to];
        if is_compound(chunk) {
            let date = is_iso_date(chunk);
            self.spans.push((from as u32, to as u32));
            if date {
                self.spans.push((from as u32, from as u32 + 7));
            }
        }
        let words: Vec<(usize, usize)> = self.buf[from..to]
            .unicode_word_indices()
            .map(|(i, w)| (from + i, from + i + w.len()))
            .collect();
        for (a, b) in words {
            let word = &self.buf[a..b];
            if is_stop_word(word) {
                continue;
            }
            let (a, b) = if word.contains('ى') {
                let folded = word.replace('ى', "ي");
                self.append(&folded)
            } else {
                (a, b)
            };
            self.push_word(a, b);
            let word = &self.buf[a..b];
            if let Some(rest) = word.strip_prefix("ال")
                && rest.chars().count() >= 2
            {
                self.spans.push(((b - rest.len()) as u32, b as u32));
            }
        }
    }

    fn push_word(&mut self, from: usize, to: usize) {
        self.words.push(self.spans.len() as u32);
        self.spans.push((from as u32, to as u32));
    }

    /// Adds `text` after the normalized text; returns its range.
    fn append(&mut self, text: &str) -> (usize, usize) {
        let from = self.buf.len();
        self.buf.push_str(text);
        (from, self.buf.len())
    }

    fn get(&self, span: u32) -> &str {
        let (a, b) = self.spans[span as usize];
        &self.buf[a as usize..b as usize]
    }

    /// The `i`th word as written.
    fn word(&self, i: usize) -> Option<&str> {
        self.words.get(i).map(|&s| self.get(s))
    }

    /// `abd` ("servant of", the first half of many names) joined to the name after it, through
    /// a Latin article when there is one: `Abd al-Rahman` and `Abdel Rahman` are also
    /// `abdalrahman` and `abdelrahman`, `عبد الرحمن` also `عبدالرحمن`, since names are written
    /// both ways.
    fn join_abd(&mut self) {
        for i in 0..self.words.len() {
            let first = self.word(i).unwrap_or_default();
            if !is_abd(first) {
                continue;
            }
            let joined = match (self.word(i + 1), self.word(i + 2)) {
                (Some(article), Some(name)) if first == "abd" && is_latin_article(article) => {
                    format!("{first}{article}{name}")
                }
                (Some(name), _) => format!("{first}{name}"),
                (None, _) => continue,
            };
            let (a, b) = self.append(&joined);
            self.spans.push((a as u32, b as u32));
        }
    }

    /// How many terms there are.
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.spans.len() as u32).map(|s| self.get(s))
    }
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
                is_stop_word(word) || is_latin_article(word) || word == "ال",
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
            /// among the terms the index holds for the same text. Unless the text is only
            /// function words and articles: the index leaves function words out, and such a
            /// query looks for them as typed, folded (`على` alone looks for `علي`, a name).
            #[test]
            fn a_text_searched_for_finds_itself(t in text()) {
                let indexed = terms(&t);
                prop_assume!(indexed.iter().any(|w| w != "ال" && !is_latin_article(w)));
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
            ("phrase_words", phrase_words as Split),
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
