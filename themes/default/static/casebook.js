// Progressive enhancement for graphic photographs: pages work without this script.
// A visitor may choose to show graphic photographs for the rest of the visit; the choice
// lives in sessionStorage only, so it ends with the tab and never leaves the browser.
(function () {
  "use strict";
  var KEY = "casebook-show-graphic";
  var remembered = false;
  try { remembered = window.sessionStorage.getItem(KEY) === "1"; } catch (e) { /* storage blocked */ }
  var reveals = document.querySelectorAll("details.reveal");
  var toggle = document.querySelector(".graphic-toggle");
  if (!reveals.length || !toggle) { return; }
  function apply(show) {
    for (var i = 0; i < reveals.length; i++) { reveals[i].open = show; }
    button.textContent = show ? toggle.getAttribute("data-hide") : toggle.getAttribute("data-show");
    button.setAttribute("aria-pressed", show ? "true" : "false");
  }
  var button = document.createElement("button");
  button.type = "button";
  button.className = "button";
  button.addEventListener("click", function () {
    var show = button.getAttribute("aria-pressed") !== "true";
    try { window.sessionStorage.setItem(KEY, show ? "1" : "0"); } catch (e) { /* storage blocked */ }
    apply(show);
  });
  toggle.appendChild(button);
  toggle.hidden = false;
  apply(remembered);
}());
