// The /verify/ page's in-browser check of one record: its Merkle proof, the publisher's
// signature (where the browser has Ed25519) and every file of the record, hashed with the
// browser's own SHA-256. It fetches only from this site and never displays a photograph.
(function () {
  "use strict";
  var box = document.getElementById("verify-check");
  if (!box || !window.crypto || !crypto.subtle || !window.fetch || !window.TextEncoder) return;
  var form = document.getElementById("verify-form");
  var input = document.getElementById("verify-case");
  var out = document.getElementById("verify-result");
  var strings = {};
  var tpl = document.getElementById("verify-strings");
  tpl.content.querySelectorAll("[data-key]").forEach(function (el) {
    strings[el.getAttribute("data-key")] = el.textContent;
  });
  var root = box.getAttribute("data-root") || "";
  var publicKey = box.getAttribute("data-public-key") || "";
  var utf8 = new TextEncoder();

  if (location.protocol === "file:") {
    line("note", strings.from_disk);
    return;
  }
  form.hidden = false;

  function line(kind, text) {
    var li = document.createElement("p");
    li.className = "verify-" + kind;
    li.textContent = text;
    out.appendChild(li);
    return li;
  }

  function hex(buffer) {
    return Array.from(new Uint8Array(buffer), function (b) {
      return b.toString(16).padStart(2, "0");
    }).join("");
  }

  function unhex(text) {
    var bytes = new Uint8Array(text.length / 2);
    for (var i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.substr(2 * i, 2), 16);
    return bytes;
  }

  function concat(parts) {
    var size = parts.reduce(function (n, p) { return n + p.length; }, 0);
    var all = new Uint8Array(size);
    var at = 0;
    parts.forEach(function (p) { all.set(p, at); at += p.length; });
    return all;
  }

  function sha256(bytes) {
    return crypto.subtle.digest("SHA-256", bytes).then(function (b) { return new Uint8Array(b); });
  }

  // The documented hashing: leaf = SHA-256(0 ‖ path ‖ 0 ‖ sha256 ‖ 0 ‖ size),
  // node = SHA-256(1 ‖ left ‖ right); an odd last node is carried up unchanged.
  function leaf(f) {
    var z = new Uint8Array([0]);
    return sha256(concat([z, utf8.encode(f.path), z, utf8.encode(f.sha256), z, utf8.encode(String(f.size))]));
  }

  function node(l, r) {
    return sha256(concat([new Uint8Array([1]), l, r]));
  }

  var CHUNK_LEVEL = 6;
  var hexHash = /^[0-9a-f]{64}$/;

  // Refuses what the documented format does not allow, before any hashing: indices must be
  // whole, in range, ascending and distinct, and hashes SHA-256 hex.
  function wellFormed(proof, id, chunks) {
    var n = proof.leaf_count;
    if (proof.format !== "casebook-merkle-proof-3" || proof.case !== id) return false;
    if (!Number.isInteger(n) || n < 1 || !Number.isInteger(proof.case_index)) return false;
    if (proof.chunk_size !== 1 << CHUNK_LEVEL || proof.case_index < 0 || proof.case_index >= n) return false;
    if (!Array.isArray(proof.files) || !proof.files.length || !Array.isArray(proof.hashes)) return false;
    var last = -1;
    for (var f of proof.files) {
      if (!Number.isInteger(f.index) || f.index <= last || f.index >= n || f.index === proof.case_index) return false;
      if (typeof f.path !== "string" || !hexHash.test(f.sha256) || !Number.isInteger(f.size)) return false;
      last = f.index;
    }
    if (!proof.hashes.every(function (h) { return hexHash.test(h); })) return false;
    // The chunk list the proof leads through: the same tree, one root per 64 leaves.
    return chunks.format === "casebook-merkle-chunks-1" && chunks.leaf_count === n &&
      chunks.chunk_size === proof.chunk_size && hexHash.test(chunks.root) &&
      Array.isArray(chunks.chunks) && chunks.chunks.length === Math.ceil(n / proof.chunk_size) &&
      chunks.chunks.every(function (h) { return hexHash.test(h); });
  }

  // The case leaf ties the case id to exactly its files: SHA-256(2 ‖ id ‖ (0 ‖ path)…).
  function caseLeaf(proof) {
    var parts = [new Uint8Array([2]), utf8.encode(proof.case)];
    proof.files.forEach(function (f) { parts.push(new Uint8Array([0]), utf8.encode(f.path)); });
    return sha256(concat(parts));
  }

  // Walks the known nodes of a level of `width` up `levels` levels (or to the root),
  // taking each missing sibling from `next`, in the documented order.
  async function climb(known, width, levels, next) {
    for (var level = 0; width > 1 && level < levels; level++) {
      var above = new Map();
      var keys = Array.from(known.keys()).sort(function (a, b) { return a - b; });
      for (var i = 0; i < keys.length; i++) {
        var k = keys[i], h = known.get(k), parent;
        if (k % 2 === 0) {
          if (keys[i + 1] === k + 1) { parent = await node(h, known.get(k + 1)); i++; }
          else if (k + 1 < width) parent = await node(h, next());
          else parent = h;
        } else {
          parent = await node(next(), h);
        }
        above.set(Math.floor(k / 2), parent);
      }
      known = above;
      width = Math.ceil(width / 2);
    }
    return known;
  }

  // The root the proof leads to through the chunk list, or null where it leads nowhere.
  async function proofRoot(proof, chunks) {
    var known = new Map();
    for (var f of proof.files) known.set(f.index, await leaf(f));
    known.set(proof.case_index, await caseLeaf(proof));
    var supplied = proof.hashes.slice();
    var next = function () {
      if (!supplied.length) throw new Error("too few hashes");
      return unhex(supplied.shift());
    };
    var reached = await climb(known, proof.leaf_count, CHUNK_LEVEL, next);
    if (supplied.length) throw new Error("too many hashes");
    for (var [index, hash] of reached) {
      if (chunks.chunks[index] !== hex(hash)) return null;
    }
    var all = new Map(chunks.chunks.map(function (h, i) { return [i, unhex(h)]; }));
    var top = await climb(all, all.size, Infinity, function () { throw new Error("a chunk is missing"); });
    var computed = hex(top.get(0));
    return computed === chunks.root ? computed : null;
  }

  function base64(text) {
    return Uint8Array.from(atob(text.trim()), function (c) { return c.charCodeAt(0); });
  }

  // The signed root, from the trusted comment of manifest.json.minisig, whose global
  // signature is Ed25519 over (signature ‖ trusted comment). Returns null when the browser
  // cannot check Ed25519.
  async function signedRoot() {
    var response = await fetch(root + "manifest.json.minisig", { cache: "no-store" });
    if (response.status === 404) return { unsigned: true };
    if (!response.ok) throw new Error("manifest.json.minisig: " + response.status);
    signatureBytes = new Uint8Array(await response.arrayBuffer());
    var lines = new TextDecoder().decode(signatureBytes).split("\n");
    if (lines.length < 4 || lines[2].indexOf("trusted comment: ") !== 0) return { bad: true };
    var sig = base64(lines[1]);
    // minisign reads the comment trimmed; so must this check.
    var comment = lines[2].slice("trusted comment: ".length).trim();
    if (comment.indexOf("casebook-release ") !== 0) return { bad: true };
    var global = base64(lines[3]);
    var pk = base64(publicKey);
    if (sig.length !== 74 || global.length !== 64 || pk.length !== 42 || sig.slice(2, 10).join() !== pk.slice(2, 10).join()) {
      return { bad: true };
    }
    var key;
    try {
      key = await crypto.subtle.importKey("raw", pk.slice(10), { name: "Ed25519" }, false, ["verify"]);
    } catch (e) {
      return { unsupported: true };
    }
    var good = await crypto.subtle.verify({ name: "Ed25519" }, key, global, concat([sig.slice(10), utf8.encode(comment)]));
    var match = / merkle_root=([0-9a-f]{64})/.exec(comment);
    return good && match ? { root: match[1] } : { bad: true };
  }

  var signatureBytes = null;

  // A DER element at `at`: its tag, where its content starts and where it ends.
  function der(bytes, at) {
    var tag = bytes[at];
    var len = bytes[at + 1];
    var start = at + 2;
    if (len & 0x80) {
      var n = len & 0x7f;
      if (n < 1 || n > 3) throw new Error("DER length");
      len = 0;
      for (var i = 0; i < n; i++) len = len * 256 + bytes[start + i];
      start += n;
    }
    if (start + len > bytes.length) throw new Error("DER overrun");
    return { tag: tag, start: start, end: start + len };
  }

  function children(bytes, el) {
    var list = [];
    for (var at = el.start; at < el.end; ) {
      var child = der(bytes, at);
      list.push(child);
      at = child.end;
    }
    return list;
  }

  // What an RFC 3161 response (manifest.json.minisig.<n>.tsr) says: the hash it stamps, its
  // time and its authority's common name. Its signature is not checked here (casebook
  // verify and openssl ts -verify do that).
  function token(bytes) {
    var resp = children(bytes, der(bytes, 0));
    var content = children(bytes, resp[1]);
    var signed = children(bytes, children(bytes, content[1])[0]);
    var encap = children(bytes, signed[2]);
    var octets = children(bytes, encap[1])[0];
    var info = children(bytes, der(bytes, octets.start));
    var imprint = children(bytes, info[2]);
    var hash = bytes.slice(imprint[1].start, imprint[1].end);
    var t = String.fromCharCode.apply(null, bytes.slice(info[4].start, info[4].end));
    var time = t.slice(0, 4) + "-" + t.slice(4, 6) + "-" + t.slice(6, 8) + " " + t.slice(8, 10) + ":" + t.slice(10, 12) + ":" + t.slice(12, 14) + " UTC";
    var authority = "";
    var named = info.find(function (el) { return el.tag === 0xa0; });
    if (named) {
      var cn = [6, 3, 0x55, 4, 3].join();
      for (var at = named.start; at < named.end - 5 && !authority; at++) {
        if (Array.from(bytes.slice(at, at + 5)).join() === cn) {
          var value = der(bytes, at + 5);
          authority = new TextDecoder().decode(bytes.slice(value.start, value.end));
        }
      }
    }
    return { hash: hash, time: time, authority: authority };
  }

  // The tokens beside the signature, each shown with its time when it stamps this very
  // signature file.
  async function stamps() {
    if (!signatureBytes) return false;
    var digest = hex(await sha256(signatureBytes));
    var bad = false;
    for (var n = 1; n <= 4; n++) {
      var got = await fetch(root + "manifest.json.minisig." + n + ".tsr", { cache: "no-store" });
      if (!got.ok) continue;
      var said;
      try { said = token(new Uint8Array(await got.arrayBuffer())); } catch (e) { said = null; }
      if (said && hex(said.hash) === digest) {
        line("good", strings.stamped.replace("{authority}", said.authority || "?").replace("{time}", said.time)).setAttribute("data-stamp", n);
      } else {
        line("bad", strings.stamp_bad.replace("{n}", n));
        bad = true;
      }
    }
    return bad;
  }

  function fileUrl(path) {
    return root + path.split("/").map(encodeURIComponent).join("/");
  }

  // The case's proof from its shard (src/integrity/shards.rs): the first four bytes of the
  // SHA-256 of its id, big-endian, modulo the number of shards the index gives. Null when
  // the copy has no proof for it. The proof is then checked like any other: the shard
  // vouches for nothing.
  async function findProof(id) {
    var index = await fetch(root + "verify/proofs/index.json", { cache: "no-store" });
    if (!index.ok) return null;
    var shards = (await index.json()).shards;
    if (!Number.isInteger(shards) || shards < 1) return null;
    var d = await sha256(utf8.encode(id));
    var n = ((d[0] * 16777216) + (d[1] << 16) + (d[2] << 8) + d[3]) % shards;
    var response = await fetch(root + "verify/proofs/" + n + ".json", { cache: "no-store" });
    if (!response.ok) return null;
    var shard = await response.json();
    if (shard.shard !== n || shard.shards !== shards || !Array.isArray(shard.proofs)) return null;
    return shard.proofs.find(function (p) { return p && p.case === id; }) || null;
  }

  async function check(id) {
    out.textContent = "";
    out.setAttribute("aria-busy", "true");
    var busy = line("note", strings.checking);
    try {
      var proof = await findProof(id);
      if (!proof) { busy.remove(); line("bad", strings.no_proof); return; }
      var listed = await fetch(root + "verify/chunks.json", { cache: "no-store" });
      var chunks = listed.ok ? await listed.json() : {};
      busy.remove();
      var bad = false;
      var proven = false;
      if (!wellFormed(proof, id, chunks)) { line("bad", strings.proof_bad); bad = true; }
      if (!publicKey) line("note", strings.unsigned);
      else {
        var signed = await signedRoot();
        if (signed.unsigned) { line("bad", strings.unsigned); bad = true; }
        else if (signed.unsupported) line("note", strings.no_ed25519);
        else if (signed.bad || signed.root !== chunks.root) { line("bad", strings.signature_bad); bad = true; }
        else { line("good", strings.signature_good); proven = true; }
        if (!bad && await stamps()) bad = true;
      }
      var computed = null;
      if (!bad) {
        try { computed = await proofRoot(proof, chunks); } catch (e) { computed = null; }
        if (computed !== null && computed === chunks.root) line("good", strings.proof_good);
        else { line("bad", strings.proof_bad); bad = true; }
      }
      if (bad) {
        line("bad", strings.some_bad).id = "verify-verdict";
        return;
      }
      var list = document.createElement("ul");
      list.className = "verify-files";
      out.appendChild(list);
      for (var f of proof.files) {
        var item = document.createElement("li");
        var state;
        var got = await fetch(fileUrl(f.path), { cache: "no-store" });
        if (!got.ok) state = "missing";
        else {
          var bytes = new Uint8Array(await got.arrayBuffer());
          state = bytes.length === f.size && hex(await sha256(bytes)) === f.sha256 ? "good" : "bad";
        }
        if (state !== "good") bad = true;
        item.className = "verify-" + (state === "good" ? "good" : "bad");
        item.setAttribute("data-path", f.path);
        var name = document.createElement("code");
        name.textContent = f.path;
        item.appendChild(name);
        item.appendChild(document.createTextNode(" " + strings["file_" + state]));
        list.appendChild(item);
      }
      // "Exactly as released" needs the signature: without it the proof vouches only for itself.
      var verdict = bad ? "some_bad" : proven ? "all_good" : "unproven";
      line(bad ? "bad" : proven ? "good" : "note", strings[verdict]).id = "verify-verdict";
    } catch (e) {
      busy.remove();
      line("bad", strings.failed + ": " + e.message).id = "verify-verdict";
    } finally {
      out.removeAttribute("aria-busy");
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var id = input.value.trim();
    if (!id) return;
    history.replaceState(null, "", "?case=" + encodeURIComponent(id));
    check(id);
  });
  var asked = new URLSearchParams(location.search).get("case");
  if (asked) {
    input.value = asked;
    check(asked);
  }
})();
