// The organiser's page: every table live from the server's event stream, standings and rounds
// fetched again (at most every 2 s) whenever a table changes.
"use strict";
const SUITS = { H: "♥", D: "♦", S: "♠", C: "♣" };
const TEAM = ["Nós", "Eles", "Nós", "Eles"];
const tables = new Map();
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  for (const child of children) node.append(child);
  return node;
}

function card(notation) { return notation ? notation.slice(0, -1) + SUITS[notation.slice(-1)] : ""; }

function tableCard(t) {
  const box = el("div", { class: "table" + (t.winner ? " won" : ""), id: "table-" + t.table });
  box.append(el("h3", {}, t.table, el("small", { class: "muted" }, "partida " + t.match)));
  if (t.game) {
    box.append(el("div", { class: "teams" }, "Ronda " + t.game.round + ": ",
      el("span", { class: "nos" }, t.game.nos), " – ", el("span", { class: "eles" }, t.game.eles || "")));
  }
  box.append(el("div", { class: "score" }, el("span", { class: "nos" }, "Nós " + t.score.nos), " – ",
    el("span", { class: "eles" }, t.score.eles + " Eles")));
  if (t.winner) {
    box.append(el("div", {}, "Vencida por " + (t.winner === "nos" ? "Nós" : "Eles")));
  } else if (t.current) {
    const c = t.current;
    box.append(el("div", {}, "Mão " + c.number + " · trunfo " + card(c.turned) +
      (c.complete ? " · terminada" : " · vaza " + (c.vazas + 1)) +
      " · pontos " + c.points.nos + "–" + c.points.eles));
  } else {
    box.append(el("div", { class: "muted" }, "à espera da primeira mão"));
  }
  for (const r of t.renuncias) {
    box.append(el("div", { class: "alert" }, "Renúncia por decidir: mão " + r.deal + ", vaza " + r.trick +
      ", lugar " + r.seat + " (" + TEAM[r.seat] + ") jogou " + card(r.card)));
  }
  for (const d of t.doubts) {
    box.append(el("div", { class: "alert" }, "Dúvida por resolver: mão " + d.deal +
      (d.play ? ", jogada " + d.play : "")));
  }
  return box;
}

function drawTables() {
  const box = $("tables");
  box.replaceChildren(...[...tables.values()].map(tableCard));
  if (!tables.size) box.append(el("p", { class: "muted" }, "Nenhuma mesa ainda."));
}

async function drawStandings() {
  const data = await (await fetch("/api/standings")).json();
  $("standings").replaceChildren(...data.standings.map((row, index) => el("tr", {},
    el("td", {}, String(index + 1)), el("td", {}, row.team), el("td", {}, String(row.played)),
    el("td", {}, String(row.won)), el("td", {}, String(row.lost)), el("td", {}, el("b", {}, String(row.points))),
    el("td", {}, String(row.riscos_for)), el("td", {}, String(row.riscos_against)),
    el("td", {}, (row.diff > 0 ? "+" : "") + row.diff))));
}

async function drawRounds() {
  const rounds = await (await fetch("/api/rounds")).json();
  if (!rounds.length) return;
  $("rounds").replaceChildren(...rounds.map((round) => el("div", { class: "round" },
    el("strong", {}, "Ronda " + round.round),
    el("ul", {}, ...round.games.map((g) => {
      if (!g.eles) return el("li", {}, "Folga: " + g.nos);
      const result = g.score ? " " + g.score.nos + "–" + g.score.eles : "";
      const item = el("li", {}, g.table + ": " + g.nos + " – " + g.eles + result +
        (g.winner ? " · venceu " + (g.winner === "nos" ? g.nos : g.eles) : " · a jogar") +
        (g.corrected ? " (corrigido)" : "") + " ");
      item.append(el("a", { href: "/api/tables/" + g.table + "/matches/" + g.match + "/record" }, "registo"));
      return item;
    })))));
}

let refreshTimer = null;
function refreshSoon() {
  if (refreshTimer) return;
  refreshTimer = setTimeout(() => { refreshTimer = null; drawStandings(); drawRounds(); }, 2000);
}

function connect() {
  const source = new EventSource("/api/stream");
  source.addEventListener("open", () => { $("live").textContent = "ao vivo"; $("live").classList.remove("off"); });
  source.addEventListener("error", () => { $("live").textContent = "sem ligação, a tentar…"; $("live").classList.add("off"); });
  source.addEventListener("tables", (message) => {
    tables.clear();
    for (const t of JSON.parse(message.data)) tables.set(t.table, t);
    drawTables(); drawStandings(); drawRounds();
  });
  source.addEventListener("table", (message) => {
    const t = JSON.parse(message.data);
    tables.set(t.table, t);
    const old = $("table-" + t.table);
    if (old) old.replaceWith(tableCard(t)); else drawTables();
    refreshSoon();
  });
}

async function organiser(path, body) {
  const response = await fetch(path, {
    method: "POST", body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", "X-Scorekeeper-Pin": $("pin").value },
  });
  const data = await response.json();
  $("message").textContent = response.ok ? "" : data.error;
  return response.ok ? data : null;
}

$("add-teams").addEventListener("submit", async (event) => {
  event.preventDefault();
  const names = event.target.teams.value.split("\n").map((n) => n.trim()).filter(Boolean);
  if (await organiser("/api/teams", { teams: names })) {
    event.target.reset(); $("message").textContent = names.length + " equipas inscritas."; drawStandings();
  }
});
$("add-table").addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = await organiser("/api/tables", { table: event.target.table.value.trim() });
  if (data) $("message").textContent = "Mesa " + data.table + " criada. Chave (mostrada uma só vez): " + data.key;
});
$("pair").addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = await organiser("/api/rounds", {});
  if (data) { $("message").textContent = "Ronda " + data.round + " emparelhada."; drawRounds(); }
});

connect();
