//! Matching keys for person and place names, so spellings of one name meet across
//! transliterations and scripts. The same rules are in the JavaScript client
//! (`nameKey`); both are checked against `search-vectors.json` (`name_keys`).
//!
//! A name word (normalized) is read as a run of sounds in one shared alphabet:
//!
//! - Latin: `kh` X, `sh`/`ch` S, `gh` G, `th` t, `dh` d, `ph` f, `dj` j, `ck`/`c`/`q` k, `g` j,
//!   `v` f, `p` b, `x` ks; `ou oo uu` a long u (w); `ee ei ai ay ey ie ii` a long i (y);
//!   other vowels are vowels; a final `h` after a vowel is silent (Hamzeh = Hamza);
//! - Arabic: each consonant to its usual Latin letter (`خ` X, `ش` S, `غ` G, `ث ت ط` t,
//!   `ذ ض د` d, `ص س` s, `ظ ز` z, `ق ك` k, `ح ه` h); `ا`, `ع` and hamza are vowels;
//!   `و`/`ي` are consonants first, long vowels inside a word and vowels at the end; a final `ه`
//!   (also `ة`) is silent.
//!
//! Doubled consonants are written once (Haddad = Hadad, محمد with or without shadda). The
//! *strict* skeleton is the consonants and long vowels (Hussein, Husain, Husayn, حسين: `hsyn`);
//! the *loose* skeleton also drops the long vowels inside the word (Yusuf, Youssef, يوسف:
//! `ysf`), which is what a name in one script shares with the other. For Latin words the
//! class of the first vowel (a; e or i; o or u) tells Mohammed (u) from Mahmoud (a).
//!
//! The index holds, for each word of a name field, the term `~LOOSE~STRICT~CLASS` (CLASS
//! `.` for Arabic): one prefix (`~LOOSE~`) gathers every spelling, and the client weighs
//! each by how much more it shares with the query.

/// One sound of a name, in the shared alphabet.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sound {
    Consonant(char),
    /// A long vowel written as a letter (`ou`, `ei`; `و`, `ي` inside a word).
    Long(char),
    /// A short or unwritten vowel, with its class for Latin words (`a`, `i`, `u`).
    Vowel(char),
}

/// Words shorter than this are not looked for with a typo (one edit from a three-letter
/// word is too many other words).
pub(crate) const TYPO_MIN_CHARS: usize = 4;

/// The prefix of every name-key term; no word term starts with it.
pub(crate) const KEY_MARK: char = '~';

/// The name-key term of a normalized word, or `None` for a word that is not a name
/// (numbers, other scripts, no consonant).
pub(crate) fn name_key(word: &str) -> Option<String> {
    let (sounds, class) = if word.chars().any(is_arabic_letter) {
        (arabic_sounds(word)?, '.')
    } else {
        let sounds = latin_sounds(word)?;
        let class = sounds
            .iter()
            .find_map(|s| match s {
                Sound::Vowel('-') => None,
                Sound::Vowel(c) => Some(*c),
                Sound::Long('w') => Some('u'),
                Sound::Long(_) => Some('i'),
                Sound::Consonant(_) => None,
            })
            .unwrap_or('-');
        (sounds, class)
    };
    let strict = strict_skeleton(&sounds);
    if strict.is_empty() {
        return None;
    }
    let loose = loose_skeleton(&strict);
    Some(format!(
        "{KEY_MARK}{loose}{KEY_MARK}{strict}{KEY_MARK}{class}"
    ))
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

/// The `~LOOSE~` part of a key term: what every spelling of the name shares. Any other
/// text is returned whole.
pub(crate) fn loose_part(key: &str) -> &str {
    match key
        .strip_prefix(KEY_MARK)
        .and_then(|rest| rest.find(KEY_MARK))
    {
        Some(i) => &key[..i + 2],
        None => key,
    }
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
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let pair = b.get(i..i + 2).unwrap_or(&[]);
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
            _ => None,
        };
        if let Some(sound) = two {
            // A word that begins with a long vowel (Oussama) begins with a vowel.
            out.push(match sound {
                Sound::Long('w') if i == 0 => Sound::Vowel('u'),
                Sound::Long(_) if i == 0 => Sound::Vowel('i'),
                s => s,
            });
            i += 2;
            continue;
        }
        let next_is_vowel = b.get(i + 1).is_some_and(|c| b"aeiou".contains(c));
        match b[i] {
            b'\'' => out.push(Sound::Vowel('-')),
            b'a' => out.push(Sound::Vowel('a')),
            b'e' | b'i' => out.push(Sound::Vowel('i')),
            b'o' | b'u' => out.push(Sound::Vowel('u')),
            // y is a consonant first and before a vowel (Yasser, Sayyid), else a vowel (Hany).
            b'y' if i == 0 || next_is_vowel => out.push(Sound::Consonant('y')),
            b'y' => out.push(Sound::Vowel('i')),
            b'h' if i + 1 == b.len() && matches!(out.last(), Some(Sound::Vowel(_))) => {}
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
    let mut out = Vec::with_capacity(chars.len());
    for (i, &c) in chars.iter().enumerate() {
        let first = i == 0;
        let last = i + 1 == chars.len();
        let sound = match c {
            'ا' | 'ء' | 'ئ' | 'ؤ' | 'ع' => Sound::Vowel('.'),
            'و' | 'ي' | 'ى' if last && !first => Sound::Vowel('.'),
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

/// Consonants and long vowels, a consonant doubled without a vowel between written once.
fn strict_skeleton(sounds: &[Sound]) -> String {
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
            Sound::Vowel(_) => None,
        };
    }
    out
}

/// The strict skeleton without `w` and `y` after its first letter, doubles written once.
fn loose_skeleton(strict: &str) -> String {
    let mut out = String::with_capacity(strict.len());
    for (i, c) in strict.chars().enumerate() {
        if i > 0 && matches!(c, 'w' | 'y') {
            continue;
        }
        if !out.ends_with(c) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loose(w: &str) -> String {
        loose_part(&name_key(w).unwrap()).to_string()
    }

    #[test]
    fn spellings_of_one_name_share_the_loose_key() {
        for group in [
            &[
                "mohammed", "muhammad", "mohamed", "mohammad", "muhammed", "محمد",
            ][..],
            &["youssef", "yusuf", "yousef", "يوسف"],
            &["hussein", "husain", "hussain", "husayn", "حسين"],
            &["khatib", "خطيب"],
            &["abdel", "abdul", "abdal"],
            &["hamza", "hamzeh", "حمزه"],
            &["haddad", "hadad", "حداد"],
            &["bashar", "bachar", "بشار"],
            &["abdullah", "abdallah", "عبدالله"],
            &["ibrahim", "ebrahim", "ابراهيم", "ibrahem"],
        ] {
            let keys: Vec<String> = group.iter().map(|w| loose(w)).collect();
            assert!(keys.iter().all(|k| k == &keys[0]), "{group:?}: {keys:?}");
        }
    }

    #[test]
    fn different_names_keep_apart_where_the_letters_allow() {
        // Same loose skeleton, told apart by the strict skeleton or the first vowel.
        let key = |w: &str| name_key(w).unwrap();
        assert_eq!(key("hussein"), "~hsn~hsyn~u");
        assert_eq!(key("hassan"), "~hsn~hsn~a");
        assert_eq!(key("mohammed"), "~mhmd~mhmd~u");
        assert_eq!(key("mahmoud"), "~mhmd~mhmwd~a");
        assert_eq!(key("محمود"), "~mhmd~mhmwd~.");
        assert_eq!(key("حسين"), "~hsn~hsyn~.");
        assert_eq!(name_key("2761"), None);
        // An ayn or hamza mark is a break between sounds, as ع and أ are in Arabic.
        assert_eq!(key("sa'id"), "~sd~sd~a");
        assert_eq!(key("ma’moun"), "~mn~mmwn~a");
        assert_eq!(key("مامون"), "~mn~mmwn~.");
        assert_eq!(name_key("ааа"), None);
    }

    #[test]
    fn shared_vectors_hold() {
        let vectors: serde_json::Value =
            serde_json::from_str(include_str!("../../search-vectors.json")).unwrap();
        for v in vectors["name_keys"].as_array().unwrap() {
            let word = v["input"].as_str().unwrap();
            assert_eq!(name_key(word).as_deref(), v["output"].as_str(), "{v}");
        }
    }

    #[test]
    fn a_latin_name_with_the_article_run_on_gives_the_name_after_it() {
        assert_eq!(latin_article_bare("alkhatib"), Some("khatib"));
        assert_eq!(latin_article_bare("elmasri"), Some("masri"));
        // Too short to be a name of its own, or not a Latin word.
        assert_eq!(latin_article_bare("alaa"), None);
        assert_eq!(latin_article_bare("elias"), None);
        assert_eq!(latin_article_bare("الخطيب"), None);
    }

    #[test]
    fn abd_joined_to_the_name_after_it_meets_the_name_written_as_one_word() {
        let terms = crate::search::normalize::terms;
        assert!(terms("Abd al-Rahman").contains(&"abdalrahman".to_string()));
        assert!(!terms("Abd al-Rahman").contains(&"abdal".to_string()));
        assert!(terms("Abdel Rahman").contains(&"abdelrahman".to_string()));
        assert!(terms("عبد الرحمن").contains(&"عبدالرحمن".to_string()));
        assert_eq!(loose("abdalrahman"), loose("abdulrahman"));
        assert_eq!(loose("abdalrahman"), loose("عبدالرحمن"));
    }
}
