// Small helpers of the project's forms (issue 29 item 15); the pages work without them.
// - <button data-copy="ID" hidden>: shown once this file runs; copies the text of the element #ID.
// - <select data-shows-groups> and <fieldset data-for="a b">: only the fieldsets for the chosen value
//   are shown (the others stay in the form with their values, as without JavaScript); options of
//   another select marked data-for-prefix="value:prefix ..." are limited to those starting with the
//   chosen value's prefix.
"use strict";

async function copyText(source) {
  const text = source.textContent.trim();
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (e) {
      // fall through to the selection
    }
  }
  // No Clipboard API (plain http on a LAN address): select the text and copy the selection.
  const range = document.createRange();
  range.selectNodeContents(source);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  try {
    return document.execCommand("copy");
  } catch (e) {
    return false;
  }
}

function initCopy() {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    if (!source) continue;
    button.hidden = false;
    const label = button.textContent;
    button.addEventListener("click", async () => {
      const copied = await copyText(source);
      button.textContent = copied ? "Copied" : "Selected: press Ctrl+C";
      setTimeout(() => { button.textContent = label; }, 2500);
    });
  }
}

function initGroups() {
  for (const select of document.querySelectorAll("select[data-shows-groups]")) {
    const form = select.form;
    const groups = form.querySelectorAll("fieldset[data-for]");
    const limited = form.querySelectorAll("select[data-for-prefix]");
    const show = () => {
      for (const group of groups) group.hidden = !group.dataset.for.split(" ").includes(select.value);
      for (const other of limited) {
        const rules = Object.fromEntries(other.dataset.forPrefix.split(" ").map((r) => r.split("=")));
        const prefix = rules[select.value] ?? rules["*"] ?? "";
        let first = null;
        for (const option of other.options) {
          option.hidden = !option.value.startsWith(prefix);
          if (!option.hidden && first === null) first = option;
        }
        if (first && other.selectedOptions[0]?.hidden) first.selected = true;
      }
    };
    select.addEventListener("change", show);
    show();
  }
}

document.addEventListener("DOMContentLoaded", () => {
  initCopy();
  initGroups();
});
