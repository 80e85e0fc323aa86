// Course site (grader/site/): renders each page's math, pandoc's span.math, with the KaTeX copied from Debian's libjs-katex.
(function () {
  "use strict";
  var spans = document.querySelectorAll("span.math");
  for (var i = 0; i < spans.length; i++) {
    var el = spans[i];
    var tex = el.textContent;
    var options = {
      displayMode: el.classList.contains("display"),
      throwOnError: true,
      strict: "warn",
      output: "htmlAndMathml"
    };
    try {
      katex.render(tex, el, options);
    } catch (e) {
      // A formula KaTeX cannot read (a syntax error, or a command it does not know, which
      // it would otherwise just paint red): shown as KaTeX's best effort, marked
      // .katex-error with the reason as its tooltip. The course.site test counts these.
      options.throwOnError = false;
      katex.render(tex, el, options);
      el.classList.add("katex-error");
      el.title = String(e.message || e);
    }
  }
  document.documentElement.setAttribute("data-math", "rendered");
})();
