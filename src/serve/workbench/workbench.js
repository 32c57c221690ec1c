// The redaction editor: regions drawn on the source (mouse, touch or keyboard alone),
// the published derivative beside it, rebuilt by the server's own pipeline on each change.
(function () {
  "use strict";
  var dataNode = document.getElementById("wb-data");
  if (!dataNode) return;
  var photo = JSON.parse(dataNode.textContent);
  var token = document.querySelector('meta[name="casebook-token"]').content;
  var stage = document.getElementById("wb-stage");
  var source = document.getElementById("wb-source");
  var preview = document.getElementById("wb-preview");
  var tools = document.getElementById("wb-tools");
  var announce = document.getElementById("wb-announce");
  var ar = photo.lang === "ar";
  var T = ar ? {
    add: "أضف منطقة", del: "احذف المنطقة", undo: "تراجع", redo: "أعد", zoomIn: "تكبير", zoomOut: "تصغير",
    fill: "تعبئة", pixelate: "تقطيع", method: "الطريقة", region: "المنطقة", none: "لا منطقة محددة",
    created: "أُنشئت المنطقة", deleted: "حُذفت المنطقة", moved: "نُقلت المنطقة", resized: "غُيّر حجم المنطقة",
    selected: "حُددت المنطقة", regions: "المناطق", updated: "حُدّثت المعاينة",
    sensitivity: "الحساسية", alt: "النص البديل", caption: "التعليق", save: "احفظ", review: "احفظ وعلّم أنها رُوجعت",
    reviewer: "اسم المراجِع", conflict: "ما تغيّر في الملف على القرص منذ فُتح المحرر:", width: "عرض المعاينة", asShown: "كما تُعرض", publishedWidth: "عرض منشور", saved: "حُفظ", reviewedNow: "حُفظ وعُلّم أنه رُوجع", needName: "اكتب اسم المراجِع أولاً", isReviewed: "مُراجَعة", notReviewed: "غير مُراجَعة", details: "الوصف", help: "مفاتيح: N منطقة جديدة، الأسهم للنقل، Alt مع الأسهم لتغيير الحجم، Shift لخطوة أكبر، Delete للحذف، M للطريقة، [ و ] للتنقل بين المناطق"
  } : {
    add: "Add region", del: "Delete region", undo: "Undo", redo: "Redo", zoomIn: "Zoom in", zoomOut: "Zoom out",
    fill: "fill", pixelate: "pixelate", method: "Method", region: "Region", none: "No region selected",
    created: "Region created", deleted: "Region deleted", moved: "Region moved", resized: "Region resized",
    selected: "Region selected", regions: "Regions", updated: "Preview updated",
    sensitivity: "Sensitivity", alt: "Alt text", caption: "Caption", save: "Save", review: "Save and mark reviewed",
    reviewer: "Reviewer's name", conflict: "What changed in the file on disk since the editor opened it:", width: "Preview width", asShown: "as shown", publishedWidth: "published", saved: "Saved", reviewedNow: "Saved and marked reviewed", needName: "Write the reviewer's name first", isReviewed: "Reviewed", notReviewed: "Not reviewed", details: "Description", help: "Keys: N new region, arrows move, Alt+arrows resize, Shift for larger steps, Delete removes, M changes the method, [ and ] select the previous or next region"
  };
  var regions = photo.regions.map(function (r) { return { x: r.x, y: r.y, w: r.w, h: r.h, method: r.method || "fill" }; });
  var selected = regions.length ? 0 : -1;
  var past = [], future = [];
  var zoom = 1;

  function round(v) { return Math.round(v * 10000) / 10000; }
  function clamp(r) {
    r.w = Math.min(Math.max(r.w, 0.005), 1); r.h = Math.min(Math.max(r.h, 0.005), 1);
    r.x = Math.min(Math.max(r.x, 0), 1 - r.w); r.y = Math.min(Math.max(r.y, 0), 1 - r.h);
    r.x = round(r.x); r.y = round(r.y); r.w = round(r.w); r.h = round(r.h);
    return r;
  }
  // Undo and redo hold the regions and every field: a state is their JSON.
  var fields = [];
  function snapshot() {
    return JSON.stringify({ r: regions, f: fields.map(function (x) { return x.value; }) });
  }
  function restore(state) {
    var s = JSON.parse(state);
    regions = s.r;
    fields.forEach(function (x, i) { x.value = s.f[i]; });
    selected = Math.min(selected, regions.length - 1);
  }
  function remember() { past.push(snapshot()); future = []; }
  function say(text) { announce.textContent = ""; setTimeout(function () { announce.textContent = text; }, 30); }
  function describe(i) {
    var r = regions[i];
    return T.region + " " + (i + 1) + "/" + regions.length + ": x " + Math.round(r.x * 100) + "%, y " + Math.round(r.y * 100) +
      "%, " + Math.round(r.w * 100) + "% × " + Math.round(r.h * 100) + "%, " + T[r.method];
  }

  // The overlay: one box per region, handles on the selected one.
  var overlay = document.createElement("div");
  overlay.className = "wb-overlay";
  stage.appendChild(overlay);
  stage.tabIndex = 0;
  stage.setAttribute("role", "application");
  stage.setAttribute("aria-label", T.regions + ". " + T.help);
  stage.setAttribute("aria-describedby", "wb-announce");

  var list = document.createElement("ol");
  list.className = "wb-list";
  list.setAttribute("aria-label", T.regions);

  function button(label, action, key) {
    var b = document.createElement("button");
    b.type = "button"; b.textContent = label; b.addEventListener("click", action);
    if (key) b.setAttribute("aria-keyshortcuts", key);
    tools.appendChild(b);
    return b;
  }
  button(T.add, function () { create(); stage.focus(); }, "N");
  var delButton = button(T.del, function () { remove(); stage.focus(); }, "Delete");
  var methodLabel = document.createElement("label");
  methodLabel.textContent = T.method + " ";
  var method = document.createElement("select");
  ["fill", "pixelate"].forEach(function (m) { var o = document.createElement("option"); o.value = m; o.textContent = T[m]; method.appendChild(o); });
  method.addEventListener("change", function () { if (selected < 0) return; remember(); regions[selected].method = method.value; changed(T[method.value]); });
  methodLabel.appendChild(method);
  tools.appendChild(methodLabel);
  button(T.undo, undo, "Control+Z");
  button(T.redo, redo, "Control+Shift+Z");
  button(T.zoomIn, function () { setZoom(zoom * 1.5); });
  button(T.zoomOut, function () { setZoom(zoom / 1.5); });
  // The preview at the width shown, or at one of the widths the site publishes.
  var widthLabel = document.createElement("label");
  widthLabel.textContent = T.width + " ";
  var widthChoice = document.createElement("select");
  widthChoice.id = "wb-width";
  [""].concat(photo.widths).forEach(function (w) {
    var o = document.createElement("option");
    o.value = w; o.textContent = w ? w + " px (" + T.publishedWidth + ")" : T.asShown;
    widthChoice.appendChild(o);
  });
  widthChoice.addEventListener("change", function () {
    preview.classList.toggle("wb-natural", !!widthChoice.value);
    // At its own pixels the preview may scroll: a keyboard can reach it.
    if (widthChoice.value) preview.parentNode.tabIndex = 0; else preview.parentNode.removeAttribute("tabindex");
    refresh();
  });
  widthLabel.appendChild(widthChoice);
  tools.appendChild(widthLabel);
  tools.appendChild(list);

  function setZoom(z) { zoom = Math.min(Math.max(z, 1), 8); stage.style.width = (zoom * 100) + "%"; }

  function render() {
    overlay.textContent = "";
    list.textContent = "";
    regions.forEach(function (r, i) {
      var box = document.createElement("div");
      box.className = "wb-region" + (i === selected ? " wb-selected" : "") + (r.method === "pixelate" ? " wb-pixelate" : "");
      box.style.left = (r.x * 100) + "%"; box.style.top = (r.y * 100) + "%";
      box.style.width = (r.w * 100) + "%"; box.style.height = (r.h * 100) + "%";
      box.dataset.index = i;
      if (i === selected) {
        ["nw", "ne", "sw", "se"].forEach(function (corner) {
          var h = document.createElement("span");
          h.className = "wb-handle wb-" + corner; h.dataset.corner = corner;
          box.appendChild(h);
        });
      }
      overlay.appendChild(box);
      var item = document.createElement("li");
      item.textContent = describe(i);
      if (i === selected) item.setAttribute("aria-current", "true");
      list.appendChild(item);
    });
    delButton.disabled = selected < 0;
    method.disabled = selected < 0;
    if (selected >= 0) method.value = regions[selected].method;
  }

  var timer = null, asked = 0;
  function refresh() {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var n = ++asked;
      var width = +widthChoice.value || Math.round(Math.min(preview.parentNode.clientWidth || 800, 2000) * (window.devicePixelRatio || 1));
      fetch("/__casebook/preview", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Casebook-Token": token },
        body: JSON.stringify({ dir: photo.dir, file: photo.file, regions: regions, width: width })
      }).then(function (r) { return r.ok ? r.blob() : Promise.reject(r.status); })
        .then(function (blob) {
          if (n !== asked) return;
          var old = preview.src;
          preview.src = URL.createObjectURL(blob);
          preview.dataset.regions = JSON.stringify(regions);
          preview.dataset.width = width;
          if (old) URL.revokeObjectURL(old);
        }).catch(function () {});
    }, 120);
  }
  function changed(what) { render(); refresh(); if (what) say(what + (selected >= 0 ? ". " + describe(selected) : "")); }

  function create(r) {
    remember();
    regions.push(clamp(r || { x: 0.4, y: 0.4, w: 0.2, h: 0.2, method: "fill" }));
    selected = regions.length - 1;
    changed(T.created);
  }
  function remove() {
    if (selected < 0) return;
    remember();
    regions.splice(selected, 1);
    selected = Math.min(selected, regions.length - 1);
    changed(T.deleted);
  }
  function undo() { if (!past.length) return; future.push(snapshot()); restore(past.pop()); changed(T.undo); }
  function redo() { if (!future.length) return; past.push(snapshot()); restore(future.pop()); changed(T.redo); }

  stage.addEventListener("keydown", function (e) {
    var step = e.shiftKey ? 0.05 : 0.01;
    var k = e.key;
    if ((e.ctrlKey || e.metaKey) && (k === "z" || k === "Z")) { e.preventDefault(); if (e.shiftKey) redo(); else undo(); return; }
    if ((e.ctrlKey || e.metaKey) && (k === "y" || k === "Y")) { e.preventDefault(); redo(); return; }
    if (k === "n" || k === "N") { e.preventDefault(); create(); return; }
    if (k === "]" || k === "[") {
      e.preventDefault();
      if (!regions.length) { say(T.none); return; }
      selected = (selected + (k === "]" ? 1 : regions.length - 1)) % regions.length;
      changed(T.selected); return;
    }
    if (selected < 0) return;
    if (k === "Delete" || k === "Backspace") { e.preventDefault(); remove(); return; }
    if (k === "m" || k === "M") { e.preventDefault(); remember(); var r0 = regions[selected]; r0.method = r0.method === "fill" ? "pixelate" : "fill"; changed(T[r0.method]); return; }
    var dx = 0, dy = 0;
    if (k === "ArrowLeft") dx = ar ? step : -step;
    else if (k === "ArrowRight") dx = ar ? -step : step;
    else if (k === "ArrowUp") dy = -step;
    else if (k === "ArrowDown") dy = step;
    else return;
    e.preventDefault();
    remember();
    var r = regions[selected];
    if (e.altKey) { r.w += dx; r.h += dy; clamp(r); changed(T.resized); }
    else { r.x += dx; r.y += dy; clamp(r); changed(T.moved); }
  });

  // Pointer: drag on the picture draws, drag a region moves it, drag a handle resizes.
  var drag = null;
  function at(e) {
    var box = stage.getBoundingClientRect();
    return { x: Math.min(Math.max((e.clientX - box.left) / box.width, 0), 1), y: Math.min(Math.max((e.clientY - box.top) / box.height, 0), 1) };
  }
  stage.addEventListener("pointerdown", function (e) {
    if (e.button !== 0) return;
    e.preventDefault();
    stage.focus();
    var p = at(e), target = e.target;
    remember();
    if (target.dataset.corner) {
      drag = { kind: "resize", corner: target.dataset.corner, start: p, from: Object.assign({}, regions[selected]) };
    } else if (target.dataset.index !== undefined) {
      selected = +target.dataset.index;
      drag = { kind: "move", start: p, from: Object.assign({}, regions[selected]) };
      render();
    } else {
      drag = { kind: "draw", start: p };
    }
    stage.setPointerCapture(e.pointerId);
  });
  stage.addEventListener("pointermove", function (e) {
    if (!drag) return;
    var p = at(e), s = drag.start, r;
    if (drag.kind === "draw") {
      if (Math.abs(p.x - s.x) < 0.005 && Math.abs(p.y - s.y) < 0.005) return;
      if (!drag.made) { regions.push({ x: s.x, y: s.y, w: 0.005, h: 0.005, method: "fill" }); selected = regions.length - 1; drag.made = true; }
      r = regions[selected];
      r.x = Math.min(s.x, p.x); r.y = Math.min(s.y, p.y); r.w = Math.abs(p.x - s.x); r.h = Math.abs(p.y - s.y);
    } else if (drag.kind === "move") {
      r = regions[selected]; r.x = drag.from.x + p.x - s.x; r.y = drag.from.y + p.y - s.y; clamp(r);
    } else {
      var f = drag.from, x0 = f.x, y0 = f.y, x1 = f.x + f.w, y1 = f.y + f.h, c = drag.corner;
      if (c.indexOf("w") >= 0) x0 = p.x; else x1 = p.x;
      if (c.indexOf("n") >= 0) y0 = p.y; else y1 = p.y;
      r = regions[selected];
      r.x = Math.min(x0, x1); r.y = Math.min(y0, y1); r.w = Math.abs(x1 - x0); r.h = Math.abs(y1 - y0);
    }
    render();
  });
  function end() {
    if (!drag) return;
    var kind = drag.kind, made = drag.made;
    drag = null;
    if (kind === "draw" && !made) { past.pop(); return; }
    if (selected >= 0) clamp(regions[selected]);
    changed(kind === "draw" ? T.created : kind === "move" ? T.moved : T.resized);
  }
  stage.addEventListener("pointerup", end);
  stage.addEventListener("pointercancel", end);

  document.addEventListener("keydown", function (e) {
    if (e.target !== document.body) return;
    var link = e.key === "PageDown" ? document.getElementById("wb-next") : e.key === "PageUp" ? document.getElementById("wb-prev") : null;
    if (link) { e.preventDefault(); link.click(); }
  });

  // The entry's fields, in every language the case has; then save and review.
  var form = document.createElement("fieldset");
  form.className = "wb-fields";
  var legend = document.createElement("legend");
  legend.textContent = T.details;
  form.appendChild(legend);
  var fieldId = 0;
  function field(label, value, multiline, lang) {
    var id = "wb-field-" + (++fieldId);
    var l = document.createElement("label");
    l.htmlFor = id; l.textContent = label + (lang ? " (" + lang + ")" : "");
    var input = document.createElement(multiline ? "textarea" : "input");
    input.id = id; input.value = value || "";
    if (lang) { input.lang = lang; input.dir = lang === "ar" ? "rtl" : "auto"; }
    form.appendChild(l); form.appendChild(input);
    return input;
  }
  var sensLabel = document.createElement("label");
  sensLabel.htmlFor = "wb-sensitivity"; sensLabel.textContent = T.sensitivity;
  var sens = document.createElement("select");
  sens.id = "wb-sensitivity";
  ["none", "sensitive", "graphic"].forEach(function (v) { var o = document.createElement("option"); o.value = v; o.textContent = v; sens.appendChild(o); });
  sens.value = photo.sensitivity;
  form.appendChild(sensLabel); form.appendChild(sens);
  var alt = field(T.alt, photo.alt, true);
  var caption = field(T.caption, photo.caption, true);
  var other = photo.translations.map(function (t) {
    return { t: t, alt: field(T.alt, t.alt, true, t.lang), caption: field(T.caption, t.caption, true, t.lang) };
  });
  fields = [sens, alt, caption].concat(other.map(function (o) { return o.alt; }), other.map(function (o) { return o.caption; }));
  // A field's edit is one step of undo, taken when it is committed (change).
  var before = null;
  fields.forEach(function (x) {
    x.addEventListener("focus", function () { before = snapshot(); });
    x.addEventListener("change", function () {
      if (before !== null && before !== snapshot()) { past.push(before); future = []; }
      before = snapshot();
      if (x === sens) refresh();
    });
  });
  form.addEventListener("keydown", function (e) {
    var k = e.key;
    if (!(e.ctrlKey || e.metaKey) || ["z", "Z", "y", "Y"].indexOf(k) < 0) return;
    // Inside a text field the browser undoes typing; committed edits are undone from here
    // once the field holds what it was committed with.
    var x = e.target;
    if (fields.indexOf(x) >= 0 && before !== null && JSON.parse(before).f[fields.indexOf(x)] !== x.value) return;
    e.preventDefault();
    if (k === "y" || k === "Y" || e.shiftKey) redo(); else undo();
    before = snapshot();
  });
  var who = field(T.reviewer, sessionStorage.getItem("casebook-reviewer"), false);
  who.autocomplete = "name";
  var state = document.createElement("p");
  state.id = "wb-state";
  state.textContent = photo.reviewed ? T.isReviewed : T.notReviewed;
  form.appendChild(state);
  var status = document.createElement("p");
  status.id = "wb-status"; status.setAttribute("role", "status");
  var saveButton = document.createElement("button");
  saveButton.type = "button"; saveButton.id = "wb-save"; saveButton.textContent = T.save;
  var reviewButton = document.createElement("button");
  reviewButton.type = "button"; reviewButton.id = "wb-review"; reviewButton.textContent = T.review;
  // A save refused over a change made on disk since: what changed there, line by line.
  var conflict = document.createElement("pre");
  conflict.id = "wb-conflict"; conflict.hidden = true; conflict.tabIndex = 0;
  conflict.setAttribute("aria-label", T.conflict);
  form.appendChild(saveButton); form.appendChild(reviewButton); form.appendChild(status); form.appendChild(conflict);
  tools.parentNode.insertBefore(form, announce);
  var saved = { regions: JSON.stringify(photo.regions.map(function (r) { return { x: r.x, y: r.y, w: r.w, h: r.h, method: r.method || "fill" }; })) };

  function save(review) {
    var body = { dir: photo.dir, file: photo.file, sha256: photo.sha256, translations: {} };
    if (JSON.stringify(regions) !== saved.regions) body.regions = regions;
    if (sens.value !== photo.sensitivity) body.sensitivity = sens.value;
    if (alt.value !== (photo.alt || "")) body.alt = alt.value;
    if (caption.value !== (photo.caption || "")) body.caption = caption.value;
    other.forEach(function (o) {
      var edit = { sha256: o.t.sha256 }, any = false;
      if (o.alt.value !== (o.t.alt || "")) { edit.alt = o.alt.value; any = true; }
      if (o.caption.value !== (o.t.caption || "")) { edit.caption = o.caption.value; any = true; }
      if (any) body.translations[o.t.lang] = edit;
    });
    if (review) {
      if (!who.value.trim()) { status.textContent = T.needName; who.focus(); return; }
      sessionStorage.setItem("casebook-reviewer", who.value.trim());
      body.review_by = who.value.trim();
    }
    fetch("/__casebook/save", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Casebook-Token": token },
      body: JSON.stringify(body)
    }).then(function (r) { return r.json().then(function (j) { return { ok: r.ok, j: j }; }); })
      .then(function (a) {
        conflict.hidden = true;
        if (!a.ok) {
          status.textContent = a.j.error;
          if (a.j.current !== undefined) {
            var opened = !a.j.lang ? photo.text : (other.filter(function (o) { return o.t.lang === a.j.lang; })[0] || { t: { text: "" } }).t.text;
            conflict.textContent = T.conflict + "\n" + lineDiff(opened, a.j.current);
            conflict.hidden = false;
          }
          return;
        }
        var files = a.j.saved, texts = a.j.texts || {};
        if (texts[photo.page] !== undefined) photo.text = texts[photo.page];
        if (files[photo.page]) photo.sha256 = files[photo.page];
        other.forEach(function (o) {
          if (files[o.t.lang]) { o.t.sha256 = files[o.t.lang]; o.t.text = texts[o.t.lang]; o.t.alt = o.alt.value; o.t.caption = o.caption.value; }
        });
        var changedPixels = body.regions !== undefined || body.sensitivity !== undefined;
        saved.regions = JSON.stringify(regions);
        photo.sensitivity = sens.value; photo.alt = alt.value; photo.caption = caption.value;
        if (review) photo.reviewed = true; else if (changedPixels) photo.reviewed = false;
        state.textContent = photo.reviewed ? T.isReviewed : T.notReviewed;
        status.textContent = review ? T.reviewedNow : T.saved;
      }).catch(function (e) { status.textContent = String(e); });
  }
  // The lines of `b` not in `a` (+) and of `a` not in `b` (-), in order, with two lines of
  // context: a longest common subsequence of lines (case files are short).
  function lineDiff(a, b) {
    var x = a.split("\n"), y = b.split("\n"), n = x.length, m = y.length, i, j;
    var L = [];
    for (i = 0; i <= n; i++) { L.push(new Array(m + 1).fill(0)); }
    for (i = n - 1; i >= 0; i--) for (j = m - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    var ops = [];
    for (i = 0, j = 0; i < n || j < m;) {
      if (i < n && j < m && x[i] === y[j]) { ops.push(["  ", x[i]]); i++; j++; }
      else if (j < m && (i >= n || L[i][j + 1] >= L[i + 1][j])) { ops.push(["+ ", y[j]]); j++; }
      else { ops.push(["- ", x[i]]); i++; }
    }
    var keep = ops.map(function (op, k) {
      for (var d = -2; d <= 2; d++) { var o = ops[k + d]; if (o && o[0] !== "  ") return true; }
      return false;
    });
    return ops.filter(function (op, k) { return keep[k]; }).map(function (op) { return op[0] + op[1]; }).join("\n");
  }
  saveButton.addEventListener("click", function () { save(false); });
  reviewButton.addEventListener("click", function () { save(true); });

  window.casebookWorkbench = { regions: function () { return JSON.parse(JSON.stringify(regions)); }, token: token };
  render();
  refresh();
})();
