// The enrolment page: rename a doubtful card, save the deck (both with the table PIN), and
// reload when the camera adds cards. The page itself is rendered by the server.
(() => {
  "use strict";
  const cfg = window.SCOREKEEPER_ENROL;
  const W = JSON.parse(document.getElementById("words").textContent);
  const $ = (id) => document.getElementById(id);
  const pinKey = "scorekeeper-pin-enrol";
  // sessionStorage: the PIN is forgotten when the tab closes, and never sits in the phone's storage.
  localStorage.removeItem(pinKey);  // where older versions kept it in clear
  $("pin").value = sessionStorage.getItem(pinKey) || "";
  $("pin").addEventListener("change", () => sessionStorage.setItem(pinKey, $("pin").value.trim()));

  function say(text) { $("msg").textContent = text; }

  function post(path, body) {
    const pin = $("pin").value.trim();
    if (!pin) { say(W.pin); $("pin").focus(); return Promise.reject(new Error(W.pin)); }
    return fetch(cfg.api + "/" + path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Scorekeeper-Pin": pin },
      body: JSON.stringify(body),
    }).then((r) => r.json().then((data) => {
      if (r.status === 401) throw new Error(W.pin_wrong);
      if (!r.ok) throw new Error(data.error || r.statusText);
      return data;
    }));
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    if (!button) return;
    let request;
    if (button.dataset.action === "rename") {
      const id = Number(button.dataset.sighting);
      const card = document.querySelector(`select[data-rename="${id}"]`).value;
      request = post("rename", { sighting: id, card: card === "skip" ? null : card });
    } else if (button.dataset.action === "save") {
      request = post("save", { partial: $("partial").checked });
    } else {
      return;
    }
    request.then((state) => {
      if (state.saved) say(W.enrol_saved + " " + state.saved);
      setTimeout(() => location.reload(), state.saved ? 1500 : 0);
    }).catch((error) => say(error.message));
  });

  // New faces from the camera: reload to show them (only while nobody is typing a PIN).
  setInterval(() => {
    if (document.activeElement && document.activeElement.tagName === "INPUT") return;
    fetch(cfg.api + "/state", { cache: "no-store" })
      .then((r) => r.json())
      .then((state) => { if (state.sightings !== cfg.sightings) location.reload(); })
      .catch(() => {});
  }, 2000);
})();
