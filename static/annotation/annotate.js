/* Keyboard for the annotation item box (one item per screen, swapped by htmx).
   Survey: Y / N answer the highlighted question and move to the next one (it starts at the first
   unanswered question, or at the first one when all are answered, e.g. after U, so answers can be
   corrected from the keyboard). MCQA: 1-5 toggle options, 0 "no answers are correct", X "the
   context doesn't make sense". RICA: 1 / 2 choose a statement. Generations: 1 Plausible, 2 1-hop,
   3 False.
   Everywhere: Enter submits, S skips, U undoes the last answer (not inside the qualification: its
   link is hidden there); Enter on a focused link or button
   does what that link or button does. Time on the item is measured from when the item appears and
   sent with the answer. */
(function () {
  "use strict";
  var shownAt = performance.now();
  var cursor = -1; // the survey question Y / N answer next; -1: not chosen yet on this item

  function form() { return document.querySelector("#item form.item-form"); }
  function click(sel) { var b = document.querySelector(sel); if (b && !b.disabled) b.click(); return !!b; }

  function markCurrent(sets) {
    for (var i = 0; i < sets.length; i++) sets[i].classList.toggle("current", i === cursor);
  }

  function startCursor(sets) {
    for (var i = 0; i < sets.length; i++) if (!sets[i].querySelector("input:checked")) return i;
    return 0;
  }

  function answerNext(f, yes) {
    var sets = f.querySelectorAll("fieldset.yn");
    if (!sets.length) return;
    if (cursor < 0 || cursor >= sets.length) cursor = startCursor(sets);
    sets[cursor].querySelector('input[value="' + (yes ? "yes" : "no") + '"]').checked = true;
    cursor += 1;
    if (cursor >= sets.length) cursor = startCursor(sets);
    markCurrent(sets);
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
    if (key === "Enter" && t && t.closest && t.closest("a[href], button, summary, select")) return; // its own action
    var f = form();
    if (key === "u") { if (click('form.undo:not([hidden]) [data-action="undo"]')) ev.preventDefault(); return; }
    if (!f) return;
    var kind = f.dataset.annotate;
    if (key === "Enter") { ev.preventDefault(); click('#item [data-action="submit"]'); return; }
    if (key === "s") { ev.preventDefault(); click('#item [data-action="skip"]'); return; }
    if (kind === "survey" && (key === "y" || key === "n")) { ev.preventDefault(); answerNext(f, key === "y"); return; }
    if (kind !== "survey" && /^[0-9x]$/.test(key)) { ev.preventDefault(); toggle(f, key); }
    if (kind === "review" && key === "m") { ev.preventDefault(); toggle(f, key); }
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
  // A refused answer (422: nothing ticked, a question left open) comes back as the item box with
  // the server's reason in it, and a campaign closed meanwhile as a box saying so (410): swap them
  // in. Other error statuses keep the retry message above.
  document.addEventListener("htmx:beforeSwap", function (ev) {
    var status = ev.detail.xhr ? ev.detail.xhr.status : 0;
    if (status === 422 || status === 410) { ev.detail.shouldSwap = true; ev.detail.isError = false; } // 410: closed
  });
  // Called on htmx:afterSwap and again on htmx:load (after the settle delay) for the same box: the
  // second call must not move the cursor back (keys pressed in between would be answered twice).
  var lastShown = null;
  function shown() {
    var f = form();
    if (f && f === lastShown) return;
    lastShown = f;
    shownAt = performance.now();
    cursor = -1;
    if (!f) return;
    var sets = f.querySelectorAll("fieldset.yn");
    if (sets.length) { cursor = startCursor(sets); markCurrent(sets); }
    // Tab starts inside the item, not in the header links.
    var a = document.activeElement;
    if (!a || a === document.body || !document.contains(a)) {
      var first = f.querySelector("input:not([type=hidden]), button");
      if (first) first.focus({ preventScroll: true });
    }
  }
  if (window.htmx) htmx.onLoad(function (el) { if (el.querySelector && el.querySelector("form.item-form")) shown(); });
  document.addEventListener("htmx:afterSwap", shown);
  // On a phone the open instructions push the item below the fold: start them folded there (the
  // summary stays one tap away).
  document.addEventListener("DOMContentLoaded", function () {
    if (!window.matchMedia || !window.matchMedia("(max-width: 600px)").matches) return;
    var details = document.querySelector("details.instructions[open]");
    if (details) details.open = false;
  });
  // No Undo inside the qualification (a qualification item carries its tag), nor once it failed,
  // nor before a first answer (the page says whether there was one; a stored submit makes one).
  // (Read before the swap, while the answered item is still on screen: a qualification answer
  // cannot be undone, so it does not count.)
  var answered = false;
  document.addEventListener("htmx:beforeSwap", function (ev) {
    var xhr = ev.detail.xhr, path = (ev.detail.pathInfo && ev.detail.pathInfo.requestPath) || "";
    if (xhr && xhr.status === 200 && /\/submit\/?$/.test(path.split("?")[0]) &&
        !document.querySelector("#item .item-form p.tag")) answered = true;
  });
  function undoOffered() {
    var undo = document.querySelector("form.undo");
    if (!undo) return;
    var any = answered || undo.getAttribute("data-answered") === "1";
    undo.hidden = !any || !!document.querySelector('#item .item-form p.tag, #item .item-box[data-state="failed"]');
  }
  document.addEventListener("htmx:afterSwap", undoOffered);
})();
