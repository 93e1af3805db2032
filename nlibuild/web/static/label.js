// The relabel page's keys (nlibuild/web/templates/label.html): 1..n choose a label, u or
// Backspace take back the last one. Each vote is posted as JSON with the X-CSRF-Token
// header (window.nlibuild.post, workbench.js) and the seconds spent on the item, counted
// from when the item was shown to the key press or click. The page is not reloaded: the
// next item's page is fetched and its content swapped into <main>, the focus moves to the
// item (never to a label button, where a stray Enter would vote), and the status line says
// what was recorded or taken back, in the page's words (its data-recorded and data-undone
// attributes, which hold {label}). Without this script the forms post as they are, answered
// by a redirect to the page (no time is recorded then).
"use strict";
(() => {
  const main = document.querySelector("main");
  const status = document.querySelector(".label-status");
  let shownAt = performance.now();
  let sending = false;

  function inTextField(element) {
    if (!(element instanceof HTMLElement)) return false;
    return element.isContentEditable || element.matches("input, textarea, select");
  }

  // The status line: the page's sentence (`template` holds {label}) with the label's name,
  // marked in the page's language (the sentence itself may be in another).
  function say(template, name) {
    const [before, after = ""] = template.split("{label}");
    const label = document.createElement("span");
    label.lang = document.documentElement.lang;
    label.textContent = name;
    status.replaceChildren(before, label, after);
  }

  // The label's name as the page shows it on its button (the label itself if none does).
  function nameOf(label) {
    const button = main.querySelector(`form.choices button[value="${CSS.escape(label)}"]`);
    return button ? button.dataset.name : label;
  }

  // The content of `url`'s <main> in place of this one's (the status line stays, so that a
  // screen reader announces what it says), then the focus on the item shown, or on the
  // end-of-batch line. False when the page could not be read as the relabel page.
  async function swapIn(url) {
    const response = await fetch(url, { credentials: "same-origin" });
    if (!response.ok) return false;
    const fetched = new DOMParser().parseFromString(await response.text(), "text/html");
    const next = fetched.querySelector("main");
    if (!next || !next.querySelector(".label-status")) return false;
    for (const child of [...main.children]) if (child !== status) child.remove();
    for (const child of [...next.children]) {
      if (!child.matches(".label-status")) main.insertBefore(document.adoptNode(child), status);
    }
    shownAt = performance.now();
    (main.querySelector("section.pair, .done") || main).focus();
    return true;
  }

  async function send(url, data, confirm) {
    if (sending) return;
    sending = true;
    try {
      const response = await window.nlibuild.post(url, data);
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) {
        status.textContent = answer.error || status.dataset.unavailable.replace("{status}", String(response.status));
        return;
      }
      if (!(await swapIn(answer.next))) {
        window.location.assign(answer.next);
        return;
      }
      confirm(answer);
    } catch (error) {
      status.textContent = status.dataset.unreachable;
    } finally {
      sending = false;
    }
  }

  function vote(button) {
    const choices = button.form;
    const seconds = (performance.now() - shownAt) / 1000;
    const data = { item: Number(choices.dataset.item), label: button.value, seconds };
    send(choices.action, data, () => say(status.dataset.recorded, button.dataset.name));
  }

  function undo() {
    const undoForm = main.querySelector("form.undo");
    if (!undoForm) return;
    send(undoForm.action, { item: Number(undoForm.dataset.item) }, (answer) => {
      if (answer.undone) say(status.dataset.undone, nameOf(answer.label));
    });
  }

  // The forms are swapped with the content, so their submits are caught on the document.
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form.matches("form.choices")) {
      event.preventDefault();
      if (event.submitter) vote(event.submitter);
    } else if (form.matches("form.undo")) {
      event.preventDefault();
      undo();
    }
  });

  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (inTextField(event.target)) return;
    const key = CSS.escape(event.key);
    const button = main.querySelector(`form.choices button[data-key="${key}"]`);
    if (button) {
      event.preventDefault();
      vote(button);
    } else if (event.key === "u" || event.key === "Backspace") {
      event.preventDefault();
      undo();
    }
  });
})();
