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
  const seatName = (seat) => `${W.seat} ${seat + 1}`;
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
    box.hidden = live.camera !== "lost";
    box.textContent = live.camera === "lost" ? W.camera_lost : "";
  }

  function renderAlert() {
    const current = state.current ? state.current.number : 0;
    const shown = state.revokes.filter(
      (r) => r.status === "suspected" || (r.status === "confirmed" && r.deal === current));
    const box = $("alert");
    box.hidden = shown.length === 0;
    box.innerHTML = shown.map((r) => {
      const text = fmt(W.renuncia_text, {
        trick: r.trick, seat: esc(seatName(r.seat)), team: W[TEAM(r.seat)],
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
      `<div class="muted">${esc(W.deal)} ${d.number} · ${esc(W.dealer)}: ${esc(seatName(d.dealer))}</div>` +
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
        `<span class="who">${esc(seatName(seat))}</span>` +
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
        return `<span class="played ${TEAM(seat)}" title="${esc(seatName(seat))}" data-play="${n * 4 + i + 1}">` +
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
        html += `<tr><td>${d.number}</td><td>${d.dealer + 1}</td><td>${card(d.turned)}</td>` +
          `<td>${d.points.nos}</td><td>${d.points.eles}</td><td>${riscosText(d)}</td></tr>`;
      }
      html += "</tbody></table>";
    }
    if (state.history.length) {
      html += `<h4>${esc(W.matches)}</h4><ul class="matches">` + state.history.map((m) => {
        const s = m.score || { nos: "?", eles: "?" };
        return `<li>${esc(W.match)} ${m.match}: <span class="nos">${esc(W.nos)} ${s.nos}</span> – ` +
          `<span class="eles">${s.eles} ${esc(W.eles)}</span>${m.winner ? ` · ${esc(W.winner)} ${esc(W[m.winner])}` : ""}</li>`;
      }).join("") + "</ul>";
    }
    $("history").innerHTML = html || `<p class="muted">—</p>`;
  }

  function render(next) {
    state = next;
    for (const team of ["nos", "eles"]) {
      $("score-" + team).textContent = state.score[team];
      $("tally-" + team).innerHTML = tally(state.score[team]);
    }
    $("target").textContent = `${W.match} ${state.match} · ${W.to} ${state.rules.target} ${W.riscos}`;
    const win = $("winner");
    win.hidden = !state.winner;
    win.innerHTML = state.winner ? `${esc(W.winner)} <b>${esc(W[state.winner])}</b> · ${state.score.nos}–${state.score.eles}` : "";
    renderCamera();
    renderAlert();
    renderDoubts();
    renderDeal();
    renderMesa();
    renderVazas();
    renderHistory();
    document.body.dataset.seq = state.seq;
    $("dealer-in").value = String(state.next_dealer);
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
  $("pin").value = localStorage.getItem(pinKey) || "";
  $("pin").addEventListener("change", () => localStorage.setItem(pinKey, $("pin").value.trim()));
  function send(path, body) {
    const msg = $("control-msg");
    if (!$("pin").value.trim()) {
      $("controls").open = true;
      $("pin").focus();
      return;
    }
    fetch(cfg.api + "/" + path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Scorekeeper-Pin": $("pin").value.trim() },
      body: JSON.stringify(body || {}),
    }).then((r) => r.json().then((data) => {
      if (r.status === 401) throw new Error(W.pin_wrong);
      if (!r.ok) throw new Error(data.error || r.statusText);
      msg.textContent = W.saved;
      msg.className = "msg ok";
      render(data);
    })).catch((err) => { msg.textContent = err.message; msg.className = "msg err"; $("controls").open = true; });
  }
  const actions = {
    undo: () => send("undo", { expect: state.seq }),
    play: () => send("plays", { card: $("card-in").value }),
    correct: () => send("correct", { play: Number($("play-no").value), card: $("fix-card").value }),
    deal: () => send("deal", { dealer: Number($("dealer-in").value), turned: $("turned-in").value }),
    turned: () => send("correct", { turned: $("turned-in").value }),
    match: () => send("match", {}),
  };
  document.addEventListener("click", (e) => {
    const played = e.target.closest("[data-play]");
    if (played) {  // tap a card to correct it
      $("play-no").value = played.dataset.play;
      $("controls").open = true;
      $("fix-card").focus();
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
