/* Keyboard for the annotation item box (one item per screen, swapped by htmx).
   Survey: Y / N answer the next unanswered question. MCQA: 1-5 toggle options, 0 "no answers
   are correct", X "the context doesn't make sense". RICA: 1 / 2 choose a statement.
   Everywhere: Enter submits, S skips, U undoes the last answer. Time on the item is measured
   from when the item appears and sent with the answer. */
(function () {
  "use strict";
  var shownAt = performance.now();

  function form() { return document.querySelector("#item form.item-form"); }
  function click(sel) { var b = document.querySelector(sel); if (b && !b.disabled) b.click(); return !!b; }

  function answerNext(f, yes) {
    var sets = f.querySelectorAll("fieldset.yn");
    for (var i = 0; i < sets.length; i++) {
      if (!sets[i].querySelector("input:checked")) {
        sets[i].querySelector('input[value="' + (yes ? "yes" : "no") + '"]').checked = true;
        return;
      }
    }
  }

  function toggle(f, key) {
    var box = f.querySelector('input[data-key="' + key + '"]');
    if (!box) return;
    if (box.type === "radio") { box.checked = true; return; }
    box.checked = !box.checked;
    if (box.checked && box.name === "none_correct") {
      f.querySelectorAll('input[name="plausible"]').forEach(function (b) { b.checked = false; });
    } else if (box.checked && box.name === "plausible") {
      var none = f.querySelector('input[name="none_correct"]');
      if (none) none.checked = false;
    }
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var t = ev.target;
    if (t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && /^(text|search|password|number|email)$/.test(t.type)))) return;
    var key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    var f = form();
    if (key === "u") { if (click('form.undo [data-action="undo"]')) ev.preventDefault(); return; }
    if (!f) return;
    var kind = f.dataset.annotate;
    if (key === "Enter") { ev.preventDefault(); click('#item [data-action="submit"]'); return; }
    if (key === "s") { ev.preventDefault(); click('#item [data-action="skip"]'); return; }
    if (kind === "survey" && (key === "y" || key === "n")) { ev.preventDefault(); answerNext(f, key === "y"); return; }
    if (kind !== "survey" && /^[0-9x]$/.test(key)) { ev.preventDefault(); toggle(f, key); }
  });

  document.addEventListener("submit", function (ev) {
    var f = ev.target;
    if (f.classList && f.classList.contains("item-form")) {
      var el = f.querySelector('input[name="elapsed_ms"]');
      if (el) el.value = Math.round(performance.now() - shownAt);
    }
  }, true);
  document.addEventListener("htmx:configRequest", function (ev) {
    var f = ev.detail.elt && ev.detail.elt.closest && ev.detail.elt.closest("form.item-form");
    if (f) ev.detail.parameters.elapsed_ms = String(Math.round(performance.now() - shownAt));
  });
  // A failed submit (server busy or restarting: 503, network down) leaves the answer on screen:
  // say so and let the person press Enter again (the retry carries the same idempotency key, so it
  // is stored once). htmx does not swap error responses, so without this nothing would happen.
  function showError(text) {
    var box = document.getElementById("item-error");
    if (!box) return;
    box.textContent = text;
    box.hidden = !text;
  }
  document.addEventListener("htmx:responseError", function (ev) {
    var xhr = ev.detail.xhr, status = xhr ? xhr.status : 0;
    showError(status === 503
      ? "The server is briefly unavailable; this answer may not have been stored. It is still here: press Enter to send it again (an answer is never stored twice)."
      : "The server answered " + status + " and did not store this answer. Press Enter to try again, or reload the page.");
  });
  document.addEventListener("htmx:sendError", function () {
    showError("No connection to the server: this answer was not stored. Press Enter to try again.");
  });
  document.addEventListener("htmx:afterSwap", function () { showError(""); });
  function shown() { shownAt = performance.now(); }
  if (window.htmx) htmx.onLoad(function (el) { if (el.querySelector && el.querySelector("form.item-form")) shown(); });
  document.addEventListener("htmx:afterSwap", shown);
})();
