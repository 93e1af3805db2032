// The workbench's one script (no inline script: the Content-Security-Policy forbids it).
// `nlibuild.post(url, data)` sends JSON with the session's CSRF token in X-CSRF-Token, for
// the pages that save as people type; the token comes from the page's <meta name="csrf-token">.
"use strict";
window.nlibuild = {
  csrfToken() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  },
  async post(url, data) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": this.csrfToken() },
      body: JSON.stringify(data),
    });
  },
};
