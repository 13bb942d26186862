// Typeset the pages' mathematics (pymdownx.arithmatex, generic mode) with the vendored KaTeX.
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll(".arithmatex").forEach(function (el) {
    renderMathInElement(el, {
      delimiters: [{left: "\\(", right: "\\)", display: false}, {left: "\\[", right: "\\]", display: true}],
      throwOnError: false
    });
  });
});
