// The live score page: renders the state JSON, keeps it fresh by Server-Sent Events, falls back to
// polling /api/state every second when the stream is unavailable. No framework, no build step.
"use strict";
(function () {
  const cfg = window.SCOREKEEPER;
  const ALL_WORDS = JSON.parse(document.getElementById("words").textContent);
  const W = ALL_WORDS[cfg.lang] || ALL_WORDS.pt;
  const SUIT = { H: "♥", S: "♠", D: "♦", C: "♣" };
  const TEAM = (seat) => (seat % 2 === 0 ? "nos" : "eles");
  const $ = (id) => document.getElementById(id);
  let state = JSON.parse(document.getElementById("initial-state").textContent);

  const esc = (text) => String(text).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
  const fmt = (template, values) => template.replace(/\{(\w+)\}/g, (_, k) => values[k]);
  // One seat language everywhere: "Jogador 1".."Jogador 4" (seats 0-3 of the log), or the name the
  // table gave; Jogador 1 and 3 are Nós, 2 and 4 Eles.
  const seatName = (seat) => (state.names && state.names[seat]) || `${W.seat} ${seat + 1}`;
  const seatLabel = (seat) => `${seatName(seat)} (${W[TEAM(seat)]})`;
  const rankName = (rank) => W["rank_" + rank] || rank;
  const red = (suit) => suit === "H" || suit === "D";

  function card(notation, extra) {
    const suit = notation[1];
    return `<span class="c${red(suit) ? " red" : ""}${extra ? " " + extra : ""}">${esc(rankName(notation[0]))}${SUIT[suit]}</span>`;
  }

  // Riscos drawn as on the paper sheet: one traço each, every fifth crossing the four before it.
  function tally(count) {
    const h = 56, gap = 12, group = 4 * gap + 14;
    let lines = "";
    for (let i = 0; i < count; i++) {
      const g = Math.floor(i / 5), pos = i % 5, x0 = 8 + g * group;
      const wob = ((i * 7) % 5) - 2;
      if (pos < 4) {
        const x = x0 + pos * gap;
        lines += `<path d="M${x + wob * 0.4} 6 Q${x + 1.5} ${h / 2} ${x - wob * 0.4} ${h - 6}"/>`;
      } else {
        lines += `<path d="M${x0 - 6} ${h - 12} L${x0 + 3 * gap + 6} 12"/>`;
      }
    }
    const width = Math.max(1, Math.ceil(count / 5)) * group + 8;
    return `<svg viewBox="0 0 ${width} ${h}" width="${width}" height="${h}" aria-hidden="true">${lines}</svg>`;
  }

  // Riscos as dots at the ends of a cross (the north's sheet): a team's n-th risco goes to the end
  // of arm n % 4 (top, right, bottom, left), on that team's side of the arm (Nós before it going
  // round, Eles after), and every four more start a ring further out; a match won with the other
  // team on none (pente) gets a loop round the winner's dots. The engine's marks (state.sheet) are
  // used when the state carries them; else they are laid out the same way from the score.
  const ARMS = { top: [0, -1], right: [1, 0], bottom: [0, 1], left: [-1, 0] };
  function crossMarks() {
    if (state.sheet && state.sheet.cruz) return state.sheet.cruz;
    const order = ["top", "right", "bottom", "left"], marks = {};
    for (const team of ["nos", "eles"]) {
      marks[team] = [];
      for (let i = 0; i < state.score[team]; i++) marks[team].push({ arm: order[i % 4], ring: Math.floor(i / 4) });
    }
    return marks;
  }
  function pente() {
    if (state.sheet && "pente" in state.sheet) return state.sheet.pente;
    const w = state.winner;
    return w && state.score[w === "nos" ? "eles" : "nos"] === 0 ? w : null;
  }
  function cross() {
    const c = 76, arm = 40, side = 9, step = 12;
    const marks = crossMarks();
    let dots = "", rings = 0;
    for (const [team, sign] of [["nos", -1], ["eles", 1]]) {
      for (const m of marks[team] || []) {
        const [dx, dy] = ARMS[m.arm] || ARMS.top, reach = arm + 4 + m.ring * step;
        rings = Math.max(rings, m.ring);
        const x = c + dx * reach + sign * side * -dy, y = c + dy * reach + sign * side * dx;
        dots += `<circle class="${team}" cx="${x}" cy="${y}" r="5.5"${m.deal ? ` data-deal="${Number(m.deal)}"` : ""}/>`;
      }
    }
    const won = pente();
    const loop = won ? `<circle class="pente ${won === "nos" ? "nos" : "eles"}" cx="${c}" cy="${c}" r="${Math.hypot(arm + 4 + rings * step, side) + 8}"/>` : "";
    return `<svg viewBox="0 0 ${2 * c} ${2 * c}" width="${2 * c}" height="${2 * c}" role="img" aria-label="${esc(W.nos)} ${state.score.nos} · ${esc(W.eles)} ${state.score.eles}">` +
      `<path class="arms" d="M${c} ${c - arm}V${c + arm}M${c - arm} ${c}H${c + arm}"/>${dots}${loop}</svg>`;
  }
  const sheetKey = "scorekeeper-sheet";
  // Each phone may choose; without a choice, the table's rules say (the "norte" preset: cruz).
  const sheetStyle = () => {
    const chosen = localStorage.getItem(sheetKey) || (state.sheet && state.sheet.style);
    return chosen === "cruz" ? "cruz" : "tracos";
  };

  // The evidence in the reader's language, from the vaza where the player showed the suit again.
  function proof(r) {
    const deal = state.deals[r.deal - 1];
    const suit = `${SUIT[r.led]} ${esc(W["suit_" + r.led])}`;
    const trick = r.proven_in_trick <= deal.tricks.length ? deal.tricks[r.proven_in_trick - 1] : deal.table;
    const shown = trick.cards[(r.seat - trick.leader + 4) % 4];
    if (r.proven_in_trick === r.trick || !shown) return fmt(W.proof_turned, { card: card(deal.turned) });
    return fmt(W.proof_later, { trick: r.proven_in_trick, card: card(shown), suit: suit });
  }

  // Only `scorekeeper run` reports a camera; a page fed by hand shows nothing here.
  function renderCamera() {
    const live = state.live || {};
    const box = $("camera");
    const text = live.camera === "lost" ? W.camera_lost : live.trunfo === "unread" ? W.trunfo_unread : "";
    box.hidden = !text;
    box.textContent = text;
  }

  function renderAlert() {
    const current = state.current ? state.current.number : 0;
    const shown = state.revokes.filter(
      (r) => r.status === "suspected" || (r.status === "confirmed" && r.deal === current));
    const box = $("alert");
    box.hidden = shown.length === 0;
    box.innerHTML = shown.map((r) => {
      const text = fmt(W.renuncia_text, {
        trick: r.trick, seat: esc(seatName(r.seat)), team: esc(W[TEAM(r.seat)]),
        card: card(r.card), led: `${SUIT[r.led]} ${esc(W["suit_" + r.led])}`,
      });
      const buttons = r.status === "suspected"
        ? `<div class="row"><button data-renuncia="confirm" data-deal="${r.deal}" data-trick="${r.trick}" data-seat="${r.seat}">${esc(W.confirm)}</button>` +
          `<button data-renuncia="dismiss" data-deal="${r.deal}" data-trick="${r.trick}" data-seat="${r.seat}">${esc(W.dismiss)}</button></div>`
        : "";
      return `<div class="revoke"><h2>⚠ ${esc(r.status === "confirmed" ? W.renuncia_confirmed : W.renuncia)}` +
        ` <small>${esc(W.deal)} ${r.deal}</small></h2><p>${text}</p>` +
        `<p class="proof" title="${esc(r.proof)}"><b>${esc(W.proof)}:</b> ${proof(r)}</p>${buttons}</div>`;
    }).join("");
  }

  // The camera's open doubts: the table taps the right card, or leaves the play as recorded.
  function renderDoubts() {
    const doubts = state.doubts || [];
    const current = state.current ? state.current.number : 0;
    const box = $("doubts");
    box.hidden = doubts.length === 0;
    box.innerHTML = doubts.length === 0 ? "" : `<h3>${esc(W.doubts)}</h3>` + doubts.map((d) => {
      const options = d.options.map((c) => card(c)).join(esc(W.doubt_or));
      const seat = d.seat === null ? "" : ` (${esc(seatName(d.seat))})`;
      const text = d.trick ? fmt(W.doubt_text, { trick: d.trick, seat: seat, options: options }) : fmt(W.doubt_text_no_play, { options: options });
      const where = d.deal !== current ? ` <small>${esc(W.deal)} ${d.deal}</small>` : "";
      const buttons = d.options.map((c) => `<button data-doubt="${d.seq}" data-card="${esc(c)}">${card(c)}</button>`).join("") +
        `<button data-doubt="${d.seq}" data-card="">${esc(W.doubt_keep)}</button>`;
      return `<div class="doubt"><p><b>${text}</b>${where} <small class="muted">${esc(W["doubt_" + d.reason] || d.reason)}</small></p>` +
        `<div class="row">${buttons}</div></div>`;
    }).join("") + `<p class="muted">${esc(W.doubt_tap)}</p>`;
  }

  function renderDeal() {
    const d = state.current;
    if (!d) {
      $("deal").innerHTML = `<p class="muted">${esc(W.no_deal)}</p>`;
      return;
    }
    const nos = d.points.nos, eles = d.points.eles;
    $("deal").innerHTML =
      `<div class="trunfo${red(d.trump) ? " red" : ""}" title="${esc(W["suit_" + d.trump])}">${SUIT[d.trump]}</div>` +
      `<div class="deal-info"><div><b>${esc(W.trunfo)}</b> ${esc(W["suit_" + d.trump])} · ${card(d.turned)}</div>` +
      `<div class="muted">${esc(W.deal)} ${d.number} · ${esc(W.dealer)}: ${esc(seatLabel(d.dealer))}</div>` +
      `<div class="pts"><span class="nos">${esc(W.nos)} <b id="pts-nos">${nos}</b></span>` +
      `<span class="muted">${esc(W.points)}</span><span class="eles"><b id="pts-eles">${eles}</b> ${esc(W.eles)}</span></div>` +
      `<div class="meter"><i class="nos" style="width:${(nos / 120) * 100}%"></i><i class="eles" style="width:${(eles / 120) * 100}%"></i></div></div>`;
  }

  function renderMesa() {
    const d = state.current;
    const slots = { 0: "", 1: "", 2: "", 3: "" };
    let caption = "", trick = null, faded = false;
    if (d) {
      if (d.table.cards.length) trick = { leader: d.table.leader, cards: d.table.cards, winner: null };
      else if (d.tricks.length) { trick = d.tricks[d.tricks.length - 1]; faded = true; caption = W.last_vaza; }
    }
    const first = d ? (d.tricks.length - (faded ? 1 : 0)) * 4 : 0;  // plays before this vaza
    if (trick) trick.cards.forEach((c, i) => {
      const seat = (trick.leader + i) % 4;
      slots[seat] = `<span data-play="${first + i + 1}">${card(c, seat === trick.winner ? "win" : "")}</span>`;
    });
    const pos = { 2: "top", 3: "left", 1: "right", 0: "bottom" };
    let html = "";
    for (const seat of [0, 1, 2, 3]) {
      const turn = d && d.table.to_play === seat;
      const leads = trick && trick.leader === seat && !faded;
      html += `<div class="seat ${pos[seat]} ${TEAM(seat)}${turn ? " turn" : ""}" data-seat="${seat}">` +
        `<span class="who">${esc(seatName(seat))}${state.names && state.names[seat] ? ` <small>${seat + 1}</small>` : ""}</span>` +
        (turn || leads ? `<span class="tag">${esc(turn ? W.to_play : W.leads)}</span>` : "") +
        `<span class="slot">${slots[seat] || ""}</span></div>`;
    }
    html += `<div class="center${d && red(d.trump) ? " red" : ""}">${d ? SUIT[d.trump] : ""}</div>`;
    $("mesa").className = "mesa" + (faded ? " faded" : "");
    $("mesa").innerHTML = html + (caption ? `<div class="caption">${esc(caption)}</div>` : "");
  }

  function renderVazas() {
    const d = state.current;
    if (!d || !d.tricks.length) {
      $("vazas").innerHTML = `<li class="muted">${esc(W.no_vazas)}</li>`;
      return;
    }
    $("vazas").innerHTML = d.tricks.map((t, n) => {
      const cards = t.cards.map((c, i) => {
        const seat = (t.leader + i) % 4;
        return `<span class="played ${TEAM(seat)}" title="${esc(seatLabel(seat))}" data-play="${n * 4 + i + 1}">` +
          `${card(c, seat === t.winner ? "win" : "")}<small>${seat + 1}</small></span>`;
      }).join("");
      return `<li value="${n + 1}"><span class="cards">${cards}</span>` +
        `<span class="took ${TEAM(t.winner)}">${esc(W[TEAM(t.winner)])} <b>${t.points}</b></span></li>`;
    }).reverse().join("");
  }

  function riscosText(d) {
    const team = d.riscos.nos ? "nos" : d.riscos.eles ? "eles" : null;
    if (!team) return `<span class="muted">${esc(W["outcome_" + d.outcome] || d.outcome)}</span>`;
    return `<span class="${team}">+${d.riscos[team]} ${esc(W[team])}</span> <small class="muted">${esc(W["outcome_" + d.outcome] || "")}</small>`;
  }

  function renderHistory() {
    let html = "";
    if (state.deals.length) {
      html += `<table class="hist"><thead><tr><th>#</th><th>${esc(W.dealer)}</th><th>${esc(W.trunfo)}</th>` +
        `<th class="nos">${esc(W.nos)}</th><th class="eles">${esc(W.eles)}</th><th>${esc(W.riscos)}</th></tr></thead><tbody>`;
      for (const d of state.deals) {
        html += `<tr><td>${d.number}</td><td class="${TEAM(d.dealer)}">${esc(seatName(d.dealer))}</td><td>${card(d.turned)}</td>` +
          `<td>${d.points.nos}</td><td>${d.points.eles}</td><td>${riscosText(d)}</td></tr>`;
      }
      html += "</tbody></table>";
    }
    if (state.history.length) {
      html += `<h4>${esc(W.matches)}</h4><ul class="matches">` + state.history.map((m) => {
        const s = m.score || { nos: "?", eles: "?" };
        const named = (m.names || []).map((n, seat) => (n ? `${esc(n)} (${seat + 1})` : "")).filter(Boolean);
        return `<li>${esc(W.match)} ${m.match}: <span class="nos">${esc(W.nos)} ${s.nos}</span> – ` +
          `<span class="eles">${s.eles} ${esc(W.eles)}</span>${m.winner ? ` · ${esc(W.winner)} ${esc(W[m.winner])}` : ""}` +
          (named.length ? ` <small class="muted">${named.join(", ")}</small>` : "") + `</li>`;
      }).join("") + "</ul>";
    }
    $("history").innerHTML = html || `<p class="muted">—</p>`;
  }

  function render(next) {
    state = next;
    const crossed = sheetStyle() === "cruz";
    for (const team of ["nos", "eles"]) {
      $("score-" + team).textContent = state.score[team];
      $("tally-" + team).innerHTML = crossed ? "" : tally(state.score[team]);
      $("tally-" + team).hidden = crossed;
    }
    $("cross").hidden = !crossed;
    $("cross").innerHTML = crossed ? cross() : "";
    $("sheet-style").value = sheetStyle();
    $("target").textContent = `${W.match} ${state.match} · ${W.to} ${state.rules.target} ${W.riscos}`;
    const win = $("winner");
    win.hidden = !state.winner;
    win.innerHTML = state.winner ? `${esc(W.winner)} <b>${esc(W[state.winner])}</b> · ${state.score.nos}–${state.score.eles}` +
      `<small>${esc(cfg.confirmNextMatch ? W.next_match_confirm : W.next_match_auto)}</small>` : "";
    renderCamera();
    renderAlert();
    renderDoubts();
    renderDeal();
    renderMesa();
    renderVazas();
    renderHistory();
    document.body.dataset.seq = state.seq;
    document.body.dataset.match = state.match;
    for (const option of $("dealer-in").options) option.textContent = `${W.dealer}: ${seatLabel(Number(option.value))}`;
    $("dealer-in").value = String(state.next_dealer);
    for (const seat of [0, 1, 2, 3]) {  // names being typed are kept until saved
      const input = $("name-" + seat);
      if (document.activeElement !== input && !input.dataset.dirty) input.value = (state.names || [])[seat] || "";
    }
  }

  // -- live updates ---------------------------------------------------------------------------
  function status(kind) {
    const el = $("conn");
    el.className = "conn " + kind;
    el.title = W[kind];
  }
  let pollTimer = null;
  function poll() {
    if (pollTimer) return;
    status("polling");
    pollTimer = setInterval(() => {
      fetch(cfg.api + "/state", { cache: "no-store" })
        .then((r) => r.json())
        .then((s) => {
          status("polling");
          if (s.seq !== state.seq || JSON.stringify(s.live) !== JSON.stringify(state.live)) render(s);
        })
        .catch(() => status("offline"));
    }, 1000);
  }
  function connect() {
    if (!window.EventSource) return poll();
    const es = new EventSource(cfg.api + "/stream");
    es.addEventListener("state", (e) => {
      status("live");
      if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
      const s = JSON.parse(e.data);
      if (s.seq !== state.seq || !document.body.dataset.seq) render(s);
    });
    es.addEventListener("ping", () => status("live"));
    es.onerror = () => {
      // The browser reconnects by itself; poll meanwhile so the score never goes stale.
      if (es.readyState === EventSource.CLOSED) setTimeout(connect, 3000);
      poll();
    };
  }

  // -- table controls (need the PIN) ---------------------------------------------------------
  const pinKey = "scorekeeper-pin-" + cfg.api;
  // sessionStorage: the PIN is forgotten when the tab closes, and never sits in the phone's storage.
  localStorage.removeItem(pinKey);  // where older versions kept it in clear
  $("pin").value = sessionStorage.getItem(pinKey) || "";
  $("pin").addEventListener("change", () => sessionStorage.setItem(pinKey, $("pin").value.trim()));
  // An error in the reader's language: the API sends a code with its English line.
  function problem(data, status) {
    const code = data.code || (status === 401 ? "pin" : "other");
    const args = Object.assign({}, data.args || {});
    if (args.card) args.card = card(args.card);
    const template = W["err_" + code];
    if (template) return fmt(template, args);
    return esc(W.err_other) + (data.error ? ` <small>(${esc(data.error)})</small>` : "");
  }
  function send(path, body) {
    const msg = $("control-msg");
    msg.textContent = "…";
    msg.className = "msg";
    return fetch(cfg.api + "/" + path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Scorekeeper-Pin": $("pin").value.trim() },
      body: JSON.stringify(body || {}),
    }).then((r) => r.json().catch(() => ({})).then((data) => {
      if (!r.ok) throw data;
      msg.textContent = W.saved;
      msg.className = "msg ok";
      render(data);
      return true;
    })).catch((err) => {
      msg.innerHTML = err instanceof Error ? esc(W.offline) : problem(err, 0);
      msg.className = "msg err";
      $("controls").open = true;
      return false;
    });
  }

  // The card picker: rank, then suit, big buttons; resolves with the card ("KS") or null.
  let picked = null;
  // The ranks of the deck in play: the Azores deck has the 10 (notation T) instead of the 7.
  const RANKS = { standard: ["A", "7", "K", "J", "Q", "6", "5", "4", "3", "2"], azores: ["A", "T", "K", "J", "Q", "6", "5", "4", "3", "2"] };
  function pick(title) {
    const box = $("picker");
    $("picker-title").textContent = title;
    const ranks = RANKS[(state.rules && state.rules.deck) || "standard"] || RANKS.standard;
    box.querySelector(".ranks").innerHTML = ranks.map((r) => `<button type="button" data-rank="${r}">${esc(rankName(r))}</button>`).join("");
    for (const b of box.querySelectorAll("[data-rank]")) b.setAttribute("aria-pressed", "false");
    for (const b of box.querySelectorAll("[data-suit]")) b.disabled = true;
    box.hidden = false;
    box.querySelector("[data-rank]").focus();
    return new Promise((resolve) => { picked = resolve; });
  }
  function closePicker(cardPicked) {
    $("picker").hidden = true;
    const resolve = picked;
    picked = null;
    if (resolve) resolve(cardPicked);
  }
  $("picker").addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) { if (e.target === $("picker")) closePicker(null); return; }
    e.stopPropagation();
    if (b.dataset.rank) {
      for (const other of $("picker").querySelectorAll("[data-rank]")) other.setAttribute("aria-pressed", String(other === b));
      for (const suit of $("picker").querySelectorAll("[data-suit]")) suit.disabled = false;
    } else if (b.dataset.suit) {
      const rank = $("picker").querySelector("[data-rank][aria-pressed='true']");
      if (rank) closePicker(rank.dataset.rank + b.dataset.suit);
    } else if (b.dataset.picker === "cancel") closePicker(null);
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && !$("picker").hidden) closePicker(null); });

  const withCard = (title, then) => pick(title).then((c) => (c ? then(c) : false));
  function correctPlay(play) {
    if (!(play >= 1)) { $("play-no").focus(); return; }
    $("play-no").value = String(play);
    withCard(fmt(W.pick_play, { play: play }), (c) => send("correct", { play: play, card: c }));
  }
  function saveNames() {
    const inputs = [0, 1, 2, 3].map((seat) => $("name-" + seat));
    const changed = inputs.filter((i) => i.value.trim() !== ((state.names || [])[Number(i.dataset.seat)] || ""));
    return changed.reduce((done, input) => done.then((ok) => ok && send("name", {
      seat: Number(input.dataset.seat), name: input.value.trim(),
    }).then((saved) => { if (saved) delete input.dataset.dirty; return saved; })), Promise.resolve(true));
  }
  for (const seat of [0, 1, 2, 3]) $("name-" + seat).addEventListener("input", (e) => { e.target.dataset.dirty = "1"; });
  $("sheet-style").value = sheetStyle();
  $("sheet-style").addEventListener("change", () => { localStorage.setItem(sheetKey, $("sheet-style").value); render(state); });

  const actions = {
    undo: () => send("undo", { expect: state.seq }),
    play: () => withCard(W.pick_next, (c) => send("plays", { card: c })),
    correct: () => correctPlay(Number($("play-no").value)),
    deal: () => withCard(W.pick_turned, (c) => send("deal", { dealer: Number($("dealer-in").value), turned: c })),
    turned: () => withCard(W.pick_turned, (c) => send("correct", { turned: c })),
    dealer: () => send("dealer", { dealer: Number($("dealer-in").value) }),
    match: () => send("match", {}),
    names: saveNames,
  };
  document.addEventListener("click", (e) => {
    if (!$("picker").hidden) return;
    const played = e.target.closest("[data-play]");
    if (played) {  // tap a card to correct it
      $("controls").open = true;
      correctPlay(Number(played.dataset.play));
      return;
    }
    const b = e.target.closest("button");
    if (!b) return;
    if (b.dataset.action) actions[b.dataset.action]();
    if (b.dataset.doubt) send("doubt", { doubt: Number(b.dataset.doubt), card: b.dataset.card || null });
    if (b.dataset.renuncia) send("renuncia", {
      decision: b.dataset.renuncia, deal: Number(b.dataset.deal),
      trick: Number(b.dataset.trick), seat: Number(b.dataset.seat),
    });
  });
  for (const a of document.querySelectorAll(".langs a")) {
    a.addEventListener("click", () => localStorage.setItem("scorekeeper-lang", a.dataset.lang));
  }
  const wanted = localStorage.getItem("scorekeeper-lang");
  if (wanted && wanted !== cfg.lang && !new URLSearchParams(location.search).has("lang")) {
    location.replace("?lang=" + wanted);
    return;
  }

  render(state);
  connect();
})();
