// The relabel page's keys (nlibuild/web/templates/label.html): 1..n choose a label, u or
// Backspace take back the last one. Each vote is posted as JSON with the X-CSRF-Token
// header (window.nlibuild.post, workbench.js) and the seconds spent on the item, counted
// from when the page showed it to the key press or click. Without this script the forms
// post as they are (no time is recorded then).
"use strict";
(() => {
  const shownAt = performance.now();
  const choices = document.querySelector("form.choices");
  const undoForm = document.querySelector("form.undo");
  const status = document.querySelector(".label-status");
  let sending = false;

  function inTextField(element) {
    if (!(element instanceof HTMLElement)) return false;
    return element.isContentEditable || element.matches("input, textarea, select");
  }

  async function send(url, data) {
    if (sending) return;
    sending = true;
    try {
      const response = await window.nlibuild.post(url, data);
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) {
        status.textContent = answer.error || `That did not work (HTTP ${response.status}); reload the page.`;
        sending = false;
        return;
      }
      window.location.assign(answer.next);
    } catch (error) {
      status.textContent = "The server could not be reached; check the connection and try again.";
      sending = false;
    }
  }

  function vote(label) {
    const seconds = (performance.now() - shownAt) / 1000;
    send(choices.action, { item: Number(choices.dataset.item), label, seconds });
  }

  function undo() {
    if (undoForm) send(undoForm.action, { item: Number(undoForm.dataset.item) });
  }

  if (choices) {
    choices.addEventListener("submit", (event) => {
      event.preventDefault();
      if (event.submitter) vote(event.submitter.value);
    });
    const first = choices.querySelector("button");
    if (first && document.activeElement === document.body) first.focus();
  }
  if (undoForm) {
    undoForm.addEventListener("submit", (event) => {
      event.preventDefault();
      undo();
    });
  }

  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (inTextField(event.target)) return;
    const button = choices && choices.querySelector(`button[data-key="${CSS.escape(event.key)}"]`);
    if (button) {
      event.preventDefault();
      vote(button.value);
    } else if (event.key === "u" || event.key === "Backspace") {
      event.preventDefault();
      undo();
    }
  });
})();
