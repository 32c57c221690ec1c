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
      words(c).forEach(function (w) { ws.push([w, STOP.has(w) || !!LATIN_ARTICLE[w]]); });
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
    ou: "L:w", oo: "L:w", uu: "L:w", ee: "L:y", ei: "L:y", ai: "L:y", ay: "L:y", ey: "L:y", ie: "L:y", ii: "L:y" };
  var LATIN_ONE = { a: "V:a", e: "V:i", i: "V:i", o: "V:u", u: "V:u", c: "C:k", q: "C:k", k: "C:k", g: "C:j", v: "C:f", p: "C:b" };
  var ARABIC_ONE = {};
  [["اءئؤع", "V:."], ["ح", "C:h"], ["خ", "C:X"], ["شچ", "C:S"], ["غ", "C:G"],
    ["ثتط", "C:t"], ["ذضد", "C:d"], ["صس", "C:s"], ["ظز", "C:z"],
    ["قك", "C:k"], ["جگ", "C:j"], ["بپ", "C:b"], ["فڤ", "C:f"], ["ر", "C:r"],
    ["ل", "C:l"], ["م", "C:m"], ["ن", "C:n"]].forEach(function (x) {
    for (var c of x[0]) ARABIC_ONE[c] = x[1];
  });
  var ARABIC_LETTER = /[\u0621-\u064A\u067E\u0686\u06A4\u06AF]/;
  // Marks written for ع or hamza in Latin letters (Sa'id, Ma’moun, ʿAli) break sounds, as ع does.
  var AYN = /['\u2018\u2019\u02BE\u02BF`]/g;
  function latinSounds(w) {
    w = w.replace(AYN, "'");
    if (!/^[a-z']*[a-z][a-z']*$/.test(w)) return null;
    var out = [];
    for (var i = 0; i < w.length;) {
      var two = LATIN_PAIRS[w.substr(i, 2)];
      if (two && w.length - i >= 2) {
        // A word that begins with a long vowel (Oussama) begins with a vowel.
        if (i === 0 && two.charAt(0) === "L") two = two === "L:w" ? "V:u" : "V:i";
        out.push(two);
        i += 2;
        continue;
      }
      var c = w.charAt(i), nextVowel = "aeiou".indexOf(w.charAt(i + 1)) >= 0 && i + 1 < w.length;
      if (c === "'") out.push("V:-");
      else if (c === "y") out.push(i === 0 || nextVowel ? "C:y" : "V:i");
      else if (c === "h" && i === w.length - 1 && out.length && out[out.length - 1].charAt(0) === "V") { /* silent */ }
      else if (c === "x") out.push("C:k", "C:s");
      else out.push(LATIN_ONE[c] || "C:" + c);
      i++;
    }
    return out;
  }
  function arabicSounds(w) {
    var cs = Array.from(w), out = [];
    for (var i = 0; i < cs.length; i++) {
      var c = cs[i], first = i === 0, last = i === cs.length - 1;
      if ((c === "و" || c === "ي" || c === "ى") && last && !first) out.push("V:.");
      else if (c === "و") out.push(first ? "C:w" : "L:w");
      else if (c === "ي" || c === "ى") out.push(first ? "C:y" : "L:y");
      else if (c === "ه") { if (!last || first) out.push("C:h"); }
      else if (ARABIC_ONE[c]) out.push(ARABIC_ONE[c]);
      else return null;
    }
    return out;
  }
  // "~LOOSE~STRICT~CLASS" for a normalized word, or null.
  function nameKey(w) {
    var arabic = ARABIC_LETTER.test(w), sounds = arabic ? arabicSounds(w) : latinSounds(w);
    if (!sounds) return null;
    var strict = "", prev = null, cls = arabic ? "." : null;
    sounds.forEach(function (s) {
      var kind = s.charAt(0), c = s.charAt(2);
      if (kind === "V") { prev = null; if (!cls && c !== "-") cls = c; return; }
      if (!cls && kind === "L") cls = c === "w" ? "u" : "i";
      if (prev !== c) strict += c;
      prev = c;
    });
    if (!strict) return null;
    var loose = "";
    Array.from(strict).forEach(function (c, i) {
      if (i > 0 && (c === "w" || c === "y")) return;
      if (loose.charAt(loose.length - 1) !== c) loose += c;
    });
    return "~" + loose + "~" + strict + "~" + (cls || "-");
  }
  // How much a name-key term found for a query word counts: spellings of the same script
  // that agree on the first vowel (Latin) or every long vowel (Arabic) first, then the
  // other script, then the rest of the loose key's words (Hassan for Hussein).
  function keyWeight(q, t) {
    var a = q.split("~"), b = t.split("~"), arabicQ = a[3] === ".", arabicT = b[3] === ".";
    if (arabicQ === arabicT) return (arabicQ ? a[2] === b[2] : a[3] === b[3]) ? 0.8 : 0.5;
    return a[2] === b[2] ? 0.7 : 0.6;
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
      if (shards[mid][0] <= t) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  // The search logic, free of the DOM: `load(fileName)` resolves to a file's data.
  function Engine(meta, load) {
    this.m = meta;
    this.load = load;
    this.files = {};
    this.terms = {};
  }
  Engine.prototype.file = function (name) {
    return this.files[name] || (this.files[name] = this.load(name));
  };
  Engine.prototype.shards = function (t, prefix) {
    var s = this.m.shards, a = shardIndex(s, t), b = prefix ? shardIndex(s, t + "\uffff") : a;
    var out = [];
    for (var i = a; i <= b; i++) out.push(s[i][1]);
    return out;
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
  // Document -> score for one query term; a prefix unites every term it begins.
  Engine.prototype.match = function (t, prefix) {
    var self = this;
    return Promise.all(this.shards(t, prefix).map(function (n) { return self.shardTerms(n); })).then(function (maps) {
      var out = new Map();
      maps.forEach(function (m) {
        if (!prefix) { if (m.has(t)) out = decodePostings(m.get(t)); return; }
        m.forEach(function (p, term) {
          if (term.indexOf(t) !== 0) return;
          // The exact word ranks above longer words it begins (2761 before 27610).
          var k = term === t ? 1 : 0.5;
          decodePostings(p).forEach(function (s, d) { if (!(out.get(d) >= s * k)) out.set(d, s * k); });
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
  function keep(out, m, k) {
    m.forEach(function (s, d) { if (!(out.get(d) >= s * k)) out.set(d, s * k); });
  }
  // Document -> score for the other spellings of a name (its name-key terms), weighted by
  // keyWeight; `k` scales it all (a typo's corrections).
  Engine.prototype.matchKey = function (word, k) {
    var self = this, key = nameKey(word), shards = this.m.keys || [];
    if (!key || !shards.length) return Promise.resolve(new Map());
    var loose = key.slice(0, key.indexOf("~", 1) + 1), a = shardIndex(shards, loose), b = shardIndex(shards, loose + "\uffff");
    var names = [];
    for (var i = a; i <= b; i++) names.push(shards[i][1]);
    return Promise.all(names.map(function (n) { return self.shardTerms(n); })).then(function (maps) {
      var out = new Map();
      maps.forEach(function (m) {
        m.forEach(function (p, term) { if (term.indexOf(loose) === 0) keep(out, decodeKeyPostings(p), k * keyWeight(key, term)); });
      });
      return out;
    });
  };
  // Names one or two edits away (see typoLimit) from a word the index does not hold.
  Engine.prototype.matchTypo = function (word) {
    var self = this, limit = typoLimit(word), shards = this.m.names || [];
    if (!limit || !shards.length || !nameKey(word)) return Promise.resolve(new Map());
    var arabic = ARABIC_LETTER.test(word);
    return this.file(shards[shardIndex(shards, word)][1]).then(function (list) {
      var near = list.filter(function (w) {
        return w !== word && ARABIC_LETTER.test(w) === arabic && editDistance(word, w, limit) <= limit;
      });
      // A correction ranks as its own spellings would, a little below (0.9): above what the
      // mistyped word's skeleton finds in the other script.
      return Promise.all(near.map(function (w) { return self.matchKey(w, 0.9); }));
    }).then(function (maps) {
      var out = new Map();
      maps.forEach(function (m) { keep(out, m, 1); });
      return out;
    });
  };
  Engine.prototype.matchAny = function (t, prefix) {
    var self = this, alts = alternatives(t);
    var exact = Promise.all(alts.map(function (a) { return self.match(a[0], prefix); }));
    // Other spellings of each form (الخطيب: also those of خطيب, so al-Khatib is found).
    var keys = alts.slice(), joined = latinArticleBare(t);
    if (joined) keys.push([joined, 0.9]);
    var keyed = Promise.all(keys.map(function (a) { return self.matchKey(a[0], a[1]); }));
    return Promise.all([exact, keyed]).then(function (r) {
      var out = new Map(), found = r[0].some(function (m) { return m.size; });
      r[0].forEach(function (m, i) { keep(out, m, alts[i][1]); });
      r[1].forEach(function (m) { keep(out, m, 1); });
      if (found || prefix || COMPOUND.test(t)) return out;
      return self.matchTypo(t).then(function (m) { keep(out, m, 1); return out; });
    });
  };
  // Document -> positions of one word as written, from its shard and the shard's positions
  // file (fetched for quoted phrases only).
  Engine.prototype.positions = function (w) {
    var shard = this.m.shards[shardIndex(this.m.shards, w)];
    return Promise.all([this.file(shard[1]), this.file(shard[2])]).then(function (r) {
      var list = r[0], out = new Map();
      for (var j = 0; j < list.length; j += 2) {
        if (list[j] !== w) continue;
        var n = varints(r[1][j / 2]), k = 0;
        decodePostings(list[j + 1]).forEach(function (s, d) {
          var count = n[k++], at = [], p = 0;
          for (var i = 0; i < count; i++) at.push(p += n[k++]);
          if (count) out.set(d, at);
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
  Engine.prototype.codes = function () {
    var m = this.m;
    if (!m.facetsFile) return Promise.resolve([]);
    if (!this.decoded) {
      this.decoded = this.file(m.facetsFile).then(function (groups) {
        var bits = {};
        m.facets.forEach(function (f) { if (f.multi) bits[f.group] = 1; });
        return groups.map(function (s, g) {
          var w = m.groups[g], out = new Float64Array(m.n);
          if (bits[g]) return s;
          for (var d = 0; d < m.n; d++) out[d] = fixed(s, d * w, w);
          return out;
        });
      });
    }
    return this.decoded;
  };
  // The value digit of each single-valued facet for every document (list facets: null).
  Engine.prototype.facetDigits = function (codes) {
    var places = [];
    return this.m.facets.map(function (f) {
      if (f.multi) return null;
      var place = places[f.group] || 1, code = codes[f.group], out = new Float64Array(code.length);
      for (var d = 0; d < code.length; d++) out[d] = Math.floor(code[d] / place) % f.radix;
      places[f.group] = place * f.radix;
      return out;
    });
  };
  // state: {q, filters: {facet: [values]}, sort: "" | "date", page, typing}
  Engine.prototype.search = function (state) {
    var self = this, m = this.m, qt = queryTerms(state.q || ""), phrases = queryPhrases(state.q || "");
    var prefixLast = state.typing && qt.length && !/[\s,;]$/.test(state.q) && Array.from(qt[qt.length - 1]).length >= 2;
    var active = m.facets.map(function (f) {
      var want = (state.filters || {})[f.name] || [];
      return f.values.map(function (v) { return want.indexOf(v[0]) >= 0; });
    });
    var filtering = active.some(function (a) { return a.indexOf(true) >= 0; });
    if (!qt.length && !filtering) return Promise.resolve({ empty: true, terms: [] });
    var loads = [Promise.all(qt.map(function (t, i) { return self.matchAny(t, prefixLast && i === qt.length - 1); })), this.codes(),
      Promise.all(phrases.map(function (words) { return self.matchPhrase(words); }))];
    if (state.sort === "date") loads.push(this.file(m.datesFile));
    return Promise.all(loads).then(function (r) {
      var loaded = performance.now(), maps = r[0], dates = r[3], base = [], scores = new Map();
      var phrase = r[2];
      if (qt.length) {
        maps.sort(function (a, b) { return a.size - b.size; });
        maps[0].forEach(function (s, d) {
          for (var i = 1; i < maps.length; i++) { var o = maps[i].get(d); if (o === undefined) return; s += o; }
          // A quoted phrase: its words next to each other and in order.
          for (i = 0; i < phrase.length; i++) if (!phrase[i].has(d)) return;
          base.push(d);
          scores.set(d, s);
        });
      } else for (var d = 0; d < m.n; d++) base.push(d);
      var digits = self.digits || (self.digits = r[1].length ? self.facetDigits(r[1]) : []);
      function has(fi, d, v) {
        var f = m.facets[fi], w = m.groups[f.group];
        if (f.multi) return (VAL[r[1][f.group].charAt(d * w + Math.floor(v / 6))] >> (v % 6)) & 1;
        return digits[fi][d] === v + 1;
      }
      var filtered = [];
      active.forEach(function (a, fi) { if (a.indexOf(true) >= 0) filtered.push(fi); });
      function passes(d, except) {
        for (var i = 0; i < filtered.length; i++) {
          var fi = filtered[i], ok = false;
          if (fi === except) continue;
          for (var v = 0; v < active[fi].length && !ok; v++) ok = active[fi][v] && has(fi, d, v);
          if (!ok) return false;
        }
        return true;
      }
      var counts = m.facets.map(function (f, fi) {
        var c = f.values.map(function () { return 0; }), w = m.groups[f.group], s = r[1][f.group];
        base.forEach(function (d) {
          if (filtered.length && !passes(d, fi)) return;
          if (!f.multi) { if (digits[fi][d]) c[digits[fi][d] - 1]++; return; }
          for (var k = 0; k < w; k++) {
            for (var bits = VAL[s.charAt(d * w + k)], v = k * 6; bits; bits >>= 1, v++) if (bits & 1) c[v]++;
          }
        });
        return c;
      });
      var hits = base.filter(function (d) { return passes(d, -1); });
      var rel = function (a, b) { return (scores.get(b) || 0) - (scores.get(a) || 0) || a - b; };
      hits.sort(dates ? function (a, b) { return fixed(dates, b * 3, 3) - fixed(dates, a * 3, 3) || rel(a, b); } : rel);
      var per = m.perPage, pages = Math.max(1, Math.ceil(hits.length / per));
      var page = Math.min(Math.max(1, state.page || 1), pages), shown = hits.slice((page - 1) * per, page * per);
      var need = [];
      shown.forEach(function (d) { var c = m.docs[Math.floor(d / m.chunk)]; if (need.indexOf(c) < 0) need.push(c); });
      return Promise.all(need.map(function (c) { return self.file(c); })).then(function (chunks) {
        var items = shown.map(function (d) {
          var rec = chunks[need.indexOf(m.docs[Math.floor(d / m.chunk)])][d % m.chunk];
          return { doc: d, path: rec[0], title: rec[1], summary: rec[2], info: rec[3], thumb: rec[4], synthetic: rec[5] === 1, titleLang: rec[6] || "", summaryLang: rec[7] || "" };
        });
        return { terms: qt, prefix: prefixLast, total: hits.length, page: page, pages: pages, items: items, counts: counts, loaded: loaded };
      });
    }).then(function (r) {
      // Nothing for the exact word: try it as the beginning of a word.
      if (r.total || prefixLast || state.typing || !qt.length || Array.from(qt[qt.length - 1]).length < 4) return r;
      return self.search(Object.assign({}, state, { typing: true, q: state.q.trim() }));
    });
  };

  // The `~LOOSE~` part of a word's name key: what its other spellings share ("" if none).
  function looseKey(w) {
    var k = nameKey(w);
    return k ? k.slice(0, k.indexOf("~", 1) + 1) : "";
  }
  // Splits `text` into [string, highlighted] runs for the query terms.
  function highlight(text, qt, prefix) {
    // [term, whether it is the prefix being typed]: the last query term's forms only.
    var want = [], keys = [];
    qt.forEach(function (t, i) {
      var p = prefix && i === qt.length - 1;
      alternatives(t).forEach(function (a) { want.push([a[0], p]); });
      if (COMPOUND.test(t)) t.split(/[\/-]/).forEach(function (part) { want.push([part, false]); });
      // Other spellings of a name are marked too (Muhammad for Mohammed).
      else if (!p && looseKey(t)) keys.push(looseKey(t));
    });
    function hit(w) {
      var n = normalize(w), bare = stripArticle(n);
      return want.some(function (x) {
        var t = x[0];
        return n === t || bare === t || (x[1] && (n.indexOf(t) === 0 || (bare || "").indexOf(t) === 0));
      }) || (keys.length > 0 && keys.indexOf(looseKey(bare || n)) >= 0);
    }
    var out = [];
    if (!seg) return [[text, false]];
    for (var x of seg.segment(text)) {
      var on = !!x.isWordLike && hit(x.segment), last = out[out.length - 1];
      if (last && last[1] === on) last[0] += x.segment; else out.push([x.segment, on]);
    }
    return out;
  }

  api.normalize = normalize;
  api.nameKey = nameKey;
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
  function marked(node, text, r) {
    highlight(text, r.terms, r.prefix).forEach(function (run) {
      node.appendChild(run[1] ? el("mark", null, run[0]) : document.createTextNode(run[0]));
    });
    return node;
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

    // Filters fold away on narrow screens so results come first.
    var filters = el("details", "search-filters");
    var summary = el("summary", null, facetBox.getAttribute("aria-label"));
    filters.appendChild(summary);
    var wide = root.matchMedia ? root.matchMedia("(min-width: 48rem)") : { matches: true };
    filters.open = wide.matches;
    if (wide.addEventListener) wide.addEventListener("change", function () { if (wide.matches) filters.open = true; });
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

    var current = { page: 1 }, ticket = 0, timer = 0;
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
    function render(s, r) {
      list.removeAttribute("aria-busy");
      list.textContent = "";
      nav.textContent = "";
      nav.hidden = true;
      if (r.empty) {
        status.textContent = t.tPrompt;
        boxes.forEach(function (b) { b.forEach(function (x) { x.count.textContent = ""; }); });
        return;
      }
      var q = s.q.trim(), chosen = [];
      boxes.forEach(function (b, fi) { b.forEach(function (x, vi) { if (x.box.checked) chosen.push(meta.facets[fi].values[vi][1]); }); });
      if (!q) q = chosen.join(", ");
      // Folded filters still say how many are on.
      summary.textContent = facetBox.getAttribute("aria-label") + (chosen.length ? " (" + chosen.length + ")" : "");
      status.textContent = fill(resultsText(r.total), number(r.total), q);
      r.counts.forEach(function (c, fi) {
        c.forEach(function (n, vi) {
          var x = boxes[fi][vi];
          x.count.textContent = "(" + number(n) + ")";
          x.row.classList.toggle("empty", n === 0 && !x.box.checked);
        });
      });
      r.items.forEach(function (item) {
        var li = el("li", "search-result"), h = el("h2"), a = el("a");
        marked(a, item.title, r);
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
        if (item.info) li.appendChild(marked(el("p", "meta"), item.info, r));
        var snippet = marked(el("p", "snippet"), item.summary, r);
        snippet.dir = "auto";
        if (item.summaryLang) snippet.lang = item.summaryLang;
        li.appendChild(snippet);
        list.appendChild(li);
      });
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
