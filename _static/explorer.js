/* Kernel-free explorers of the course's interactive figures (see lib/plots/interactive.py).
   Each .lib-explorer holds the frames rendered at build time (one per combination of
   control values) and plain controls; moving a control shows the frame drawn for the
   chosen values in the figure just above. Frames are fetched when a reader first
   touches the explorer, so a page loads only its default image.
   The second part of this file puts scroll boxes in the Tab order (one script, one
   request less per page). */
(function () {
  "use strict";
  function figureImage(explorer) {
    var cell = explorer.closest(".cell");
    for (var prev = cell && cell.previousElementSibling; prev; prev = prev.previousElementSibling) {
      if (prev.classList.contains("cell")) return prev.querySelector("figure img") || prev.querySelector("img");
    }
    return null;
  }
  function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
  function init(explorer) {
    var img = figureImage(explorer);
    if (!img) return;
    var frames = Array.prototype.map.call(explorer.querySelectorAll(".lib-explorer-frames > span"), function (s) {
      return { values: JSON.parse(s.getAttribute("data-values")), src: s.getAttribute("data-src"),
               alt: s.getAttribute("data-alt") };
    });
    var fields = Array.prototype.slice.call(explorer.querySelectorAll("[data-control]"));
    var loaded = false;
    function chosen() {
      var values = {};
      fields.forEach(function (f) { values[f.getAttribute("data-control")] = JSON.parse(f.getAttribute("data-values"))[+f.value]; });
      return values;
    }
    function frameFor(values) {
      return frames.filter(function (fr) {
        return Object.keys(values).every(function (k) { return same(fr.values[k], values[k]); });
      })[0];
    }
    function preload() {
      if (loaded) return;
      loaded = true;
      frames.forEach(function (fr) { new Image().src = fr.src; });
    }
    // What the page shows next to each slider is what a screen reader announces for it
    // (aria-valuetext), not the frame index that is the range input's value.
    function label() {
      fields.forEach(function (f) {
        var labels = f.getAttribute("data-labels");
        if (!labels) return;  // a <select> announces its chosen option
        var text = JSON.parse(labels)[+f.value];
        var out = f.parentNode.querySelector("output");
        if (out) out.textContent = text;
        f.setAttribute("aria-valuetext", text);
      });
    }
    function show() {
      label();
      var frame = frameFor(chosen());
      if (!frame) return;
      img.removeAttribute("srcset");
      img.src = frame.src;
      if (frame.alt) img.alt = frame.alt;  // the description of the frame shown, with its src
      img.setAttribute("data-values", JSON.stringify(frame.values));
    }
    fields.forEach(function (f) {
      f.addEventListener("input", function () { preload(); show(); });
      f.addEventListener("change", show);
      ["pointerdown", "focus", "mouseenter", "touchstart"].forEach(function (e) { f.addEventListener(e, preload, { passive: true }); });
    });
    label();
    var first = frameFor(chosen());
    if (first) img.setAttribute("data-values", JSON.stringify(first.values));
    img.classList.add("lib-explorer-image");
    explorer.querySelector(".lib-explorer-controls").hidden = false;
    explorer.classList.add("lib-explorer-ready");
  }
  function start() { Array.prototype.forEach.call(document.querySelectorAll(".lib-explorer"), init); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

/* Scroll boxes a keyboard can reach (WCAG 2.1.1). A figure, a code cell's output or a
   formula (display or inline) scrolls sideways inside its own box when it is wider than
   the column (site.css), which depends on the screen and, for formulas, on MathJax. While a box
   overflows it is put in the Tab order with a name, so the arrow keys scroll it; when it
   fits again it leaves the Tab order. Tables of cell outputs get this at build time
   (_ext/accessible.py); code blocks and .output boxes get it from the theme. */
(function () {
  "use strict";
  var BOXES = "main figure, main .cell_output, main div.math > mjx-container, main mjx-container[display='true'], main span.math";
  function name(box) {
    if (box.tagName === "FIGURE") return box.querySelector("figcaption") ? null : "Figure";  // else named by its caption
    if (box.tagName === "MJX-CONTAINER") {
      var number = box.parentNode.querySelector(".eqno");
      return number ? "Equation " + number.textContent.replace(/[^\w.()]/g, "") : "Equation";
    }
    if (box.tagName === "SPAN") return "Formula";
    return "Cell output";
  }
  function update() {
    Array.prototype.forEach.call(document.querySelectorAll(BOXES), function (box) {
      var overflows = box.scrollWidth > box.clientWidth + 1;
      var ours = box.hasAttribute("data-lib-scroll");
      if (overflows && !ours && !box.hasAttribute("tabindex")) {
        box.setAttribute("data-lib-scroll", "");
        box.setAttribute("tabindex", "0");
        var label = name(box);
        if (label && box.tagName !== "FIGURE") box.setAttribute("role", box.tagName === "SPAN" ? "group" : "region");
        if (label) box.setAttribute("aria-label", label);
      } else if (!overflows && ours) {
        ["data-lib-scroll", "tabindex", "role", "aria-label"].forEach(function (a) { box.removeAttribute(a); });
      }
    });
  }
  var timer = null;
  function later() { clearTimeout(timer); timer = setTimeout(update, 200); }
  function typeset() {  // equations have their width once MathJax has typeset them
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(update);
  }
  function start() {
    update();
    typeset();
    window.addEventListener("resize", later);
    window.addEventListener("load", function () { update(); typeset(); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
