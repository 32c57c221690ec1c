// casebook serve: reloads the page when a rebuild changed it. Served and injected by the
// preview server only; never part of a built site.
(function () {
  'use strict';
  if (!window.EventSource) return;
  var here = location.pathname.replace(/index\.html$/, '');
  var showingErrors = document.getElementById('casebook-errors') !== null;
  var source = new EventSource('/__casebook/events');
  source.addEventListener('ready', function () {
    window.casebookLive = true;
  });
  source.addEventListener('reload', function (event) {
    var change = JSON.parse(event.data);
    if (showingErrors || change.all || change.assets || change.pages.indexOf(here) >= 0) {
      location.reload();
    }
  });
  // A rebuild failed: reloading shows the diagnostics instead of the page.
  source.addEventListener('failed', function () {
    location.reload();
  });
})();
