// The writing page's live feedback (nlibuild/web/writing_pages.py). As the writer types, the
// fields go, 250 ms after the last keystroke, to the page's feedback route, which answers
// with the checks of `elicit import` already worded; this script only puts those texts into
// the page (textContent, never innerHTML: the texts hold what the writer typed), disables
// submitting while a blocking rule finds something, and reports the draft as saved. Its own
// words come from the form's data- attributes, in the page's language.
//
// With a model in the loop (issue 29: the form has data-model-url), the model's part of the
// feedback is a request of its own, sent beside the findings' and a little later, so the
// protocol's findings never wait for the model: its label, probabilities and (adversarial
// mode) whether it was fooled go under each field, as texts the server worded.
"use strict";
(() => {
  const form = document.getElementById("write-form");
  if (!form) return;
  const feedbackUrl = form.dataset.feedbackUrl;
  const submitButton = document.getElementById("submit-answer");
  const blockedReason = document.getElementById("blocked-reason");
  const draftStatus = document.getElementById("draft-status");
  const modelUrl = form.dataset.modelUrl;
  const modelStatus = document.getElementById("model-status");
  const DEBOUNCE_MS = 250;
  // The model is asked after a longer pause: each check of a changed hypothesis is a try
  // (nlibuild/workbench/model_loop.py), and a half-typed word is not one.
  const MODEL_DEBOUNCE_MS = 600;
  let timer = null;
  let modelTimer = null;
  let sent = 0; // the newest request's number: an older answer arriving late is dropped
  let modelSent = 0;

  function answer() {
    const fields = {};
    for (const area of form.querySelectorAll("textarea[data-slot]")) {
      fields[area.dataset.slot] = area.value;
    }
    const unusable = document.getElementById("f-unusable");
    return { fields, unusable: Boolean(unusable && unusable.checked) };
  }

  function element(tag, className, text) {
    const made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function showNotes(list, notes) {
    list.replaceChildren(...notes.map((note) => element("li", `note sev-${note.severity}`, note.text)));
  }

  function showField(box, field, maxOverlap) {
    const overlap = box.querySelector(".overlap");
    overlap.classList.toggle("over", field.over_limit);
    if (field.overlap === null) {
      overlap.replaceChildren();
    } else {
      const meter = element("meter");
      meter.min = 0;
      meter.max = 1;
      meter.low = maxOverlap * 0.8;
      meter.high = maxOverlap;
      meter.optimum = 0;
      meter.value = field.overlap;
      overlap.replaceChildren(meter, " ", element("span", "", field.overlap_text));
    }
    const shared = box.querySelector(".shared");
    if (field.shared_segments.length) {
      const copy = element("span");
      copy.lang = document.getElementById("premise-text").lang;
      copy.replaceChildren(...field.shared_segments.map((part) =>
        part.marked ? element("mark", "shared-unit", part.text) : document.createTextNode(part.text)));
      shared.replaceChildren(element("span", "", field.shared_text), " ", copy);
    } else {
      shared.replaceChildren();
    }
    const marked = box.querySelector(".marked");
    if (field.segments.some((part) => part.marked)) {
      marked.replaceChildren(...field.segments.map((part) =>
        part.marked ? element("mark", "", part.text) : document.createTextNode(part.text)));
    } else {
      marked.replaceChildren();
    }
    showNotes(box.querySelector(".notes"), field.notes);
  }

  function show(view) {
    for (const [slot, field] of Object.entries(view.fields)) {
      const box = document.getElementById(`fb-${slot}`);
      if (box) showField(box, field, view.max_overlap);
    }
    showNotes(document.querySelector("#answer-feedback .notes"), view.answer_notes);
    submitButton.disabled = view.blocked;
    blockedReason.textContent = view.blocked ? view.blocked_reason : "";
    if (view.saved_text) draftStatus.textContent = form.dataset.draft.replace("{saved}", view.saved_text);
  }

  async function check(save) {
    const number = ++sent;
    try {
      const response = await window.nlibuild.post(feedbackUrl, { ...answer(), save });
      if (number !== sent) return;
      if (!response.ok) {
        draftStatus.textContent = form.dataset.unavailable.replace("{status}", String(response.status));
        return;
      }
      show(await response.json());
    } catch (error) {
      if (number === sent) draftStatus.textContent = form.dataset.unreachable;
    }
  }

  function showModelField(box, field) {
    box.classList.toggle("fooled", Boolean(field) && field.fooled === true);
    box.classList.toggle("not-fooled", Boolean(field) && field.fooled === false);
    if (!field) {
      box.replaceChildren();
      return;
    }
    const parts = [element("p", "model-label", field.label_text),
                   element("p", "model-shares", field.shares_text)];
    if (field.verdict) parts.push(element("p", "model-verdict", field.verdict));
    if (field.tries_text) parts.push(element("p", "model-tries", field.tries_text));
    box.replaceChildren(...parts);
  }

  function showModel(view) {
    for (const area of form.querySelectorAll("textarea[data-slot]")) {
      const box = document.getElementById(`model-${area.dataset.slot}`);
      if (box) showModelField(box, view.model[area.dataset.slot]);
    }
    modelStatus.textContent = "";
  }

  async function checkModel() {
    const number = ++modelSent;
    const { fields, unusable } = answer();
    if (unusable) {
      showModel({ model: {} }); // an unusable premise's hypotheses are ignored
      return;
    }
    try {
      const response = await window.nlibuild.post(modelUrl, { fields });
      if (number !== modelSent) return;
      if (!response.ok) {
        modelStatus.textContent = form.dataset.modelUnavailable.replace("{status}", String(response.status));
        return;
      }
      showModel(await response.json());
    } catch (error) {
      if (number === modelSent) modelStatus.textContent = form.dataset.modelUnreachable;
    }
  }

  function later() {
    clearTimeout(timer);
    timer = setTimeout(() => check(true), DEBOUNCE_MS);
    if (modelUrl) {
      clearTimeout(modelTimer);
      modelTimer = setTimeout(checkModel, MODEL_DEBOUNCE_MS);
    }
  }

  form.addEventListener("input", later);
  form.addEventListener("change", (event) => {
    if (event.target.type === "checkbox") later();
  });
  form.addEventListener("submit", () => {
    clearTimeout(timer);
    clearTimeout(modelTimer);
  });
  form.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !submitButton.disabled) {
      event.preventDefault();
      form.requestSubmit(submitButton);
    }
  });
  const firstEmpty = [...form.querySelectorAll("textarea[data-slot]")].find((area) => !area.value);
  if (firstEmpty && !window.location.hash) firstEmpty.focus();
  check(false);
  if (modelUrl) checkModel();
})();
