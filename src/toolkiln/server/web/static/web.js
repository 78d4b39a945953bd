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
