// The arbiter's console, its view: the game and the round's results read through the API
// (/api/v1, with the session cookie) and shown, again whenever the live stream tells that
// something happened; the version shown is the one every write sends (console-writes.js).
// Recorded texts (names, slips, reasons) reach the page through textContent only.
(() => {
  "use strict";
  const read = (id) => JSON.parse(document.getElementById(id).textContent);
  const data = read("console-data");
  const T = read("console-texts");
  const can = data.can;
  const api = "/api/v1/games/" + encodeURIComponent(data.game.game_id);
  const $ = (id) => document.getElementById(id);
  let state = { game: data.game, results: data.results, version: data.version };

  const fmt = (text, values) =>
    text.replace(/%\((\w+)\)s/g, (_, name) => String(values[name] ?? ""));

  function el(tag, props, ...children) {
    const made = document.createElement(tag);
    for (const [name, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === "text") made.textContent = value;
      else if (name === "className") made.className = value;
      else if (name.startsWith("data-")) made.setAttribute(name, value);
      else if (name === "onclick") made.addEventListener("click", value);
      else made[name] = value;
    }
    for (const child of children) if (child) made.append(child);
    return made;
  }

  function timeOf(iso) {
    if (!iso) return null;
    const moment = new Date(iso);
    return el("time", {
      dateTime: iso,
      text: moment.toLocaleTimeString(T.lang, { hour: "2-digit", minute: "2-digit", second: "2-digit" }),
      title: moment.toLocaleString(T.lang),
    });
  }

  // why a slip or a round does not count: in Romanian the reasons' catalogue, in English the
  // problem's own words (which may name the word or the square)
  const reason = (code, said) => (T.lang === "en"
    ? said || T.reasons[code] || code : T.reasons[code] || said || code);

  function playerName(id) {
    const found = state.game.players.find((p) => p.player_id === id);
    return found && found.name ? found.name : id;
  }

  function who(player) {
    return el("td", {}, player.name || player.player_id, " ",
      el("span", { className: "id", text: player.player_id }));
  }

  // ---- messages and focus ----
  function say(text) {
    $("console-alert").textContent = "";
    $("console-status").textContent = text;
  }
  function warn(text, focus = true) {
    $("console-status").textContent = "";
    $("console-alert").textContent = text;
    if (focus) $("console-alert").focus();
  }

  // ---- reading the game ----
  const etagOf = (answer) => Number((answer.headers.get("ETag") || "").replace(/\D/g, "")) || null;

  async function fetchState() {
    for (let tries = 0; tries < 3; tries++) {
      const game = await fetch(api, { credentials: "same-origin" });
      if (!game.ok) return;
      const shown = await game.json();
      const version = etagOf(game);
      let results = null;
      if (shown.round) {
        const asked = await fetch(api + "/rounds/" + shown.round.round + "/results",
          { credentials: "same-origin" });
        if (asked.ok) {
          results = await asked.json();
          if (etagOf(asked) !== version && tries < 2) continue; // a write in between: again
        }
      }
      state = { game: shown, results, version };
      render();
      return;
    }
  }

  let refreshing = null;
  let again = false;
  function refresh() {
    if (refreshing) { again = true; return refreshing; }
    refreshing = (async () => {
      try {
        do { again = false; await fetchState(); } while (again);
      } catch (e) {
        warn(T.unreachable, false);
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  // ---- showing the game ----
  function render() {
    const kept = document.activeElement && document.activeElement.dataset
      ? document.activeElement.dataset.key : null;
    const rnd = state.game.round;
    const results = state.results;
    $("round-number").textContent = rnd
      ? rnd.round + " (" + (rnd.closed ? T.round_closed : T.open) + ")" : T.no_round;
    $("rack").textContent = rnd ? rnd.rack : "–";
    $("deadline").replaceChildren(rnd && rnd.deadline ? timeOf(rnd.deadline) : "–");
    $("slip-count").textContent = rnd ? rnd.slips : 0;
    $("version").textContent = state.version;
    renderSlips(results);
    renderPlayers(results);
    renderDecisions(results);
    renderTie(results);
    renderControls(rnd);
    document.dispatchEvent(new CustomEvent("arbitru:shown"));
    if (kept) {
      const again = document.querySelector('[data-key="' + CSS.escape(kept) + '"]');
      if (again) again.focus();
    }
  }

  function renderSlips(results) {
    const rows = [];
    for (const player of results ? results.players : []) {
      if (!player.submissions.length) {
        rows.push(el("tr", { className: "missing" }, who(player),
          el("td", { colSpan: can.decide ? 7 : 6, text: T.no_slip })));
        continue;
      }
      player.submissions.forEach((slip, index) => {
        const validity = slip.valid ? T.valid
          : T.invalid + ": " + slip.problems.map((p) => reason(p.code, p.message)).join("; ");
        const received = el("td", {}, timeOf(slip.received_at),
          slip.source ? el("span", { className: "id", text: " " + slip.source }) : null);
        const row = el("tr", { className: slip.status },
          who(player),
          el("td", { className: "slip", text: slip.text }),
          el("td", { className: "slip", text: slip.move || "–" }),
          el("td", { text: validity }),
          el("td", { className: "number", text: String(slip.score) }),
          received,
          el("td", { text: (T.statuses[slip.status] || reason(slip.status)) +
            (slip.correction ? " · " + T.events.SubmissionCorrected : "") }));
        if (can.decide) {
          const key = player.player_id + "-" + index;
          row.append(el("td", { className: "actions" },
            el("button", { type: "button", className: "secondary", text: T.annul_button,
              "data-key": "annul-" + key, disabled: ["superseded", "annulled"].includes(slip.status),
              "data-action": "annul", "data-player": player.player_id }),
            el("button", { type: "button", className: "secondary", text: T.correct_button,
              "data-key": "correct-" + key, disabled: slip.status === "superseded",
              "data-action": "correction", "data-player": player.player_id, "data-text": slip.text })));
        }
        rows.push(row);
      });
    }
    $("slips").tBodies[0].replaceChildren(...rows);
  }

  function renderPlayers(results) {
    const byId = new Map((results ? results.players : []).map((p) => [p.player_id, p]));
    $("players").tBodies[0].replaceChildren(...state.game.players.map((player) => {
      const row = byId.get(player.player_id);
      const cell = (value) => el("td", { className: "number",
        text: row && value !== null && value !== undefined ? String(value) : "–" });
      return el("tr", {}, who(player), cell(row && row.total), cell(row && row.penalty),
        cell(row && row.warnings), el("td", { text: row && row.code ? reason(row.code, row.message) : "" }));
    }));
    for (const choice of document.querySelectorAll(".player-choice")) {
      const chosen = choice.value;
      choice.replaceChildren(el("option", { value: "", text: "—" }), ...state.game.players.map(
        (p) => el("option", { value: p.player_id, text: (p.name || p.player_id) + " (" + p.player_id + ")" })));
      choice.value = chosen;
    }
  }

  function renderDecisions(results) {
    const decisions = results ? results.decisions : [];
    $("decisions").tBodies[0].replaceChildren(...decisions.map((d) => {
      const row = el("tr", { className: d.revoked_by ? "revoked" : "" },
        el("td", { text: (T.events[d.type] || d.type) + (d.revoked_by ? " (" + T.revoked_by + ")" : "") }),
        el("td", { text: d.player_id || d.move || "" }),
        el("td", { className: "number", text: d.points ? String(d.points) : "" }),
        el("td", { text: d.reason || "" }),
        el("td", { text: d.actor || "" }),
        el("td", {}, timeOf(d.recorded_at)));
      if (can.decide) {
        row.append(el("td", {}, d.revoked_by || d.type === "DecisionRevoked" ? null :
          el("button", { type: "button", className: "secondary", text: T.revoke_button,
            "data-key": "revoke-" + d.event_id,
            "data-action": "revoke", "data-event": d.event_id })));
      }
      return row;
    }));
    const events = $("decide-event");
    if (events) {
      const chosen = events.value;
      events.replaceChildren(el("option", { value: "", text: "—" }), ...decisions
        .filter((d) => !d.revoked_by && d.type !== "DecisionRevoked")
        .map((d) => el("option", { value: d.event_id,
          text: [T.events[d.type] || d.type, d.player_id || d.move, d.points, d.reason]
            .filter(Boolean).join(" · ") })));
      events.value = chosen;
    }
  }

  function renderTie(results) {
    const tied = results && results.tied ? results.tied : [];
    $("tie").hidden = tied.length === 0;
    $("tied-moves").replaceChildren(...tied.map((move, index) => el("li", {},
      el("span", { className: "slip", text: move }), " ",
      can.decide ? el("button", { type: "button", text: T.choose_button, "data-key": "top-" + index,
        "data-action": "top", "data-move": move }) : null)));
  }

  function renderControls(rnd) {
    const open = rnd && !rnd.closed;
    const playing = state.game.status === "playing";
    if ($("draw")) {
      $("draw").hidden = open || !playing;
      const submit = $("draw-submit");
      submit.dataset.label = submit.dataset.label || submit.textContent;
      submit.textContent = submit.dataset.label + " " + (rnd ? rnd.round + 1 : 1);
    }
    if ($("close")) {
      $("close").hidden = !open;
      $("close-round").textContent = fmt(T.close, { round: rnd ? rnd.round : "" }) + "…";
    }
    if ($("paper")) $("paper").hidden = !open;
    if ($("decide")) $("decide").hidden = !rnd;
  }

  function follow() {
    const live = new EventSource(api + "/live");
    live.addEventListener("open", () => {
      $("live-state").textContent = T.live_on;
      refresh(); // whatever happened between this page being made (or the stream lost) and now
    });
    live.addEventListener("error", () => { $("live-state").textContent = T.live_off; });
    for (const kind of ["round_opened", "slip_received", "round_closed", "decision", "game_ended"]) {
      live.addEventListener(kind, () => refresh());
    }
  }

  // what the writes (console-writes.js) use of the view
  window.arbitruConsole = {
    T, can, api, $, el, fmt, say, warn, refresh, playerName, state: () => state,
  };
  $("controls").hidden = false;
  render();
  follow();
})();
