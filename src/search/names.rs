//! Matching keys for person and place names, so spellings of one name meet across
//! transliterations and scripts, and names that only look alike are told apart. The same
//! rules are in the JavaScript client (`nameKey`, `sameName`); both are checked against
//! `search-vectors.json` (`name_keys`, `same_name`).
//!
//! A name word (normalized) is read as a run of sounds in one shared alphabet:
//!
//! - Latin: `kh` X, `sh`/`ch` S, `gh` G, `th` t, `dh` d, `ph` f, `dj` j, `ck`/`c`/`q` k, `g` j,
//!   `v` f, `p` b, `x` ks; `ou oo uu` a long u (w), `ee ei ai ay ey ie ii` a long i (y), `aa` a
//!   long a; a single `a i o u` before the end of the word *may* be long (Latin letters do not
//!   say: Yusuf is يوسف, Hassan is حسن or حسان); `e` is short; a final `h` after a vowel is
//!   silent (Hamzeh = Hamza);
//! - Arabic: each consonant to its usual Latin letter (`خ` X, `ش` S, `غ` G, `ث ت ط` t,
//!   `ذ ض د` d, `ص س` s, `ظ ز` z, `ق ك` k, `ح ه` h); `ع` and hamza are vowels; `ا`, `و`, `ي`
//!   inside a word are long vowels (`و`/`ي` are consonants first; a final `ا` or `و` is a
//!   vowel, a final `ي` is read below); a final `ه` (also `ة`) is silent.
//!
//! Doubled consonants are written once (Haddad = Hadad, محمد with or without shadda). The
//! *pattern* is the consonants and the long vowels, with a vowel that may be long written in
//! capitals (`A`, `I`, `U`): Hassan `hAsAn`, Hussein `hUsyn`, حسين `hsyn`. At a word's end a
//! Latin `i` or `y` is a long i (Hosni `hUsny`), another Latin vowel letter a final vowel `E`
//! (Mustafa `mUstAfE`, which may be left out), and an Arabic `ي` (also `ى`, folded into it)
//! `Y`, a long i or a final vowel but never nothing (حسني `hsnY`: Hosni or Husna, not Hassan).
//! Two spellings are **the same name** when some reading of one pattern (each capital read
//! long or left out; `Y` read `y` or `e`) is a reading of the other; both in Latin letters,
//! their first vowels agree (Mohammed `u`, Mahmud `a`); both in Arabic, the patterns are one. The *loose* skeleton keeps the consonants alone (after the first letter,
//! no `w` or `y`): what a name shares with names that only sound like it (Hussein and Hassan,
//! `hsn`), which are *near*, never the same.
//!
//! The index holds, for each word of a name field, the term `~LOOSE~PATTERN~CLASS~LABEL`
//! (CLASS `.` for Arabic; LABEL the key's most common spelling, which the client shows for a
//! near match): one prefix (`~LOOSE~`) gathers every spelling and every near name.

use rustc_hash::FxHashMap;

use super::normalize::normalize;

/// One sound of a name, in the shared alphabet.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sound {
    Consonant(char),
    /// A long vowel written as one (`ou`, `ee`, `aa`; ا و ي inside an Arabic word): `a`, `w`, `y`.
    Long(char),
    /// A Latin vowel letter that may stand for a long vowel or a short one (`a`, `w`, `y`).
    Maybe(char),
    /// A short or unwritten vowel, or an ayn or hamza mark.
    Vowel,
    /// A Latin word's last letter `a`, `e`, `o` or `u`: a vowel Arabic may write with a
    /// final ى (Mustafa مصطفى, Mona منى) or not at all (Hamza حمزة).
    FinalVowel,
    /// An Arabic word's final ي, which also stands for ى (the two are folded): a long i
    /// (حسني Hosni) or a final vowel (مصطفى Mustafa), never nothing (حسني is not حسن).
    FinalYa,
}

/// Words shorter than this are not looked for with a typo (one edit from a three-letter
/// word is too many other words).
pub(crate) const TYPO_MIN_CHARS: usize = 4;

/// The prefix of every name-key term; no word term starts with it.
pub(crate) const KEY_MARK: char = '~';

/// At most this many vowels that may be long are read both ways; later ones are read short.
#[cfg(test)]
const MAX_MAYBE: usize = 10;

/// Latin spellings whose vowels the rules cannot read, pinned to the Arabic they write:
/// pairs of different names that Latin letters write alike (Samir سمير and Samer سامر,
/// Jamil and Jamal, Kamil and Kamal), and common spellings whose letters hide a long vowel.
/// `[search] name_spellings` in casebook.toml adds to them.
const SPELLINGS: &[(&str, &str)] = &[
    ("samir", "سمير"),
    ("samer", "سامر"),
    ("amir", "أمير"),
    ("amer", "عامر"),
    ("jamil", "جميل"),
    ("jamal", "جمال"),
    ("gamal", "جمال"),
    ("bashir", "بشير"),
    ("bashar", "بشار"),
    ("kamal", "كمال"),
    ("kamil", "كامل"),
    ("kamel", "كامل"),
    ("karim", "كريم"),
    ("karam", "كرم"),
    ("nabil", "نبيل"),
    ("mahmud", "محمود"),
    ("moustafa", "مصطفى"),
];

/// Names that are one name in different languages, as relatives abroad write them: a
/// query for one finds the others as near matches. `[search] name_equivalents` adds groups.
const EQUIVALENTS: &[&[&str]] = &[
    &["joseph", "yusuf", "يوسف"],
    &["abraham", "ibrahim", "إبراهيم"],
    &["jesus", "issa", "isa", "عيسى"],
    &["peter", "pierre", "boutros", "بطرس"],
    &["john", "jean", "hanna", "yohanna", "يوحنا", "حنا"],
    &["mary", "marie", "maryam", "مريم"],
    &["george", "georges", "jirjis", "girgis", "جرجس", "جورج"],
    &["michael", "michel", "mikhail", "ميخائيل"],
    &["david", "dawud", "داود"],
    &["solomon", "suleiman", "سليمان"],
    &["moses", "musa", "موسى"],
    &["jacob", "yaqub", "يعقوب"],
    &["elias", "elijah", "ilyas", "إلياس"],
    &["gabriel", "jibril", "جبريل"],
    &["anthony", "antoine", "antoun", "أنطون"],
    &["noah", "nuh", "نوح"],
    &["adam", "آدم"],
    &["aaron", "harun", "هارون"],
];

/// The site's name rules: the built-in tables and what casebook.toml adds, normalized.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct NameRules {
    spellings: FxHashMap<String, String>,
    equivalents: Vec<Vec<String>>,
}

impl NameRules {
    /// The built-in tables with `spellings` (Latin → Arabic) and `equivalents` added.
    pub(crate) fn new(spellings: &[(String, String)], equivalents: &[Vec<String>]) -> NameRules {
        let mut rules = NameRules::default();
        let builtin = SPELLINGS
            .iter()
            .map(|(l, a)| (l.to_string(), a.to_string()));
        for (latin, arabic) in builtin.chain(spellings.iter().cloned()) {
            rules
                .spellings
                .insert(normalize(&latin), normalize(&arabic));
        }
        let builtin = EQUIVALENTS
            .iter()
            .map(|g| g.iter().map(|w| w.to_string()).collect::<Vec<_>>());
        for group in builtin.chain(equivalents.iter().cloned()) {
            let group: Vec<String> = group.iter().map(|w| normalize(w)).collect();
            if group.len() > 1 {
                rules.equivalents.push(group);
            }
        }
        rules
    }

    /// The tables as the client reads them (`nameRules` in the search meta).
    pub(crate) fn to_json(&self) -> serde_json::Value {
        let mut spellings: Vec<(&String, &String)> = self.spellings.iter().collect();
        spellings.sort();
        serde_json::json!({
            "spellings": spellings.into_iter().collect::<std::collections::BTreeMap<_, _>>(),
            "equivalents": self.equivalents,
        })
    }
}

/// An article written as a word of its own (`al`, `el`, `ul`, `ال`): never a name.
pub(crate) fn is_article(word: &str) -> bool {
    matches!(word, "al" | "el" | "ul" | "ال")
}

/// The name-key term of a normalized word (`~LOOSE~PATTERN~CLASS`), or `None` for a word
/// that is not a name (an article, a number, another script, no consonant).
pub(crate) fn name_key(word: &str, rules: &NameRules) -> Option<String> {
    if is_article(word) {
        return None;
    }
    let (sounds, class) = if word.chars().any(is_arabic_letter) {
        (arabic_sounds(word)?, '.')
    } else {
        let latin = latin_sounds(word)?;
        // The first vowel letter: a; e; i (or y); o or u. `e` writes a fatha as often as
        // a kasra (Ahmed, Khaled), so it agrees with a and i alike (`same_name`).
        let class = word
            .chars()
            .find_map(|c| match c {
                'a' => Some('a'),
                'e' => Some('e'),
                'i' => Some('i'),
                'o' | 'u' => Some('u'),
                _ => None,
            })
            .unwrap_or('-');
        // A pinned spelling reads as the Arabic it writes, keeping its own first vowel.
        match rules.spellings.get(word).and_then(|a| arabic_sounds(a)) {
            Some(pinned) => (pinned, class),
            None => (latin, class),
        }
    };
    let pattern = pattern(&sounds);
    let loose = loose_skeleton(&sounds);
    if loose.is_empty() {
        return None;
    }
    Some(format!(
        "{KEY_MARK}{loose}{KEY_MARK}{pattern}{KEY_MARK}{class}"
    ))
}

/// Whether two key terms (with or without their labels) are spellings of the same name: a
/// reading in common and, both in Latin letters, first vowels that agree. The client decides
/// this (`sameName`); here it holds the shared vectors to the same rules.
#[cfg(test)]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    let (Some((pa, ca)), Some((pb, cb))) = (pattern_and_class(a), pattern_and_class(b)) else {
        return false;
    };
    let agree = ca == cb || ca == "e" || cb == "e";
    if ca != "." && cb != "." && !agree {
        return false;
    }
    // Arabic writes each spelling's letters: two Arabic words are one name only as one
    // pattern (حسني is not حسن, though either final ي might be read as a vowel).
    if ca == "." && cb == "." {
        return pa == pb;
    }
    let ra = readings(pa);
    readings(pb).iter().any(|r| ra.contains(r))
}

#[cfg(test)]
fn pattern_and_class(key: &str) -> Option<(&str, &str)> {
    let mut parts = key.strip_prefix(KEY_MARK)?.split(KEY_MARK);
    let _loose = parts.next()?;
    Some((parts.next()?, parts.next()?))
}

/// Every reading of a pattern: each vowel that may be long read long, or left out; a Latin
/// final vowel (`E`) read as a final vowel (`e`) or left out; an Arabic final ي (`Y`) read as
/// a long i or a final vowel.
#[cfg(test)]
fn readings(pattern: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut maybes = 0;
    for c in pattern.chars() {
        let (first, second) = match c {
            'A' => (None, 'a'),
            'I' => (None, 'y'),
            'U' => (None, 'w'),
            'E' => (None, 'e'),
            'Y' => (Some('y'), 'e'),
            c => {
                out.iter_mut().for_each(|r| r.push(c));
                continue;
            }
        };
        maybes += 1;
        if maybes > MAX_MAYBE {
            if let Some(first) = first {
                out.iter_mut().for_each(|r| r.push(first));
            }
            continue;
        }
        let with: Vec<String> = out.iter().map(|r| format!("{r}{second}")).collect();
        if let Some(first) = first {
            out.iter_mut().for_each(|r| r.push(first));
        }
        out.extend(with);
    }
    out
}

/// A Latin name with the article run on (`alkhatib`, `elmasri`): the name after it, which
/// is given the keys of its spellings too, so Alkhatib meets al-Khatib and الخطيب. Names
/// only: in running text, `already` is not `ready`.
pub(crate) fn latin_article_bare(word: &str) -> Option<&str> {
    let rest = word
        .strip_prefix("al")
        .or_else(|| word.strip_prefix("el"))?;
    (rest.len() >= 4 && rest.bytes().all(|b| b.is_ascii_lowercase())).then_some(rest)
}

/// The `~LOOSE~` part of a key term: what every spelling of the name, and every name near
/// it, shares. Any other text is returned whole.
pub(crate) fn loose_part(key: &str) -> &str {
    match key
        .strip_prefix(KEY_MARK)
        .and_then(|rest| rest.find(KEY_MARK))
    {
        Some(i) => &key[..i + 2],
        None => key,
    }
}

/// The key term of every name word of a language's documents (`None`: not a name), each
/// labelled with its key's most common spelling, so the client can name a near match.
/// `docs` holds each document's name words, without repeats.
pub(crate) fn key_terms<'a, Words: Iterator<Item = &'a str>>(
    docs: impl Iterator<Item = Words>,
    rules: &NameRules,
) -> FxHashMap<&'a str, Option<String>> {
    let mut key_of: FxHashMap<&str, Option<String>> = FxHashMap::default();
    let mut uses: FxHashMap<&str, usize> = FxHashMap::default();
    for words in docs {
        for w in words {
            key_of.entry(w).or_insert_with(|| name_key(w, rules));
            *uses.entry(w).or_default() += 1;
        }
    }
    let mut label: FxHashMap<&str, (usize, &str)> = FxHashMap::default();
    for (w, key) in &key_of {
        let Some(key) = key else { continue };
        let n = uses[w];
        let best = label.entry(key.as_str()).or_insert((n, w));
        if n > best.0 || (n == best.0 && *w < best.1) {
            *best = (n, w);
        }
    }
    let labelled: FxHashMap<String, String> = label
        .into_iter()
        .map(|(key, (_, w))| (key.to_string(), format!("{key}{KEY_MARK}{w}")))
        .collect();
    for key in key_of.values_mut().flatten() {
        *key = labelled[key.as_str()].clone();
    }
    key_of
}

fn is_arabic_letter(c: char) -> bool {
    matches!(
        c,
        '\u{0621}'..='\u{064A}' | '\u{067E}' | '\u{0686}' | '\u{06A4}' | '\u{06AF}'
    )
}

/// Marks written for ع or hamza in Latin letters (Sa'id, Ma’moun, ʿAli): a break between
/// sounds, as ع is in Arabic.
const AYN_MARKS: &[char] = &['\'', '\u{2018}', '\u{2019}', '\u{02BE}', '\u{02BF}', '`'];

fn latin_sounds(word: &str) -> Option<Vec<Sound>> {
    let word: String = word
        .chars()
        .map(|c| if AYN_MARKS.contains(&c) { '\'' } else { c })
        .collect();
    if !word.bytes().all(|b| b.is_ascii_lowercase() || b == b'\'')
        || !word.bytes().any(|b| b.is_ascii_lowercase())
    {
        return None;
    }
    let b = word.as_bytes();
    // The letters that sound: a final `h` after a vowel does not (Hamzeh).
    let vowel = |c: u8| b"aeiouy".contains(&c);
    let end = if b.len() > 1 && b[b.len() - 1] == b'h' && vowel(b[b.len() - 2]) {
        b.len() - 1
    } else {
        b.len()
    };
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < end {
        let pair = b.get(i..(i + 2).min(end)).unwrap_or(&[]);
        let two = match pair {
            b"kh" => Some(Sound::Consonant('X')),
            b"sh" | b"ch" => Some(Sound::Consonant('S')),
            b"gh" => Some(Sound::Consonant('G')),
            b"th" => Some(Sound::Consonant('t')),
            b"dh" => Some(Sound::Consonant('d')),
            b"ph" => Some(Sound::Consonant('f')),
            b"dj" => Some(Sound::Consonant('j')),
            b"ck" => Some(Sound::Consonant('k')),
            b"ou" | b"oo" | b"uu" => Some(Sound::Long('w')),
            b"ee" | b"ei" | b"ai" | b"ay" | b"ey" | b"ie" | b"ii" => Some(Sound::Long('y')),
            b"aa" => Some(Sound::Long('a')),
            _ => None,
        };
        if let Some(sound) = two {
            // A word that begins with a long vowel (Oussama, Eissa) may begin with a short one.
            out.push(match sound {
                Sound::Long(c) if i == 0 => Sound::Maybe(c),
                s => s,
            });
            i += 2;
            continue;
        }
        let last = i + 1 == end;
        let next_is_vowel = b.get(i + 1).is_some_and(|c| b"aeiou".contains(c)) && !last;
        // At the end, `i` and `y` write a long i (Hosni, Fathy: حسني, فتحي); another vowel
        // letter a final vowel.
        let maybe = |long: char| match (last, long) {
            (false, _) => Sound::Maybe(long),
            (true, 'y') => Sound::Long('y'),
            (true, _) => Sound::FinalVowel,
        };
        match b[i] {
            b'e' if last => out.push(Sound::FinalVowel),
            b'\'' | b'e' => out.push(Sound::Vowel),
            b'a' => out.push(maybe('a')),
            b'i' => out.push(maybe('y')),
            b'o' | b'u' => out.push(maybe('w')),
            // y is a consonant first and before a vowel (Yasser, Sayyid), else a vowel (Hany).
            b'y' if i == 0 || next_is_vowel => out.push(Sound::Consonant('y')),
            b'y' => out.push(maybe('y')),
            b'c' | b'q' | b'k' => out.push(Sound::Consonant('k')),
            b'g' => out.push(Sound::Consonant('j')),
            b'v' => out.push(Sound::Consonant('f')),
            b'p' => out.push(Sound::Consonant('b')),
            b'x' => {
                out.push(Sound::Consonant('k'));
                out.push(Sound::Consonant('s'));
            }
            c => out.push(Sound::Consonant(char::from(c))),
        }
        i += 1;
    }
    Some(out)
}

fn arabic_sounds(word: &str) -> Option<Vec<Sound>> {
    let chars: Vec<char> = word.chars().collect();
    // In `عبدال…` (Abd joined to the name after it) the alef is the article's, not a vowel.
    let abd_article = chars.starts_with(&['ع', 'ب', 'د', 'ا', 'ل']);
    let mut out = Vec::with_capacity(chars.len());
    for (i, &c) in chars.iter().enumerate() {
        let first = i == 0;
        let last = i + 1 == chars.len();
        let sound = match c {
            'ا' if first || last || (abd_article && i == 3) => Sound::Vowel,
            'ا' => Sound::Long('a'),
            'ء' | 'ئ' | 'ؤ' | 'ع' => Sound::Vowel,
            'ي' | 'ى' if last && !first => Sound::FinalYa,
            'و' if last && !first => Sound::Vowel,
            'و' if first => Sound::Consonant('w'),
            'ي' | 'ى' if first => Sound::Consonant('y'),
            'و' => Sound::Long('w'),
            'ي' | 'ى' => Sound::Long('y'),
            'ه' if last && !first => continue,
            'ه' | 'ح' => Sound::Consonant('h'),
            'خ' => Sound::Consonant('X'),
            'ش' | 'چ' => Sound::Consonant('S'),
            'غ' => Sound::Consonant('G'),
            'ث' | 'ت' | 'ط' => Sound::Consonant('t'),
            'ذ' | 'ض' | 'د' => Sound::Consonant('d'),
            'ص' | 'س' => Sound::Consonant('s'),
            'ظ' | 'ز' => Sound::Consonant('z'),
            'ق' | 'ك' => Sound::Consonant('k'),
            'ج' | 'گ' => Sound::Consonant('j'),
            'ب' | 'پ' => Sound::Consonant('b'),
            'ف' | 'ڤ' => Sound::Consonant('f'),
            'ر' => Sound::Consonant('r'),
            'ل' => Sound::Consonant('l'),
            'م' => Sound::Consonant('m'),
            'ن' => Sound::Consonant('n'),
            _ => return None,
        };
        out.push(sound);
    }
    Some(out)
}

/// Consonants and long vowels, a vowel that may be long in capitals; a consonant doubled
/// without a vowel between written once.
fn pattern(sounds: &[Sound]) -> String {
    let mut out = String::new();
    let mut previous: Option<char> = None;
    for &s in sounds {
        previous = match s {
            Sound::Consonant(c) | Sound::Long(c) => {
                if previous != Some(c) {
                    out.push(c);
                }
                Some(c)
            }
            Sound::Maybe(long) => {
                out.push(match long {
                    'a' => 'A',
                    'y' => 'I',
                    _ => 'U',
                });
                None
            }
            Sound::FinalVowel => {
                out.push('E');
                None
            }
            Sound::FinalYa => {
                out.push('Y');
                None
            }
            Sound::Vowel => None,
        };
    }
    out
}

/// The consonants alone, without `w` and `y` after the first letter, doubles written once.
fn loose_skeleton(sounds: &[Sound]) -> String {
    let mut out = String::new();
    for s in sounds {
        let Sound::Consonant(c) = *s else { continue };
        if !out.is_empty() && matches!(c, 'w' | 'y') {
            continue;
        }
        if !out.ends_with(c) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
#[path = "names_tests.rs"]
mod tests;
