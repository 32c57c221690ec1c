// casebook search client. Loads only the index files a query needs, as <script> elements
// (so it works from file:// too); builds results from DOM text nodes, never parsing data as
// HTML. Index format: src/search/mod.rs. Normalization must match src/search/normalize.rs;
// both are checked against search-vectors.json.
(function (root) {
  "use strict";
  var cb = root.casebook = root.casebook || {};
  var store = {};
  var api = cb.search = cb.search || {};
  api.add = function (name, data) {
    store[name] = data;
    if (name === "meta" && typeof document !== "undefined") setTimeout(start);
  };

  var ABC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  var VAL = {};
  for (var i = 0; i < 64; i++) VAL[ABC.charAt(i)] = i;

  // ---- text: the same rules as the Rust index builder
  var MARK = /\p{M}/u, ARABIC_MARK = /[\u0640\u064B-\u065F\u0670\u06D6-\u06ED]/;
  var INVISIBLE = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;
  var ALEF = { "\u0623": 1, "\u0625": 1, "\u0622": 1, "\u0671": 1 };
  var SPACE = /[\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000,;]+/;
  var EDGE = /^[^\p{Alphabetic}\p{N}]+|[^\p{Alphabetic}\p{N}]+$/gu;
  // Kept whole as well as split: identifiers like 2761/215 and ISO dates (the Rust is_compound).
  var COMPOUND = /^(?:[A-Za-z0-9]+(?:\/[A-Za-z0-9]+)+|[0-9]{4}-[0-9]{2}(?:-[0-9]{2})?)$/;
  var ISO_DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
  var ARTICLE = "\u0627\u0644";

  // Arabic function words, kept with their ى (the Rust ARABIC_STOP_WORDS).
  var STOP = new Set(("على الى في من عن " +
    "حتى لدى متى سوى عند " +
    "مع منذ ثم او ان لا لم " +
    "لن ما قد هل بل لكن " +
    "الذي التي الذين هذا " +
    "هذه ذلك تلك هو هي هم " +
    "كان كانت بين بعد قبل " +
    "دون خلال").split(" "));
  function foldMaqsura(w) { return w.replace(/\u0649/g, "\u064A"); }
  function normalize(s) { return foldMaqsura(unfolded(s)); }
  // Normalization without the ى fold, which comes after function words are known.
  function unfolded(s) {
    var out = "";
    for (var c of s.normalize("NFKD")) {
      if (MARK.test(c) || ARABIC_MARK.test(c) || INVISIBLE.test(c)) continue;
      var k = c.charCodeAt(0);
      if (ALEF[c]) c = "\u0627";
      else if (c === "\u0629") c = "\u0647";
      else if (k >= 0x660 && k <= 0x669) c = String(k - 0x660);
      else if (k >= 0x6f0 && k <= 0x6f9) c = String(k - 0x6f0);
      out += c.toLowerCase();
    }
    return out.normalize("NFC");
  }

  var seg = typeof Intl === "object" && Intl.Segmenter ? new Intl.Segmenter("und", { granularity: "word" }) : null;
  function words(s) {
    if (!seg) return s.split(/[^\p{Alphabetic}\p{N}]+/u).filter(Boolean);
    var out = [];
    for (var x of seg.segment(s)) if (x.isWordLike) out.push(x.segment);
    return out;
  }
  function chunks(s) {
    return unfolded(s).split(SPACE).map(function (c) { return c.replace(EDGE, ""); });
  }
  function stripArticle(w) {
    return w.indexOf(ARTICLE) === 0 && Array.from(w).length >= 4 ? w.slice(2) : null;
  }
  // Index terms of a text (the Rust `terms`).
  function terms(s) { return termsAndWords(s)[0]; }
  // The words of a text as written, whose positions the index keeps (the Rust `phrase_words`).
  function phraseWords(s) { return termsAndWords(s)[1]; }
  // The words of each quoted phrase of a query ("…", “…”, «…») of two words or more.
  var QUOTED = /["\u201C\u201D\u201E\u00AB\u00BB]([^"\u201C\u201D\u201E\u00AB\u00BB]+)["\u201C\u201D\u201E\u00AB\u00BB]/g;
  function queryPhrases(s) {
    var out = [], m;
    QUOTED.lastIndex = 0;
    while ((m = QUOTED.exec(s))) {
      var w = phraseWords(m[1]);
      if (w.length > 1) out.push(w);
    }
    return out;
  }
  function termsAndWords(s) {
    var out = [], plain = [];
    chunks(s).forEach(function (c) {
      if (COMPOUND.test(c)) {
        out.push(c);
        if (ISO_DATE.test(c)) out.push(c.slice(0, 7));
      }
      words(c).forEach(function (w) {
        if (STOP.has(w)) return;
        w = foldMaqsura(w);
        plain.push(w);
        out.push(w);
        var bare = stripArticle(w);
        if (bare) out.push(bare);
      });
    });
    plain.forEach(function (w, i) {
      if (!ABD[w] || i + 1 >= plain.length) return;
      if (w === "abd" && LATIN_ARTICLE[plain[i + 1]] && i + 2 < plain.length) out.push(w + plain[i + 1] + plain[i + 2]);
      else out.push(w + plain[i + 1]);
    });
    return [out, plain];
  }
  var LATIN_ARTICLE = { al: 1, el: 1, ul: 1 };
  // abd, with the article run on or not (the Rust is_abd).
  var ABD = { abd: 1, "عبد": 1, abdel: 1, abdul: 1, abdal: 1, abdil: 1, abdol: 1 };

  // Written dates in a query become ISO dates (a day) or months: 14 May 2012, May 14, 2012,
  // 14/5/2012 (day first), 5/31/2012, أيار 2012, 14 يناير 2012. Runs on normalized text.
  var MONTHS = {};
  ["january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul", "august aug",
    "september sept sep", "october oct", "november nov", "december dec"].forEach(function (names, i) {
    names.split(" ").forEach(function (n) { MONTHS[n] = i + 1; });
  });
  // Levantine and Egyptian month names, normalized (أيار -> ايار).
  ["كانون الثاني|يناير",
    "شباط|فبراير", "اذار|مارس",
    "نيسان|ابريل", "ايار|مايو",
    "حزيران|يونيو|يونيه",
    "تموز|يوليو|يوليه",
    "اب|اغسطس", "ايلول|سبتمبر",
    "تشرين الاول|اكتوبر",
    "تشرين الثاني|نوفمبر",
    "كانون الاول|ديسمبر"].forEach(function (names, i) {
    names.split("|").forEach(function (n) { MONTHS[n] = i + 1; });
  });
  var MONTH_NAMES = Object.keys(MONTHS).sort(function (a, b) { return b.length - a.length; }).join("|");
  var B = "(^|[\\s,;])", E = "(?=$|[\\s,;.])";
  var DAY_MONTH_YEAR = new RegExp(B + "(\\d{1,2})(?:st|nd|rd|th)?\\s+(" + MONTH_NAMES + ")\\.?,?\\s+(\\d{4})" + E, "g");
  var MONTH_DAY_YEAR = new RegExp(B + "(" + MONTH_NAMES + ")\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})" + E, "g");
  var MONTH_YEAR = new RegExp(B + "(" + MONTH_NAMES + ")\\.?,?\\s+(\\d{4})" + E, "g");
  var NUMERIC = new RegExp(B + "(\\d{1,2})[/.-](\\d{1,2})[/.-](\\d{4})" + E, "g");
  function iso(y, m, d) {
    m = +m; d = d == null ? null : +d;
    if (m < 1 || m > 12) return null;
    var date = d == null ? null : new Date(Date.UTC(+y, m - 1, d));
    if (d != null && (d < 1 || date.getUTCMonth() !== m - 1)) return null;
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    return y + "-" + two(m) + (d == null ? "" : "-" + two(d));
  }
  function writtenDates(s) {
    function put(whole, lead, y, m, d) { var x = iso(y, m, d); return x ? lead + x : whole; }
    return s
      .replace(DAY_MONTH_YEAR, function (w, lead, d, m, y) { return put(w, lead, y, MONTHS[m], d); })
      .replace(MONTH_DAY_YEAR, function (w, lead, m, d, y) { return put(w, lead, y, MONTHS[m], d); })
      .replace(MONTH_YEAR, function (w, lead, m, y) { return put(w, lead, y, MONTHS[m]); })
      // Day first, as written in Syria and Europe; month first when only that is a date (5/31/2012).
      .replace(NUMERIC, function (w, lead, d, m, y) { return iso(y, m, d) ? lead + iso(y, m, d) : put(w, lead, y, d, m); });
  }
  // Terms a query must match (the Rust `query_terms`), as typed: function words and a
  // Latin article left out unless the query holds nothing else, `abd` joined to the name
  // after it, written dates read as dates.
  function queryTerms(s) {
    var ws = [], joined = [], out = [];
    writtenDates(unfolded(s)).split(SPACE).map(function (c) { return c.replace(EDGE, ""); }).forEach(function (c) {
      if (COMPOUND.test(c)) return ws.push([c, false]);
      words(c).forEach(function (w) { ws.push([w, STOP.has(w) || !!ARTICLES[w]]); });
    });
    for (var i = 0; i < ws.length;) {
      var w = ws[i][0], next = ws[i + 1] && ws[i + 1][0], after = ws[i + 2] && ws[i + 2][0];
      if (w === "abd" && next && LATIN_ARTICLE[next] && after) { joined.push([w + next + after, false]); i += 3; }
      else if (ABD[w] && next) { joined.push([w + next, false]); i += 2; }
      else { joined.push(ws[i]); i++; }
    }
    var onlyStop = joined.every(function (x) { return x[1]; });
    joined.forEach(function (x) {
      if (x[1] && !onlyStop) return;
      var t = foldMaqsura(x[0]);
      if (out.indexOf(t) < 0) out.push(t);
    });
    return out;
  }

  // ---- names: the matching key of src/search/names.rs (see there for the rules)
  var LATIN_PAIRS = { kh: "C:X", sh: "C:S", ch: "C:S", gh: "C:G", th: "C:t", dh: "C:d", ph: "C:f", dj: "C:j", ck: "C:k",
    ou: "L:w", oo: "L:w", uu: "L:w", ee: "L:y", ei: "L:y", ai: "L:y", ay: "L:y", ey: "L:y", ie: "L:y", ii: "L:y", aa: "L:a" };
  var LATIN_ONE = { c: "C:k", q: "C:k", k: "C:k", g: "C:j", v: "C:f", p: "C:b" };
  // Latin vowel letters that may write a long vowel (M) before the word's end.
  var MAYBE = { a: "a", i: "y", o: "w", u: "w", y: "y" };
  var ARABIC_ONE = {};
  [["ءئؤع", "V"], ["ح", "C:h"], ["خ", "C:X"], ["شچ", "C:S"], ["غ", "C:G"],
    ["ثتط", "C:t"], ["ذضد", "C:d"], ["صس", "C:s"], ["ظز", "C:z"],
    ["قك", "C:k"], ["جگ", "C:j"], ["بپ", "C:b"], ["فڤ", "C:f"], ["ر", "C:r"],
    ["ل", "C:l"], ["م", "C:m"], ["ن", "C:n"]].forEach(function (x) {
    for (var c of x[0]) ARABIC_ONE[c] = x[1];
  });
  var ARABIC_LETTER = /[\u0621-\u064A\u067E\u0686\u06A4\u06AF]/;
  // Marks written for ع or hamza in Latin letters (Sa'id, Ma’moun, ʿAli) break sounds, as ع does.
  var AYN = /['\u2018\u2019\u02BE\u02BF`]/g;
  // An article written as a word of its own is never a name (the Rust is_article).
  var ARTICLES = { al: 1, el: 1, ul: 1, "ال": 1 };
  function latinSounds(w) {
    w = w.replace(AYN, "'");
    if (!/^[a-z']*[a-z][a-z']*$/.test(w)) return null;
    var end = w.length;
    // A final h after a vowel does not sound (Hamzeh).
    if (end > 1 && w.charAt(end - 1) === "h" && "aeiouy".indexOf(w.charAt(end - 2)) >= 0) end--;
    var out = [];
    for (var i = 0; i < end;) {
      var two = end - i >= 2 ? LATIN_PAIRS[w.substr(i, 2)] : null;
      if (two) {
        // A word that begins with a long vowel (Oussama, Eissa) may begin with a short one.
        if (i === 0 && two.charAt(0) === "L") two = "M:" + two.charAt(2);
        out.push(two);
        i += 2;
        continue;
      }
      var c = w.charAt(i), last = i === end - 1, nextVowel = !last && "aeiou".indexOf(w.charAt(i + 1)) >= 0;
      if (c === "'" || (c === "e" && !last)) out.push("V");
      else if (c === "y" && (i === 0 || nextVowel)) out.push("C:y");
      // At the end, i and y are a long i (Hosni); a, e, o, u a final vowel (E).
      else if (MAYBE[c] || c === "e") out.push(!last ? "M:" + MAYBE[c] : c === "i" || c === "y" ? "L:y" : "E");
      else if (c === "x") out.push("C:k", "C:s");
      else out.push(LATIN_ONE[c] || "C:" + c);
      i++;
    }
    return out;
  }
  function arabicSounds(w) {
    var cs = Array.from(w), out = [];
    // In عبدال… (Abd joined to the name after it) the alef is the article's.
    var abdArticle = cs.slice(0, 5).join("") === "عبدال";
    for (var i = 0; i < cs.length; i++) {
      var c = cs[i], first = i === 0, last = i === cs.length - 1;
      if (c === "ا") out.push(first || last || (abdArticle && i === 3) ? "V" : "L:a");
      // A final ي (ى folded into it): a long i or a final vowel, never nothing (Y).
      else if ((c === "ي" || c === "ى") && last && !first) out.push("Y");
      else if (c === "و" && last && !first) out.push("V");
      else if (c === "و") out.push(first ? "C:w" : "L:w");
      else if (c === "ي" || c === "ى") out.push(first ? "C:y" : "L:y");
      else if (c === "ه") { if (!last || first) out.push("C:h"); }
      else if (ARABIC_ONE[c]) out.push(ARABIC_ONE[c]);
      else return null;
    }
    return out;
  }
  // The site's name tables (search meta `nameRules`): Latin spellings pinned to their Arabic,
  // and groups of one name in several languages.
  var RULES = { spellings: {}, equivalents: [] };
  function setNameRules(rules) { RULES = rules || { spellings: {}, equivalents: [] }; }
  var CLASS = { a: "a", e: "e", i: "i", o: "u", u: "u" };
  // "~LOOSE~PATTERN~CLASS" for a normalized word, or null.
  function nameKey(w) {
    if (ARTICLES[w]) return null;
    var arabic = ARABIC_LETTER.test(w), sounds, cls = ".";
    if (arabic) sounds = arabicSounds(w);
    else {
      sounds = latinSounds(w);
      if (!sounds) return null;
      var first = /[aeiou]/.exec(w);
      cls = first ? CLASS[first[0]] : "-";
      var pin = Object.prototype.hasOwnProperty.call(RULES.spellings, w) ? arabicSounds(RULES.spellings[w]) : null;
      if (pin) sounds = pin;
    }
    if (!sounds) return null;
    var pattern = "", loose = "", prev = null;
    sounds.forEach(function (s) {
      var kind = s.charAt(0), c = s.charAt(2);
      if (kind === "V") { prev = null; return; }
      if (kind === "E" || kind === "Y") { pattern += kind; prev = null; return; }
      if (kind === "M") { pattern += c === "a" ? "A" : c === "y" ? "I" : "U"; prev = null; return; }
      if (prev !== c) pattern += c;
      prev = c;
      if (kind === "C" && !(loose && (c === "w" || c === "y")) && loose.charAt(loose.length - 1) !== c) loose += c;
    });
    return loose ? "~" + loose + "~" + pattern + "~" + cls : null;
  }
  // Every reading of a pattern: each capital (a vowel that may be long, a final vowel E) long
  // or left out; Y (an Arabic final ي) y or a final vowel.
  var READINGS = new Map();
  var LONG = { A: "a", I: "y", U: "w", E: "e", Y: "e" };
  function readings(p) {
    var out = READINGS.get(p);
    if (out) return out;
    out = [""];
    var n = 0;
    for (var c of p) {
      var long = LONG[c], first = c === "Y" ? "y" : "";
      if (!long) { out = out.map(function (r) { return r + c; }); continue; }
      var kept = out.map(function (r) { return r + first; });
      if (++n > 10) { out = kept; continue; }
      out = kept.concat(out.map(function (r) { return r + long; }));
    }
    out = new Set(out);
    READINGS.set(p, out);
    return out;
  }
  // Whether two name-key terms are spellings of the same name (an exact match): a reading in
  // common and, both in Latin letters, first vowels that agree (e agrees with a and i).
  function sameName(a, b) {
    var x = a.split("~"), y = b.split("~");
    if (x.length < 4 || y.length < 4) return false;
    if (x[3] !== "." && y[3] !== "." && x[3] !== y[3] && x[3] !== "e" && y[3] !== "e") return false;
    // Two Arabic spellings are one name only as one pattern (حسني is not حسن).
    if (x[3] === "." && y[3] === ".") return x[2] === y[2];
    var ra = readings(x[2]);
    for (var r of readings(y[2])) if (ra.has(r)) return true;
    return false;
  }
  // The spelling a key term is labelled with (its most common one).
  function keyLabel(t) { return t.split("~")[4] || ""; }
  // How much a name-key term found for a query word counts. The same name: its spellings in
  // the query's script (0.8), then in the other script (0.7). A near name: the other script
  // (0.6), where Arabic does not write the vowels that would tell them apart, then the same (0.5).
  function keyWeight(q, t, same) {
    var crossed = (q.split("~")[3] === ".") !== (t.split("~")[3] === ".");
    return same ? (crossed ? 0.7 : 0.8) : (crossed ? 0.6 : 0.5);
  }
  // Optimal string alignment distance, or limit + 1 once it is certain to exceed limit.
  function editDistance(a, b, limit) {
    a = Array.from(a); b = Array.from(b);
    if (Math.abs(a.length - b.length) > limit) return limit + 1;
    var prev2 = null, prev = [], cur;
    for (var j = 0; j <= b.length; j++) prev.push(j);
    for (var i = 1; i <= a.length; i++) {
      cur = [i];
      var best = i;
      for (j = 1; j <= b.length; j++) {
        var cost = a[i - 1] === b[j - 1] ? 0 : 1;
        var v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
        if (prev2 && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2] + 1);
        cur.push(v);
        if (v < best) best = v;
      }
      if (best > limit) return limit + 1;
      prev2 = prev; prev = cur;
    }
    return prev[b.length];
  }
  // Edits a typed word may hold and still find a name: one from four letters, two from eight.
  function typoLimit(w) {
    var n = Array.from(w).length;
    return n >= 8 ? 2 : n >= 4 ? 1 : 0;
  }

  // ---- index data
  // Postings: document number deltas (base-32 varints), each followed by a score character,
  // or for a name key one score character first that holds for every document.
  function decodeDeltas(s, shared) {
    var map = new Map(), doc = 0, i = shared ? 1 : 0, score = shared ? Math.pow(2, VAL[s.charAt(0)] / 5 - 8) : 0;
    while (i < s.length) {
      var n = 0, mul = 1, v;
      do { v = VAL[s.charAt(i++)]; n += (v & 31) * mul; mul *= 32; } while (v & 32);
      doc += n;
      map.set(doc, shared ? score : Math.pow(2, VAL[s.charAt(i++)] / 5 - 8));
    }
    return map;
  }
  function decodePostings(s) { return decodeDeltas(s, false); }
  function varints(s) {
    var out = [], i = 0;
    while (i < s.length) {
      var n = 0, mul = 1, v;
      do { v = VAL[s.charAt(i++)]; n += (v & 31) * mul; mul *= 32; } while (v & 32);
      out.push(n);
    }
    return out;
  }
  function decodeKeyPostings(s) { return decodeDeltas(s, true); }
  function fixed(s, at, width) {
    var n = 0;
    for (var i = 0; i < width; i++) n = n * 64 + VAL[s.charAt(at + i)];
    return n;
  }
  // The shard whose first term is the greatest at or before `t` (JS string order, as built).
  function shardIndex(shards, t) {
    var lo = 0, hi = shards.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (shards[mid] <= t) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  // The search logic, free of the DOM: `load(fileName)` resolves to a file's data.
  function Engine(meta, load) {
    this.m = meta;
    setNameRules(meta.nameRules);
    this.load = load;
    this.files = {};
    this.terms = {};
  }
  Engine.prototype.file = function (name) {
    return this.files[name] || (this.files[name] = this.load(name));
  };
  // File `i` of a sharded kind (t: terms, p: their positions, k: name keys, n: the names
  // list, d: documents), named by the hash of its volume of files.
  Engine.prototype.name = function (kind, i) {
    return kind + i + "." + this.m.files[kind].substr(Math.floor(i / this.m.volume) * 10, 10) + ".js";
  };
  // The files of the runs `list` (first terms) holding `from` to `to`.
  Engine.prototype.runs = function (kind, list, from, to) {
    var out = [];
    for (var i = shardIndex(list, from), b = shardIndex(list, to); i <= b; i++) out.push(this.name(kind, i));
    return out;
  };
  Engine.prototype.shards = function (t, prefix) {
    return this.runs("t", this.m.shards, t, prefix ? t + "\uffff" : t);
  };
  Engine.prototype.shardTerms = function (name) {
    var self = this;
    return this.file(name).then(function (list) {
      if (!self.terms[name]) {
        var m = new Map();
        for (var i = 0; i < list.length; i += 2) m.set(list[i], list[i + 1]);
        self.terms[name] = m;
      }
      return self.terms[name];
    });
  };
  // Document -> {s: score, t: the term} for one query term; a prefix unites every term it
  // begins.
  Engine.prototype.match = function (t, prefix) {
    var self = this;
    return Promise.all(this.shards(t, prefix).map(function (n) { return self.shardTerms(n); })).then(function (maps) {
      var out = new Map();
      maps.forEach(function (m) {
        m.forEach(function (p, term) {
          if (prefix ? term.indexOf(t) !== 0 : term !== t) return;
          // The exact word ranks above longer words it begins (2761 before 27610).
          var k = term === t ? 1 : 0.5;
          decodePostings(p).forEach(function (s, d) {
            var o = out.get(d);
            if (!o || s * k > o.s) out.set(d, { s: s * k, t: term });
          });
        });
      });
      return out;
    });
  };
  // A query term and what else it matches, with the weight of each: a word typed with the
  // article also finds the word without it, below (الخطيب finds خطيب; الله still finds الله first).
  function alternatives(t) {
    var bare = COMPOUND.test(t) ? null : stripArticle(t);
    return bare ? [[t, 1], [bare, 0.9]] : [[t, 1]];
  }
  // A Latin name with the article run on (Alkhatib, Elmasri): the name after it, whose
  // spellings the name keys hold (the Rust latin_article_bare). Only names are looked up
  // this way, never words of the text (already is not ready).
  function latinArticleBare(t) {
    var m = /^(al|el)([a-z]{4,})$/.exec(t);
    return m ? m[2] : null;
  }
  // What one query term found: document -> {s: score, e: exact, l: for a near match, the
  // spelling it matched}. An exact match outranks a near one, then the higher score wins.
  function keep(out, d, s, exact, label) {
    var o = out.get(d);
    if (!o || (exact && !o.e) || (exact === o.e && s > o.s)) out.set(d, { s: s, e: exact, l: label });
  }
  function keepAll(out, m) { m.forEach(function (h, d) { keep(out, d, h.s, h.e, h.l); }); }
  // The name-key terms of a word: how "all" (the same name exact, near names near), "exact"
  // (the same name only), "same-as-near" (the same name, shown as near: another language's
  // name) or "near" (everything, as near: a typo's corrections). `k` scales it all.
  Engine.prototype.matchKey = function (word, k, how) {
    var self = this, key = nameKey(word), shards = this.m.keys || [];
    if (!key || !shards.length) return Promise.resolve(new Map());
    // Every key of a loose skeleton is in one shard, cut at skeletons.
    var loose = key.slice(0, key.indexOf("~", 1) + 1);
    return Promise.all(this.runs("k", shards, loose, loose).map(function (n) { return self.shardTerms(n); })).then(function (maps) {
      var out = new Map();
      maps.forEach(function (m) {
        m.forEach(function (p, term) {
          if (term.indexOf(loose) !== 0) return;
          var same = sameName(key, term);
          if (!same && (how === "exact" || how === "same-as-near")) return;
          // A correction or another language's name is named by the word looked up (its
          // spellings together); a name that is only alike, by its own spelling.
          var exact = same && (how === "all" || how === "exact"), w = k * keyWeight(key, term, same);
          var label = same && !exact ? word : keyLabel(term);
          decodeKeyPostings(p).forEach(function (s, d) { keep(out, d, s * w, exact, label); });
        });
      });
      return out;
    });
  };
  // The names list (every word of the name fields, sorted) from `from` to `to`.
  Engine.prototype.namesBetween = function (from, to) {
    var self = this, shards = this.m.names || [];
    if (!shards.length) return Promise.resolve([]);
    return Promise.all(this.runs("n", shards, from, to).map(function (n) { return self.file(n); })).then(function (lists) {
      return [].concat.apply([], lists);
    });
  };
  // Names one or two edits away (see typoLimit) from a word the index does not hold: near.
  Engine.prototype.matchTypo = function (word) {
    var self = this, limit = typoLimit(word);
    if (!limit || !nameKey(word)) return Promise.resolve(new Map());
    var arabic = ARABIC_LETTER.test(word);
    return this.namesBetween(word, word).then(function (list) {
      var near = list.filter(function (w) {
        return w !== word && ARABIC_LETTER.test(w) === arabic && editDistance(word, w, limit) <= limit;
      });
      return Promise.all(near.map(function (w) { return self.matchKey(w, 0.9, "near"); }));
    }).then(function (maps) {
      var out = new Map();
      maps.forEach(function (m) { keepAll(out, m); });
      return out;
    });
  };
  // While a name is typed, the names it begins, through their own spellings only (never a
  // loose key): Yous finds Youssef, Yusuf and يوسف, not Isa. Names of name fields come before
  // other words the start completes to (0.5).
  var COMPLETIONS = 24;
  Engine.prototype.matchCompletions = function (t) {
    var self = this, arabic = ARABIC_LETTER.test(t);
    if (Array.from(t).length < 2) return Promise.resolve(new Map());
    return this.namesBetween(t, t + "\uffff").then(function (list) {
      var begun = list.filter(function (w) { return w.indexOf(t) === 0 && ARABIC_LETTER.test(w) === arabic; }).slice(0, COMPLETIONS);
      return Promise.all(begun.map(function (w) { return self.matchKey(w, 1, "exact"); }));
    }).then(function (maps) {
      var out = new Map();
      maps.forEach(function (m) { keepAll(out, m); });
      return out;
    });
  };
  // The same name in other languages (Joseph: Yusuf, يوسف), from the site's table: near.
  Engine.prototype.matchEquivalents = function (t) {
    var self = this, others = [];
    RULES.equivalents.forEach(function (group) {
      if (group.indexOf(t) >= 0) group.forEach(function (w) { if (w !== t && others.indexOf(w) < 0) others.push(w); });
    });
    return Promise.all(others.map(function (w) { return self.matchKey(w, 0.5, "same-as-near"); })).then(function (maps) {
      var out = new Map();
      maps.forEach(function (m) { keepAll(out, m); });
      return out;
    });
  };
  // Everything one query term finds. `prefix`: the last word while typing (its completions
  // are what is being typed: exact). `retry`: a submitted word that found nothing, tried as
  // the start of a word (what it completes to is another word: near).
  Engine.prototype.matchAny = function (t, prefix, retry) {
    var self = this, alts = alternatives(t), start = prefix || retry;
    var words = Promise.all(alts.map(function (a) { return self.match(a[0], start); }));
    // Other spellings of each form (الخطيب: also those of خطيب, so al-Khatib is found).
    var keys = alts.slice(), joined = latinArticleBare(t);
    if (joined) keys.push([joined, 0.9]);
    var keyed = Promise.all(keys.map(function (a) { return self.matchKey(a[0], a[1], start ? "exact" : "all"); }));
    var more = [prefix ? this.matchCompletions(t) : start ? Promise.resolve(new Map()) : this.matchEquivalents(t)];
    return Promise.all([words, keyed, Promise.all(more)]).then(function (r) {
      var out = new Map(), found = r[0].some(function (m) { return m.size; });
      r[0].forEach(function (m, i) {
        m.forEach(function (h, d) {
          var exact = !retry || h.t === alts[i][0];
          keep(out, d, h.s * alts[i][1], exact, exact ? "" : h.t);
        });
      });
      r[1].forEach(function (m) { keepAll(out, m); });
      r[2].forEach(function (m) { keepAll(out, m); });
      if (found || start || COMPOUND.test(t)) return out;
      return self.matchTypo(t).then(function (m) { keepAll(out, m); return out; });
    });
  };
  // Document -> positions of one word as written, from its shard and the shard's positions
  // file (fetched for quoted phrases only): one token per posting of each term in turn (the
  // Rust search/positions.rs): 0, not there as written; else 1 + zigzag(first - the last
  // list's first) * 4 + kind: 0, the last list's gaps; 1 or 2 positions; 3, 3 + n; then gaps.
  Engine.prototype.positions = function (w) {
    var i = shardIndex(this.m.shards, w);
    return Promise.all([this.file(this.name("t", i)), this.file(this.name("p", i))]).then(function (r) {
      var list = r[0], n = varints(r[1]), k = 0, out = new Map();
      for (var j = 0; j < list.length; j += 2) {
        var last = [];
        decodePostings(list[j + 1]).forEach(function (s, d) {
          var t = n[k++] - 1, z = t >> 2, kind = t & 3, at = [];
          if (t < 0) return;
          at[0] = (last[0] || 0) + (z & 1 ? -(z + 1) / 2 : z / 2);
          if (!kind) for (var x = 1; x < last.length; x++) at.push(at[0] + last[x] - last[0]);
          else for (x = kind < 3 ? kind : 3 + n[k++]; --x;) at.push(at[at.length - 1] + n[k++]);
          if (list[j] === w) out.set(d, at);
          last = at;
        });
      }
      return out;
    });
  };
  // The documents with a quoted phrase's words next to each other and in order, within one
  // title, field or text (never across two).
  Engine.prototype.matchPhrase = function (words) {
    return Promise.all(words.map(this.positions, this)).then(function (maps) {
      var out = new Set();
      maps[0].forEach(function (starts, d) {
        if (!maps.every(function (m) { return m.has(d); })) return;
        var sets = maps.map(function (m) { return new Set(m.get(d)); });
        if (starts.some(function (p) { return sets.every(function (set, i) { return set.has(p + i); }); })) out.add(d);
      });
      return out;
    });
  };
  // Facet values, filled in as queries need them: per group, one code a document (a
  // mixed-radix number of single-valued facets) or `m.groups[g]` six-bit sets a document
  // (a list facet); per single-valued facet, its value digit a document (0: none).
  Engine.prototype.facetState = function () {
    var m = this.m;
    if (!this.fs) {
      var multi = {}, per = m.facetSlice || m.n || 1;
      m.facets.forEach(function (f) { if (f.multi) multi[f.group] = 1; });
      this.fs = {
        multi: multi, per: per, whole: false, filled: new Uint8Array(Math.ceil(m.n / per)),
        codes: m.groups.map(function (w, g) { return multi[g] ? new Uint8Array(m.n * w) : new Float64Array(m.n); }),
        digits: m.facets.map(function (f) { return f.multi ? null : new Float64Array(m.n); }),
      };
    }
    return this.fs;
  };
  // Fills in the facet values of the documents from `first` on, from a slice's (or the whole
  // file's) codes, one string a group.
  Engine.prototype.fillFacets = function (groups, first) {
    var m = this.m, fs = this.fs, places = [];
    groups.forEach(function (s, g) {
      var w = m.groups[g], out = fs.codes[g], count = s.length / w, d, k;
      if (fs.multi[g]) for (k = 0; k < count * w; k++) out[first * w + k] = VAL[s.charAt(k)];
      else for (d = 0; d < count; d++) out[first + d] = fixed(s, d * w, w);
    });
    m.facets.forEach(function (f, fi) {
      if (f.multi) return;
      var place = places[f.group] || 1, code = fs.codes[f.group], out = fs.digits[fi];
      var last = Math.min(m.n, first + groups[f.group].length / m.groups[f.group]);
      for (var d = first; d < last; d++) out[d] = Math.floor(code[d] / place) % f.radix;
      places[f.group] = place * f.radix;
    });
  };
  // The facet values of `docs`: the slices that hold them, or the whole file when they are
  // spread over most of the index (one request rather than dozens). Null with no facets.
  Engine.prototype.facetsFor = function (docs) {
    var self = this, m = this.m;
    if (!m.facetsFile) return Promise.resolve(null);
    var fs = this.facetState(), need = [], seen = new Uint8Array(fs.filled.length);
    if (!fs.whole) {
      docs.forEach(function (d) {
        var i = Math.floor(d / fs.per);
        if (!fs.filled[i] && !seen[i]) { seen[i] = 1; need.push(i); }
      });
    }
    if (!need.length) return Promise.resolve(fs);
    if (!m.files.f || need.length > fs.filled.length / 2) {
      return this.file(m.facetsFile).then(function (groups) {
        if (!fs.whole) { self.fillFacets(groups, 0); fs.whole = true; fs.filled.fill(1); }
        return fs;
      });
    }
    return Promise.all(need.map(function (i) {
      return self.file(self.name("f", i)).then(function (groups) {
        if (!fs.filled[i]) { self.fillFacets(groups, i * fs.per); fs.filled[i] = 1; }
      });
    })).then(function () { return fs; });
  };
  // The records of documents, in the order given: {doc, path, title, summary, ...}.
  Engine.prototype.records = function (docs) {
    var m = this.m, need = [];
    docs.forEach(function (d) { var c = Math.floor(d / m.chunk); if (need.indexOf(c) < 0) need.push(c); });
    var self = this;
    return Promise.all(need.map(function (c) { return self.file(self.name("d", c)); })).then(function (chunks) {
      return docs.map(function (d) {
        var rec = chunks[need.indexOf(Math.floor(d / m.chunk))][d % m.chunk];
        return { doc: d, path: rec[0], title: rec[1], summary: rec[2], info: rec[3], thumb: rec[4], synthetic: rec[5] === 1, titleLang: rec[6] || "", summaryLang: rec[7] || "" };
      });
    });
  };
  // Near matches shown at first: the first groups, a few results each.
  var NEAR_GROUPS = 3, NEAR_ITEMS = 3;
  // state: {q, filters: {facet: [values]}, sort: "" | "date", page, typing, counts (false:
  // no facet counts)}. Results are
  // exact (every word matched as written or as a spelling of the same name: `items`, counted
  // in `total` and the facet counts) or near (`near.groups`, by the spelling they matched,
  // never counted as results for the query).
  Engine.prototype.search = function (state) {
    var self = this, m = this.m, qt = queryTerms(state.q || ""), phrases = queryPhrases(state.q || "");
    var prefixLast = state.typing && qt.length && !/[\s,;]$/.test(state.q) && Array.from(qt[qt.length - 1]).length >= 2;
    var retry = !!state.retry;
    var active = m.facets.map(function (f) {
      var want = (state.filters || {})[f.name] || [];
      return f.values.map(function (v) { return want.indexOf(v[0]) >= 0; });
    });
    var filtering = active.some(function (a) { return a.indexOf(true) >= 0; });
    if (!qt.length && !filtering) return Promise.resolve({ empty: true, terms: [], near: { total: 0, groups: [] } });
    var loads = [Promise.all(qt.map(function (t, i) {
      var last = i === qt.length - 1;
      return self.matchAny(t, prefixLast && last, retry && last);
    })), Promise.all(phrases.map(function (words) { return self.matchPhrase(words); }))];
    if (state.sort === "date") loads.push(this.file(m.datesFile));
    return Promise.all(loads).then(function (r) {
      var loaded = performance.now(), maps = r[0], phrase = r[1], dates = r[2], base = [], nearBase = [], scores = new Map(), nearLabel = new Map();
      if (qt.length) {
        var smallest = 0;
        maps.forEach(function (x, i) { if (x.size < maps[smallest].size) smallest = i; });
        maps[smallest].forEach(function (h0, d) {
          var s = 0, exact = true, labels = [];
          for (var i = 0; i < maps.length; i++) {
            var h = maps[i].get(d);
            if (h === undefined) return;
            s += h.s;
            if (!h.e) { exact = false; labels.push(h.l); }
          }
          // A quoted phrase: its words next to each other and in order.
          for (i = 0; i < phrase.length; i++) if (!phrase[i].has(d)) return;
          scores.set(d, s);
          if (exact) base.push(d);
          else { nearBase.push(d); nearLabel.set(d, labels.join(" ")); }
        });
      } else for (var d = 0; d < m.n; d++) base.push(d);
      var filtered = [];
      active.forEach(function (a, fi) { if (a.indexOf(true) >= 0) filtered.push(fi); });
      // The facet values of the documents found: their counts are shown (`counts: false`:
      // folded away) or a filter is on; near matches' only to filter them.
      var wanted = state.counts !== false || filtering;
      var facets = wanted ? self.facetsFor(filtering ? base.concat(nearBase) : base) : Promise.resolve(null);
      function has(fs, fi, d, v) {
        var f = m.facets[fi], w = m.groups[f.group];
        if (f.multi) return (fs.codes[f.group][d * w + Math.floor(v / 6)] >> (v % 6)) & 1;
        return fs.digits[fi][d] === v + 1;
      }
      function passes(fs, d, except) {
        for (var i = 0; i < filtered.length; i++) {
          var fi = filtered[i], ok = false;
          if (fi === except) continue;
          for (var v = 0; v < active[fi].length && !ok; v++) ok = active[fi][v] && has(fs, fi, d, v);
          if (!ok) return false;
        }
        return true;
      }
      function count(fs) {
        return fs && m.facets.map(function (f, fi) {
          var c = f.values.map(function () { return 0; }), w = m.groups[f.group], sets = fs.codes[f.group], digits = fs.digits[fi];
          base.forEach(function (d) {
            if (filtered.length && !passes(fs, d, fi)) return;
            if (!f.multi) { if (digits[d]) c[digits[d] - 1]++; return; }
            for (var k = 0; k < w; k++) {
              for (var bits = sets[d * w + k], v = k * 6; bits; bits >>= 1, v++) if (bits & 1) c[v]++;
            }
          });
          return c;
        });
      }
      // The results in order, the page shown and the near matches' groups.
      function rank(fs) {
        var rel = function (a, b) { return (scores.get(b) || 0) - (scores.get(a) || 0) || a - b; };
        var order = dates ? function (a, b) { return fixed(dates, b * 3, 3) - fixed(dates, a * 3, 3) || rel(a, b); } : rel;
        var hits = base.filter(function (d) { return passes(fs, d, -1); }).sort(order);
        // Near matches by the spelling they matched, the largest group first.
        var groups = new Map(), groupKeys = new Map(), nearTotal = 0;
        nearBase.forEach(function (d) {
          if (!passes(fs, d, -1)) return;
          var label = nearLabel.get(d);
          // Spellings of one name make one group (Hasan and حسن).
          if (!groups.has(label)) {
            var key = label.indexOf(" ") < 0 ? nameKey(label) : null;
            if (key) for (var g of groupKeys) if (sameName(key, g[1])) { label = g[0]; break; }
            if (key && !groups.has(label)) groupKeys.set(label, key);
          }
          if (!groups.has(label)) groups.set(label, []);
          groups.get(label).push(d);
          nearTotal++;
        });
        // The groups closest to the query first (their best score), then the largest.
        var near = Array.from(groups, function (g) {
          var best = Math.max.apply(null, g[1].map(function (d) { return scores.get(d) || 0; }));
          return { label: g[0], count: g[1].length, docs: g[1].sort(order), items: [], best: best };
        });
        near.sort(function (a, b) { return b.best - a.best || b.count - a.count || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0); });
        var per = m.perPage, pages = Math.max(1, Math.ceil(hits.length / per));
        var page = Math.min(Math.max(1, state.page || 1), pages), shown = hits.slice((page - 1) * per, page * per);
        var nearShown = [];
        near.slice(0, NEAR_GROUPS).forEach(function (g) { nearShown = nearShown.concat(g.docs.slice(0, per >= 1e6 ? g.count : NEAR_ITEMS)); });
        return { hits: hits, shown: shown, nearShown: nearShown, near: near, nearTotal: nearTotal, page: page, pages: pages };
      }
      function result(ranked, items, fs) {
        var at = ranked.shown.length;
        ranked.near.slice(0, NEAR_GROUPS).forEach(function (g) {
          var n = Math.min(g.count, m.perPage >= 1e6 ? g.count : NEAR_ITEMS);
          g.items = items.slice(at, at + n);
          at += n;
        });
        return { terms: qt, prefix: prefixLast, total: ranked.hits.length, page: ranked.page, pages: ranked.pages, items: items.slice(0, ranked.shown.length), counts: count(fs), loaded: loaded,
          near: { total: ranked.nearTotal, groups: ranked.near } };
      }
      // Unfiltered, the results do not depend on the facets: their records load beside them.
      if (!filtering) {
        var ranked = rank(null);
        return Promise.all([facets, self.records(ranked.shown.concat(ranked.nearShown))]).then(function (x) {
          return result(ranked, x[1], x[0]);
        });
      }
      return facets.then(function (fs) {
        var ranked = rank(fs);
        return self.records(ranked.shown.concat(ranked.nearShown)).then(function (items) { return result(ranked, items, fs); });
      });
    }).then(function (r) {
      // Nothing at all for the exact word: try it as the beginning of a word (near).
      if (r.total || r.near.total || prefixLast || retry || state.typing || !qt.length || Array.from(qt[qt.length - 1]).length < 4) return r;
      return self.search(Object.assign({}, state, { retry: true, q: state.q.trim() }));
    });
  };

  // Splits `text` into [string, mark] runs for the query terms: mark is true for a word the
  // query matched (as written or a spelling of the same name), "near" for a word of a near
  // match's spelling (`near`: the spellings it matched, as the group says), else false.
  function highlight(text, qt, prefix, near) {
    // [term, whether it is the prefix being typed]: the last query term's forms only.
    var want = [], keys = [], nearWords = [], nearKeys = [];
    qt.forEach(function (t, i) {
      var p = prefix && i === qt.length - 1;
      alternatives(t).forEach(function (a) { want.push([a[0], p]); });
      if (COMPOUND.test(t)) t.split(/[\/-]/).forEach(function (part) { want.push([part, false]); });
      // Other spellings of the same name are marked too (Muhammad for Mohammed).
      else if (!p && nameKey(t)) keys.push(nameKey(t));
    });
    (near || "").split(" ").filter(Boolean).forEach(function (w) {
      nearWords.push(w);
      if (nameKey(w)) nearKeys.push(nameKey(w));
    });
    function spelled(k, list) {
      return !!k && list.some(function (q) { return sameName(q, k); });
    }
    function hit(w) {
      var n = normalize(w), bare = stripArticle(n), k = nameKey(bare || n);
      if (want.some(function (x) {
        var t = x[0];
        return n === t || bare === t || (x[1] && (n.indexOf(t) === 0 || (bare || "").indexOf(t) === 0));
      }) || spelled(k, keys)) return true;
      if (nearWords.indexOf(n) >= 0 || nearWords.indexOf(bare) >= 0 || spelled(k, nearKeys)) return "near";
      return false;
    }
    var out = [];
    if (!seg) return [[text, false]];
    for (var x of seg.segment(text)) {
      var on = x.isWordLike ? hit(x.segment) : false, last = out[out.length - 1];
      if (last && last[1] === on) last[0] += x.segment; else out.push([x.segment, on]);
    }
    return out;
  }

  api.normalize = normalize;
  api.nameKey = nameKey;
  api.sameName = sameName;
  api.keyWeight = keyWeight;
  api.setNameRules = setNameRules;
  api.editDistance = editDistance;
  api.stopWords = STOP;
  api.terms = terms;
  api.phraseWords = phraseWords;
  api.queryPhrases = queryPhrases;
  api.queryTerms = queryTerms;
  api.decodePostings = decodePostings;
  api.decodeKeyPostings = decodeKeyPostings;
  api.shardIndex = shardIndex;
  api.highlight = highlight;
  api.Engine = Engine;
  if (typeof module === "object" && module.exports) module.exports = api;
  if (typeof document === "undefined") return;

  // ---- the page
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  // Appends `text` to `node` with the query's words in <mark>, as text nodes only.
  function marked(node, text, r, near) {
    highlight(text, r.terms, r.prefix, near).forEach(function (run) {
      node.appendChild(run[1] ? el("mark", run[1] === "near" ? "near" : null, run[0]) : document.createTextNode(run[0]));
    });
    return node;
  }
  // A near match's spelling as shown: a Latin name with its capital.
  function shownName(label) {
    return label.split(" ").map(function (w) { return w.charAt(0).toUpperCase() + w.slice(1); }).join(" ");
  }
  function fill(template, n, q) { return template.replace("{n}", n).replace("{q}", q); }

  var started = false;
  function start() {
    var page = document.getElementById("search"), script = document.getElementById("search-index");
    if (started || !page || !script || !store.meta || document.readyState === "loading") return;
    started = true;
    var meta = store.meta, t = page.dataset, rootPath = (t.root || "").replace(/index\.html$/, ""), portable = t.portable === "true";
    // Numbers in the configured digits; the results line in the language's plural form
    // (Arabic has six: zero, one, two, few, many, other).
    var locale = meta.lang + (t.digits === "arabic-indic" ? "-u-nu-arab" : "-u-nu-latn");
    function number(n) { return n.toLocaleString(locale); }
    function resultsText(n) {
      if (n === 0) return t.tNone;
      var form = window.Intl && Intl.PluralRules ? new Intl.PluralRules(meta.lang).select(n) : n === 1 ? "one" : "other";
      return form === "one" ? t.tResult : form === "two" ? t.tResultsTwo : form === "few" ? t.tResultsFew : form === "many" ? t.tResultsMany : t.tResults;
    }
    var form = document.getElementById("search-form"), input = document.getElementById("search-q");
    var sort = document.getElementById("search-sort"), status = document.getElementById("search-status");
    var list = document.getElementById("search-results"), nav = document.getElementById("search-pages");
    var facetBox = document.getElementById("search-facets");
    var engine = new Engine(meta, function (name) {
      return new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = new URL(name, script.src).href;
        s.onload = function () { resolve(store[name.split(".")[0]]); };
        s.onerror = function () { reject(new Error(name)); };
        document.head.appendChild(s);
      });
    });
    page.querySelector(".search-fallback").hidden = true;
    form.querySelector(".search-sort").hidden = false;
    list.tabIndex = -1;

    // Filters are folded until a reader opens them (then they stay open on this device) or a
    // filter is on: their counts need every case's values, a file a plain query need not fetch.
    var filters = el("details", "search-filters");
    var summary = el("summary", null, facetBox.getAttribute("aria-label"));
    filters.appendChild(summary);
    var OPEN_KEY = "casebook-search-filters";
    try { filters.open = root.localStorage.getItem(OPEN_KEY) === "open"; } catch (e) { /* storage off */ }
    // The reader's own choice only (a click, Enter or Space on the summary), not a link's.
    summary.addEventListener("click", function () {
      try { root.localStorage.setItem(OPEN_KEY, filters.open ? "closed" : "open"); } catch (e) { /* storage off */ }
    });
    facetBox.appendChild(filters);
    var boxes = meta.facets.map(function (f, fi) {
      var set = el("fieldset", "search-facet"), legend = el("legend", null, f.label);
      set.appendChild(legend);
      var items = f.values.map(function (v, vi) {
        var row = el("div", "search-facet-value"), box = el("input"), label = el("label"), count = el("span", "count");
        box.type = "checkbox";
        box.id = "f-" + fi + "-" + vi;
        box.name = f.name;
        box.value = v[0];
        label.htmlFor = box.id;
        label.appendChild(el("bdi", null, v[1]));
        label.appendChild(document.createTextNode(" "));
        label.appendChild(count);
        row.appendChild(box);
        row.appendChild(label);
        set.appendChild(row);
        box.addEventListener("change", function () { current.page = 1; go(true); });
        return { box: box, count: count, row: row };
      });
      filters.appendChild(set);
      return items;
    });
    var clear = el("button", "search-clear", t.tClear);
    clear.type = "button";
    clear.addEventListener("click", function () {
      boxes.forEach(function (b) { b.forEach(function (x) { x.box.checked = false; }); });
      current.page = 1;
      go(true);
    });
    if (meta.facets.length) { filters.appendChild(clear); facetBox.hidden = false; }

    var current = { page: 1 }, ticket = 0, timer = 0, counted = false;
    // Folded filters cost nothing: their counts load when they are opened.
    filters.addEventListener("toggle", function () { if (filters.open && !counted) go(null); });
    function readControls() {
      var filters = {};
      meta.facets.forEach(function (f, fi) {
        filters[f.name] = boxes[fi].filter(function (x) { return x.box.checked; }).map(function (x) { return x.box.value; });
      });
      return { q: input.value, sort: sort.value, filters: filters, page: current.page };
    }
    function fromUrl() {
      var p = new URLSearchParams(location.search);
      input.value = p.get("q") || "";
      sort.value = p.get("sort") === "date" ? "date" : "";
      current.page = parseInt(p.get("page"), 10) || 1;
      meta.facets.forEach(function (f, fi) {
        var want = p.getAll(f.name);
        boxes[fi].forEach(function (x) { x.box.checked = want.indexOf(x.box.value) >= 0; });
        if (want.length) filters.open = true;
      });
    }
    function toUrl(s) {
      var p = new URLSearchParams();
      if (s.q.trim()) p.set("q", s.q.trim());
      meta.facets.forEach(function (f) { (s.filters[f.name] || []).forEach(function (v) { p.append(f.name, v); }); });
      if (s.sort) p.set("sort", s.sort);
      if (s.page > 1) p.set("page", s.page);
      var q = p.toString();
      return location.pathname + (q ? "?" + q : "");
    }
    function href(path) {
      return rootPath + path + (portable && (path === "" || path.slice(-1) === "/") ? "index.html" : "");
    }
    function go(push, typing) {
      var s = readControls();
      if (push !== null) history[push ? "pushState" : "replaceState"](null, "", toUrl(s));
      s.typing = typing;
      s.counts = filters.open;
      var mine = ++ticket, began = performance.now();
      list.setAttribute("aria-busy", "true");
      // Say so only when the index is slow to arrive (a slow connection).
      var slow = setTimeout(function () { if (mine === ticket) status.textContent = t.tLoading; }, 400);
      engine.search(s).then(function (r) {
        clearTimeout(slow);
        if (mine !== ticket) return;
        render(s, r);
        api.last = { began: began, loaded: r.loaded, rendered: performance.now(), total: r.total };
      }, function () {
        clearTimeout(slow);
        if (mine === ticket) status.textContent = t.tFailed;
      });
    }
    // One result: `near` is the spelling a near match matched ("" for an exact one).
    function resultItem(item, r, near) {
      var li = el("li", "search-result"), h = el("h2"), a = el("a");
      li.setAttribute("data-match", near ? "near" : "exact");
      marked(a, item.title, r, near);
      a.href = href(item.path);
      // An untranslated page's English title and snippet read left to right on the
      // Arabic page: each string takes its own direction, and says its language.
      a.dir = "auto";
      if (item.titleLang) a.lang = item.titleLang;
      if (item.thumb) {
        var img = el("img", "thumb thumb-graphic");
        img.src = href(item.thumb);
        img.alt = "";
        // A fixed box, so nothing moves when the placeholder arrives (layout shift).
        img.width = 48;
        img.height = 48;
        li.appendChild(img);
      }
      h.appendChild(a);
      if (item.synthetic) { h.appendChild(document.createTextNode(" ")); h.appendChild(el("span", "badge badge-synthetic", t.tSynthetic)); }
      li.appendChild(h);
      if (item.info) li.appendChild(marked(el("p", "meta"), item.info, r, near));
      var snippet = marked(el("p", "snippet"), item.summary, r, near);
      snippet.dir = "auto";
      if (item.summaryLang) snippet.lang = item.summaryLang;
      li.appendChild(snippet);
      return li;
    }
    // Near matches, after the results and apart from them: a heading that says they are not
    // the name searched for, then one group per spelling, the first few open.
    var nearBox = el("section", "search-near");
    nearBox.id = "search-near";
    nearBox.hidden = true;
    nav.parentNode.insertBefore(nearBox, nav.nextSibling);
    function renderNear(s, r) {
      nearBox.textContent = "";
      nearBox.hidden = !r.near.total;
      if (!r.near.total) return;
      var title = el("h2", null, t.tNear);
      title.id = "search-near-title";
      nearBox.setAttribute("aria-labelledby", title.id);
      nearBox.appendChild(title);
      nearBox.appendChild(el("p", "search-near-note", fill(t.tNearNote, number(r.near.total), s.q.trim())));
      r.near.groups.forEach(function (g, gi) {
        var box = el("details", "search-near-group"), head = el("summary");
        var name = el("bdi", null, shownName(g.label));
        head.appendChild(name);
        head.appendChild(document.createTextNode(" (" + number(g.count) + ")"));
        box.appendChild(head);
        var ol = el("ol", "search-results search-near-list");
        box.appendChild(ol);
        var more = el("button", "search-near-more", t.tMore);
        more.type = "button";
        var shown = 0;
        function add(items) {
          items.forEach(function (item) { ol.appendChild(resultItem(item, r, g.label)); });
          shown += items.length;
          more.hidden = shown >= g.count;
        }
        function load(n) {
          return engine.records(g.docs.slice(shown, shown + n)).then(add);
        }
        more.addEventListener("click", function () {
          var first = shown;
          load(20).then(function () { var li = ol.children[first]; if (li) li.querySelector("a").focus(); });
        });
        box.appendChild(more);
        if (g.items.length) add(g.items); else more.hidden = true;
        box.open = gi < 3;
        box.addEventListener("toggle", function () { if (box.open && !shown) load(3); });
        nearBox.appendChild(box);
      });
    }
    function render(s, r) {
      list.removeAttribute("aria-busy");
      list.textContent = "";
      nav.textContent = "";
      nav.hidden = true;
      if (r.empty) {
        status.textContent = t.tPrompt;
        renderNear(s, r);
        boxes.forEach(function (b) { b.forEach(function (x) { x.count.textContent = ""; }); });
        return;
      }
      var q = s.q.trim(), chosen = [];
      boxes.forEach(function (b, fi) { b.forEach(function (x, vi) { if (x.box.checked) chosen.push(meta.facets[fi].values[vi][1]); }); });
      if (!q) q = chosen.join(", ");
      // Folded filters still say how many are on.
      summary.textContent = facetBox.getAttribute("aria-label") + (chosen.length ? " (" + chosen.length + ")" : "");
      // Near matches are never counted as results for the query: the line says so.
      status.textContent = r.near.total
        ? (r.total ? fill(resultsText(r.total), number(r.total), q) : fill(t.tNoneNear, 0, q)) + " " + fill(t.tNearStatus, 0, q)
        : fill(resultsText(r.total), number(r.total), q);
      renderNear(s, r);
      counted = !!r.counts;
      if (counted) r.counts.forEach(function (c, fi) {
        c.forEach(function (n, vi) {
          var x = boxes[fi][vi];
          x.count.textContent = "(" + number(n) + ")";
          x.row.classList.toggle("empty", n === 0 && !x.box.checked);
        });
      });
      r.items.forEach(function (item) { list.appendChild(resultItem(item, r, "")); });
      if (r.pages > 1) {
        nav.hidden = false;
        var ul = el("ul");
        function button(label, n, currentPage) {
          var li = el("li"), b = el("button", null, label);
          b.type = "button";
          if (currentPage) b.setAttribute("aria-current", "page");
          b.addEventListener("click", function () { current.page = n; go(true); list.focus(); });
          li.appendChild(b);
          ul.appendChild(li);
        }
        if (r.page > 1) button(t.tPrevious, r.page - 1);
        ul.appendChild(el("li", "pagination-status", t.tPage + " " + r.page + " " + t.tOf + " " + r.pages));
        if (r.page < r.pages) button(t.tNext, r.page + 1);
        nav.appendChild(ul);
      }
    }

    form.addEventListener("submit", function (e) { e.preventDefault(); current.page = 1; go(true); });
    sort.addEventListener("change", function () { current.page = 1; go(true); });
    input.addEventListener("input", function () {
      clearTimeout(timer);
      current.page = 1;
      timer = setTimeout(function () { go(false, true); }, 80);
    });
    addEventListener("popstate", function () { fromUrl(); go(null); });
    fromUrl();
    go(null);
  }
  document.addEventListener("DOMContentLoaded", start);
  start();
})(typeof window !== "undefined" ? window : globalThis);
