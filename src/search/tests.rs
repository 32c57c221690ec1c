//! Unit tests of the search index: ranking, identifiers, shards, facets, determinism.

use super::files::SUMMARY_CHARS;
use super::*;
use crate::config::SearchWeights;

pub(super) fn config() -> SearchConfig {
    SearchConfig {
        enabled: true,
        identifiers: Vec::new(),
        names: Vec::new(),
        name_spellings: Vec::new(),
        name_equivalents: Vec::new(),
        weights: SearchWeights {
            title: 4.0,
            identifier: 8.0,
            fields: 2.0,
            text: 1.0,
        },
        results_per_page: 10,
    }
}

pub(super) fn doc(title: &str, text: &str) -> Doc {
    Doc {
        path: format!("/{}/", title.to_lowercase().replace(' ', "-")),
        title: title.into(),
        text: text.into(),
        ..Doc::default()
    }
}

pub(super) fn input(docs: Vec<Doc>) -> LangInput {
    LangInput {
        lang: "en".into(),
        docs: docs.into_iter().map(Arc::new).collect(),
        facets: Vec::new(),
    }
}

/// The data a file registers, parsed back from its JavaScript.
fn data(o: &Output) -> (String, serde_json::Value) {
    let text = String::from_utf8(o.read().unwrap().into_owned()).unwrap();
    let inner = text
        .strip_prefix("casebook.search.add(")
        .unwrap()
        .strip_suffix(");\n")
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&format!("[{inner}]")).unwrap();
    (v[0].as_str().unwrap().to_string(), v[1].clone())
}

pub(super) fn postings_of(index: &SearchIndex, term: &str) -> Option<Vec<(u64, char)>> {
    for o in &index.outputs {
        let (name, v) = data(o);
        if !name.starts_with('t') {
            continue;
        }
        let list = v.as_array().unwrap();
        for pair in list.chunks(2) {
            if pair[0] == term {
                let s = pair[1].as_str().unwrap();
                // Deltas and scores alternate: a varint, then one score character.
                let mut out = Vec::new();
                let mut rest = s;
                let mut doc = 0;
                while !rest.is_empty() {
                    let len = rest
                        .bytes()
                        .position(|b| {
                            let v = encode::ALPHABET.iter().position(|&a| a == b).unwrap();
                            v & 32 == 0
                        })
                        .unwrap()
                        + 1;
                    doc += encode::read_varints(&rest[..len])[0];
                    let score = rest[len..].chars().next().unwrap();
                    out.push((doc, score));
                    rest = &rest[len + 1..];
                }
                return Some(out);
            }
        }
    }
    None
}

#[test]
fn postings_and_title_boost() {
    let index = build(
        &config(),
        &[input(vec![
            doc("Starvation", "A report."),
            doc("Other", "Starvation was recorded, with starvation again."),
            doc("Third", "Nothing here."),
        ])],
    );
    let p = postings_of(&index, "starvation").unwrap();
    assert_eq!(p.iter().map(|x| x.0).collect::<Vec<_>>(), vec![0, 1]);
    // A title match outranks two matches in the text.
    let pos = |c: char| encode::ALPHABET.iter().position(|&a| a as char == c);
    assert!(pos(p[0].1) > pos(p[1].1), "{p:?}");
    assert!(postings_of(&index, "nothing").is_some());
    assert!(postings_of(&index, "absent").is_none());
}

#[test]
fn identifiers_are_whole_and_split() {
    let mut d = doc("Case", "");
    d.identifiers = vec!["syn-0001".into(), "2761/215".into()];
    let index = build(&config(), &[input(vec![d])]);
    for t in ["syn-0001", "syn", "0001", "2761/215", "2761", "215"] {
        assert!(postings_of(&index, t).is_some(), "{t}");
    }
}

#[test]
fn shards_are_sorted_runs_and_files_are_hashed() {
    let docs: Vec<Doc> = (0..3000)
        .map(|i| {
            doc(
                &format!("Case {i}"),
                &format!("word{i} common text n{}", i * 7),
            )
        })
        .collect();
    let index = build(&config(), &[input(docs)]);
    let meta = index
        .outputs
        .iter()
        .map(data)
        .find(|(n, _)| n == "meta")
        .unwrap()
        .1;
    let shards = meta["shards"].as_array().unwrap();
    assert!(shards.len() > 3, "{}", shards.len());
    let firsts: Vec<&str> = shards.iter().map(|s| s.as_str().unwrap()).collect();
    let mut sorted = firsts.clone();
    sorted.sort_by(|a, b| js_order(a, b));
    assert_eq!(firsts, sorted);
    // Every term of shard i sorts at or after its first term and before the next first.
    let hashes = meta["files"]["t"].as_str().unwrap();
    let volume = meta["volume"].as_u64().unwrap() as usize;
    let mut volumes: Vec<Vec<u8>> = vec![Vec::new(); shards.len().div_ceil(volume)];
    for i in 0..shards.len() {
        let hash = &hashes[i / volume * 10..][..10];
        let file = format!("t{i}.{hash}.js");
        let o = index
            .outputs
            .iter()
            .find(|o| o.path.ends_with(&file))
            .unwrap();
        let (_, v) = data(o);
        for pair in v.as_array().unwrap().chunks(2) {
            let t = pair[0].as_str().unwrap();
            assert!(js_order(t, firsts[i]).is_ge());
            if let Some(next) = firsts.get(i + 1) {
                assert!(js_order(t, next).is_lt());
            }
        }
        // A term shard is small, unless one posting list is larger.
        if pairs_of(&v) > 1 {
            assert!(o.read().unwrap().len() < 6 * 1024, "{file}");
        }
        volumes[i / volume].extend_from_slice(&o.read().unwrap());
    }
    // Each volume of shards is named by a hash of its files.
    use sha2::Digest;
    for (v, bytes) in volumes.iter().enumerate() {
        let hash = crate::hashing::hex(&sha2::Sha256::digest(bytes));
        assert_eq!(&hashes[v * 10..][..10], &hash[..10]);
    }
    // Chunks hold a few documents.
    assert_eq!(meta["chunk"], 4);
    let chunks = index
        .outputs
        .iter()
        .filter(|o| o.path.starts_with("search/en/d") && !o.path.contains("/dates."))
        .count();
    assert_eq!(chunks, 3000 / 4);
}

/// How many documents a word's postings hold: a varint (its last character below 32), then
/// a score character, for each.
fn posting_count(s: &str) -> usize {
    let value = |b: u8| encode::ALPHABET.iter().position(|&a| a == b).unwrap();
    let (mut count, mut bytes) = (0, s.bytes());
    while let Some(b) = bytes.next() {
        if value(b) < 32 {
            bytes.next();
            count += 1;
        }
    }
    count
}

fn pairs_of(v: &serde_json::Value) -> usize {
    v.as_array().unwrap().len() / 2
}

#[test]
fn deterministic() {
    let docs: Vec<Doc> = (0..500)
        .map(|i| {
            doc(
                &format!("Case {i}"),
                &format!("alpha{} beta gamma{i}", i % 13),
            )
        })
        .collect();
    let a = build(&config(), &[input(docs.clone())]);
    let b = build(&config(), &[input(docs)]);
    let bytes = |i: &SearchIndex| {
        i.outputs
            .iter()
            .map(|o| (o.path.clone(), o.read().unwrap().into_owned()))
            .collect::<Vec<_>>()
    };
    assert_eq!(bytes(&a), bytes(&b));
}

#[test]
fn a_term_cache_gives_the_index_made_anew_and_forgets_a_dictionary_mostly_unused() {
    let bytes = |i: &SearchIndex| {
        (i.outputs.iter())
            .map(|o| (o.path.clone(), o.read().unwrap().into_owned()))
            .collect::<Vec<_>>()
    };
    let mut cache = TermCache::default();
    let made = |inputs: &[LangInput], cache: &mut TermCache| {
        let cached = build_cached(&config(), inputs, Some(cache));
        assert_eq!(bytes(&cached), bytes(&build(&config(), inputs)));
    };
    let first = [input(vec![
        doc("Case 1", "bruising of the wrists"),
        doc("Case 2", "ligature marks on the neck"),
    ])];
    made(&first, &mut cache);
    let words = cache.dictionary.len();
    // An edit: its new words numbered after the others, the rest reused.
    let edited = [input(vec![
        doc("Case 1", "bruising of the wrists and ankles"),
        doc("Case 2", "ligature marks on the neck"),
    ])];
    made(&edited, &mut cache);
    assert!(cache.dictionary.len() > words);
    assert_eq!(cache.dictionary.id_of("ankles"), Some(words as u32 + 1));
    // Every document replaced: under half of the words still used, a new dictionary.
    let other = [input(vec![doc("Other", "zebra")])];
    made(&other, &mut cache);
    assert_eq!((cache.docs.len(), cache.dictionary.len()), (0, 0));
    made(&edited, &mut cache);
    assert!(cache.dictionary.id_of("ankles").is_some());
}

#[test]
fn a_saved_index_reads_back_whole_and_only_under_its_key() {
    let docs: Vec<Doc> = (0..300)
        .map(|i| doc(&format!("Case {i}"), &format!("alpha{} beta", i % 7)))
        .collect();
    let index = build(&config(), &[input(docs)]);
    let saved = index.to_bytes(7);
    let back = SearchIndex::parse(&saved, 7).expect("reads back");
    let files = |i: &SearchIndex| {
        (i.outputs.iter())
            .map(|o| (o.path.clone(), o.read().unwrap().into_owned()))
            .collect::<Vec<_>>()
    };
    assert_eq!(files(&back), files(&index));
    assert_eq!(back.entries, index.entries);
    assert_eq!(
        (back.stats.terms, back.stats.postings),
        (index.stats.terms, index.stats.postings)
    );
    assert!(SearchIndex::parse(&saved, 8).is_none(), "another key");
    assert!(
        SearchIndex::parse(&saved[..saved.len() - 1], 7).is_none(),
        "cut short"
    );
}

#[test]
fn the_saved_index_key_changes_with_any_field_of_any_document() {
    let key = |docs: Vec<Doc>| {
        let inputs = [input(docs)];
        let keys = kept_terms::text_keys(&inputs);
        inputs_key(&config(), &inputs, &keys, "casebook test")
    };
    let base = || vec![doc("Case 1", "bruising"), doc("Case 2", "burns")];
    let first = key(base());
    assert_eq!(key(base()), first, "the same documents, the same key");
    let changes: [fn(&mut Doc); 13] = [
        |d| d.path.push('x'),
        |d| d.title.push('x'),
        |d| d.summary.push('x'),
        |d| d.title_lang.push('x'),
        |d| d.summary_lang.push('x'),
        |d| d.info.push('x'),
        |d| d.date = chrono::NaiveDate::from_ymd_opt(2013, 1, 1),
        |d| d.thumb = Some("/x.webp".into()),
        |d| d.synthetic = !d.synthetic,
        |d| d.identifiers.push("x".into()),
        |d| d.fields.push("x".into()),
        |d| d.names.push("x".into()),
        |d| d.text.push('x'),
    ];
    for (i, change) in changes.iter().enumerate() {
        let mut docs = base();
        change(&mut docs[1]);
        assert_ne!(key(docs), first, "change {i}");
    }
}

#[test]
fn facet_codes_round_trip() {
    let facets = vec![
        FacetTable {
            name: "branch".into(),
            label: "Branch".into(),
            multi: false,
            values: vec![
                FacetEntry {
                    value: "215".into(),
                    label: "Branch 215".into(),
                    docs: vec![0, 2],
                },
                FacetEntry {
                    value: "227".into(),
                    label: "Branch 227".into(),
                    docs: vec![1],
                },
            ],
        },
        FacetTable {
            name: "indicator".into(),
            label: "Indicator".into(),
            multi: true,
            values: (0..3)
                .map(|i| FacetEntry {
                    value: format!("v{i}"),
                    label: format!("V{i}"),
                    docs: if i == 1 { vec![0, 1] } else { vec![0] },
                })
                .collect(),
        },
    ];
    let (meta, groups) = facet_codes(&facets, 4);
    assert_eq!(groups.len(), 2);
    assert_eq!(meta[0]["radix"], 3);
    assert_eq!(meta[1]["group"], 1);
    let decode = |s: &str| -> Vec<u64> {
        s.bytes()
            .map(|b| encode::ALPHABET.iter().position(|&a| a == b).unwrap() as u64)
            .collect()
    };
    // branch: doc 0 and 2 have 215 (digit 1), doc 1 has 227 (2), doc 3 none.
    assert_eq!(groups[0], (1, "BCBA".to_string()));
    assert_eq!(decode(&groups[0].1), vec![1, 2, 1, 0]);
    // indicators: doc 0 all three (0b111), doc 1 only v1 (0b010).
    assert_eq!(decode(&groups[1].1), vec![7, 2, 0, 0]);
}

#[test]
fn facet_slices_cut_every_group_at_the_same_documents() {
    let groups = vec![
        (2, "ab".repeat(1000)),
        (1, "x".repeat(1000)),
        (3, "pqr".repeat(1000)),
    ];
    assert!(
        facet_slices(&groups[..1], 100).is_none(),
        "one slice is the whole file"
    );
    let (per, slices) = facet_slices(&groups, 1000).unwrap();
    assert_eq!(per, 128);
    assert_eq!(slices.len(), 8);
    for (g, (width, whole)) in groups.iter().enumerate() {
        let joined: String = slices.iter().map(|s| s[g]).collect();
        assert_eq!(&joined, whole);
        assert_eq!(slices[0][g].len(), per * width);
        assert_eq!(slices[7][g].len(), (1000 - 7 * per) * width);
    }
    // However large the index, at most `FACET_SLICES` of them.
    let big = vec![(1, "x".repeat(100_003))];
    let (per, slices) = facet_slices(&big, 100_003).unwrap();
    assert_eq!(slices.len(), super::files::FACET_SLICES);
    assert!(per * super::files::FACET_SLICES >= 100_003);
}

#[test]
fn list_facets_with_many_values_use_several_characters() {
    let facets = vec![FacetTable {
        name: "many".into(),
        label: "Many".into(),
        multi: true,
        values: (0..100)
            .map(|i| FacetEntry {
                value: format!("v{i}"),
                label: format!("V{i}"),
                docs: if i == 99 { vec![1] } else { vec![0] },
            })
            .collect(),
    }];
    let (_, groups) = facet_codes(&facets, 2);
    let (width, text) = &groups[0];
    assert_eq!(*width, 17);
    // Value 99 of doc 1: character 16, bit 3.
    let last = text.as_bytes()[17 + 16];
    assert_eq!(encode::ALPHABET.iter().position(|&a| a == last), Some(8));
}

#[test]
fn summaries_are_cut_at_words() {
    let long = "word ".repeat(100);
    let s = summary(&long);
    assert!(s.ends_with('…'));
    assert!(s.chars().count() <= SUMMARY_CHARS + 1);
    assert_eq!(summary("  short   text "), "short text");
}

#[test]
fn terms_sort_by_utf16_units_when_a_word_is_beyond_u_ffff() {
    // U+10428 sorts before U+FA0E in UTF-16 (a surrogate pair starts 0xD801), after it in
    // UTF-8: the client's binary search over shards needs the former. (Both letters are
    // their own NFKC form, so normalization leaves them as they are.)
    let docs = vec![doc("One", "\u{10428}x \u{FA0E} zeta"), doc("Two", "alpha")];
    let index = build(&config(), &[input(docs)]);
    let terms: Vec<String> = index
        .outputs
        .iter()
        .map(data)
        .filter(|(n, _)| n.starts_with('t'))
        .flat_map(|(_, v)| {
            let list = v.as_array().unwrap().clone();
            list.chunks(2)
                .map(|pair| pair[0].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    let position = |t: &str| terms.iter().position(|x| x == t).unwrap();
    assert!(position("\u{10428}x") < position("\u{FA0E}"), "{terms:?}");
    assert!(terms.windows(2).all(|w| js_order(&w[0], &w[1]).is_lt()));
}

/// Each document's positions of `term`, read from the positions file of its shard.
fn positions_of(index: &SearchIndex, term: &str) -> Vec<Vec<u64>> {
    let files: BTreeMap<String, serde_json::Value> = index.outputs.iter().map(data).collect();
    for (name, v) in &files {
        let Some(n) = name.strip_prefix('t') else {
            continue;
        };
        let list = v.as_array().unwrap();
        let Some(j) = list.iter().step_by(2).position(|t| t == term) else {
            continue;
        };
        // The run's terms' positions one after another: those before `term` are read past.
        let numbers = encode::read_varints(files[&format!("p{n}")].as_str().unwrap());
        let mut rest = &numbers[..];
        let mut out = Vec::new();
        for pair in list.chunks(2).take(j + 1) {
            let count = posting_count(pair[1].as_str().unwrap());
            out = super::positions::read_positions(&mut rest, count);
        }
        return out;
    }
    panic!("{term} not in the index");
}

#[test]
fn positions_of_words_as_written_run_through_a_page_with_a_gap_between_pieces() {
    let index = build(
        &config(),
        &[input(vec![
            doc(
                "Died in custody",
                "He died of hunger; died again, al-Khatib",
            ),
            doc("Other", "nothing here but custody"),
        ])],
    );
    // The title holds words 0-2, then a gap (3); the text starts at 4 ("he").
    assert_eq!(positions_of(&index, "died"), [vec![0, 5, 8]]);
    assert_eq!(positions_of(&index, "custody"), [vec![2], vec![5]]);
    // A form added to a word (the bare form of an Arabic word with the article, an ISO
    // month, a joined name) has no position of its own.
    let arabic = build(
        &config(),
        &[input(vec![doc("x", "المستشفى العسكري 2012-05-14")])],
    );
    assert_eq!(positions_of(&arabic, "المستشفي"), [vec![2]]);
    assert_eq!(positions_of(&arabic, "مستشفي"), [Vec::<u64>::new()]);
    assert_eq!(positions_of(&arabic, "2012-05"), [Vec::<u64>::new()]);
    assert_eq!(positions_of(&arabic, "2012"), [vec![4]]);
}

#[test]
fn a_name_written_with_the_article_run_on_also_has_the_keys_of_the_name_after_it() {
    let mut d = doc("Case", "");
    d.fields = vec!["Name".into(), "Ahmad Alkhatib".into()];
    d.names = vec!["Ahmad Alkhatib".into()];
    let index = build(&config(), &[input(vec![d])]);
    let keys: Vec<String> = index
        .outputs
        .iter()
        .map(data)
        .filter(|(name, _)| name.starts_with('k'))
        .flat_map(|(_, v)| {
            v.as_array()
                .unwrap()
                .iter()
                .step_by(2)
                .map(|t| t.as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    for word in ["alkhatib", "khatib"] {
        let key = names::name_key(word, &names::NameRules::new(&[], &[])).unwrap();
        assert!(
            keys.iter().any(|k| k.starts_with(&format!("{key}~"))),
            "{word} {key}: {keys:?}"
        );
    }
}

#[test]
fn a_skeletons_name_keys_are_in_one_shard_named_by_the_skeleton() {
    // Many names, many sharing a skeleton (Hasan, Hassan, Husni, Hasani...).
    let stems = [
        "has", "hus", "mah", "muh", "sam", "kar", "jam", "nab", "rash", "tal",
    ];
    let ends = [
        "an", "san", "ni", "ani", "een", "oud", "ir", "er", "il", "al",
    ];
    let docs: Vec<Doc> = (0..1200)
        .map(|i| {
            let name = format!("{}{}", stems[i % 10], ends[(i / 10) % 10]);
            let mut d = doc(&format!("Case {i}"), "text");
            d.fields = vec![name.clone()];
            d.names = vec![name];
            d
        })
        .collect();
    let index = build(&config(), &[input(docs)]);
    let files: BTreeMap<String, serde_json::Value> = index.outputs.iter().map(data).collect();
    let meta = &files["meta"];
    let bounds: Vec<&str> = meta["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap())
        .collect();
    assert!(bounds.len() > 2, "{bounds:?}");
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, bound) in bounds.iter().enumerate() {
        let keys = files[&format!("k{i}")].as_array().unwrap();
        for pair in keys.chunks(2) {
            let loose = names::loose_part(pair[0].as_str().unwrap()).to_string();
            // A query looks its skeleton up among the bounds: it must land on this shard.
            assert!(
                js_order(&loose, bound).is_ge()
                    && bounds
                        .get(i + 1)
                        .is_none_or(|b| js_order(&loose, b).is_lt())
            );
            assert_eq!(*seen.entry(loose).or_insert(i), i, "a skeleton cut apart");
        }
        assert_eq!(names::loose_part(keys[0].as_str().unwrap()), *bound);
    }
}

#[test]
fn positions_take_about_half_the_room_of_a_count_and_deltas_per_document() {
    let given = [
        "Omar",
        "Ali",
        "Abd al-Rahman",
        "Hassan",
        "Yusuf",
        "Khaled",
        "Samir",
    ];
    let places = ["Aleppo", "Homs", "Douma", "Idlib", "Daraa"];
    let docs: Vec<Doc> = (0..2000)
        .map(|i| {
            let name = format!("{} {} Haddad", given[i % 7], given[(i / 7) % 7]);
            let mut d = doc(
                &name,
                &format!(
                    "Synthetic record. Arrested in {} and held in branch {}; photographed in May {}.",
                    places[i % 5],
                    215 + i % 4,
                    2011 + i % 3
                ),
            );
            d.fields = vec![name, places[(i / 5) % 5].to_string()];
            d
        })
        .collect();
    let index = build(&config(), &[input(docs)]);
    let files: BTreeMap<String, serde_json::Value> = index.outputs.iter().map(data).collect();
    let (mut packed, mut plain) = (0, 0);
    let varint_len = |n: u64| (64 - n.leading_zeros() as usize).div_ceil(5).max(1);
    for name in files.keys() {
        let Some(n) = name.strip_prefix('p') else {
            continue;
        };
        packed += files[&format!("p{n}")].to_string().len();
        for pair in files[&format!("t{n}")].as_array().unwrap().chunks(2) {
            // One string per term, then per document the count and the deltas.
            plain += 3;
            for list in positions_of(&index, pair[0].as_str().unwrap()) {
                plain += varint_len(list.len() as u64);
                let mut last = 0;
                for p in list {
                    plain += varint_len(p - last);
                    last = p;
                }
            }
        }
    }
    // 54% here; 49% on the names corpus of benches/names at 11,000 cases.
    assert!(packed * 5 <= plain * 3, "{packed} of {plain}");
}
