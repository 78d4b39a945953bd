// toolkiln's web page: the little htmx cannot say in attributes (no inline script: see the CSP).
// A check the server refused (a definition over the body limit: 413) leaves errors in place,
// so Save stays disabled until a check passes again.
document.addEventListener("htmx:responseError", function (event) {
  var target = event.detail.target;
  if (target && target.id === "diagnostics") {
    var save = document.getElementById("save");
    if (save) { save.disabled = true; save.setAttribute("aria-disabled", "true"); }
  }
});

// The editor: CodeMirror (static/codemirror, vendored) over the definition's textarea, which
// stays the form's field: every change is copied back and sent to the live check as before.
(function () {
  var textarea = document.getElementById("definition");
  if (!textarea || !window.CodeMirror) { return; }  // no editor on this page: the textarea works alone
  var keywords = {};
  textarea.getAttribute("data-keywords").split(" ").forEach(function (word) { keywords[word] = true; });

  // The text DSL's words from the server's grammars; JSON's keys, strings and numbers.
  CodeMirror.defineMode("toolkiln", function () {
    return {
      token: function (stream) {
        if (stream.eatSpace()) { return null; }
        if (stream.match("#")) { stream.skipToEnd(); return "comment"; }
        if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) { return stream.match(/^\s*:/, false) ? "property" : "string"; }
        if (stream.match(/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/)) { return "number"; }
        var word = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/);
        if (word) { return keywords[word[0]] ? "keyword" : "variable"; }
        stream.next();
        return "operator";
      }
    };
  });

  var editor = CodeMirror.fromTextArea(textarea, {
    mode: "toolkiln",
    lineNumbers: true,
    indentUnit: 2,
    screenReaderLabel: "Definition (text DSL or JSON)",
    lineWrapping: true,  // a long line wraps inside the editor, as code boxes do (a phone's width)
    viewportMargin: Infinity
  });
  editor.on("change", function () {
    editor.save();
    textarea.dispatchEvent(new Event("input", { bubbles: true }));  // the textarea's hx-trigger
  });

  var marks = [];
  function markDiagnostics() {
    marks.forEach(function (mark) { mark.clear(); });
    marks = [];
    document.querySelectorAll("pre.diagnostic[data-line]").forEach(function (shown) {
      var from = { line: +shown.dataset.line - 1, ch: +shown.dataset.column - 1 };
      var to = { line: +shown.dataset.endLine - 1, ch: +shown.dataset.endColumn - 1 };
      if (to.line < from.line || (to.line === from.line && to.ch <= from.ch)) { to = { line: from.line, ch: from.ch + 1 }; }
      var kind = shown.classList.contains("diagnostic-error") ? "error" : "warning";
      marks.push(editor.markText(from, to, { className: "cm-diagnostic-" + kind, attributes: { title: shown.textContent.split("\n")[0] } }));
    });
  }
  markDiagnostics();
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "diagnostics") { markDiagnostics(); }
  });
  document.addEventListener("click", function (event) {
    var jump = event.target.closest("button.jump");
    if (!jump) { return; }
    editor.focus();
    editor.setCursor({ line: +jump.dataset.line - 1, ch: +jump.dataset.column - 1 });
    editor.scrollIntoView(null, 80);
  });
}());
