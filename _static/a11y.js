/* Scroll boxes a keyboard can reach (WCAG 2.1.1). A figure, a code cell's output or a
   display equation scrolls sideways inside its own box when it is wider than the column
   (site.css), which depends on the screen and, for equations, on MathJax. While a box
   overflows it is put in the Tab order with a name, so the arrow keys scroll it; when it
   fits again it leaves the Tab order. Tables of cell outputs get this at build time
   (_ext/accessible.py); code blocks and .output boxes get it from the theme. */
(function () {
  "use strict";
  var BOXES = "main figure, main .cell_output, main div.math > mjx-container, main mjx-container[display='true']";
  function name(box) {
    if (box.tagName === "FIGURE") return box.querySelector("figcaption") ? null : "Figure";  // else named by its caption
    if (box.tagName === "MJX-CONTAINER") {
      var number = box.parentNode.querySelector(".eqno");
      return number ? "Equation " + number.textContent.replace(/[^\w.()]/g, "") : "Equation";
    }
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
        if (label && box.tagName !== "FIGURE") box.setAttribute("role", "region");
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
