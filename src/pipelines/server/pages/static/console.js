// The arbiter's console: writes and re-reads through the API (/api/v1) with the session
// cookie. Every write carries the game version the console last showed (If-Match), so that
// an arbiter never records over what another wrote meanwhile (the API answers 412, and the
// console says so and shows the game as it now is). Every decision is sent first as a dry run
// (?dry_run=true) and shown; only "Confirm" sends it for real, with the version the dry run
// was made on. Recorded texts (names, slips, reasons) reach the page through textContent only.
(() => {
  "use strict";
  const read = (id) => JSON.parse(document.getElementById(id).textContent);
  const data = read("console-data");
  const T = read("console-texts");
  const can = data.can;
  const api = "/api/v1/games/" + encodeURIComponent(data.game.game_id);
  const $ = (id) => document.getElementById(id);
  let state = { game: data.game, results: data.results, version: data.version };
  let preview = null; // {path, body, version, key, origin, what, done}
  let rejected = [];

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
          : [T.invalid, ...slip.problems.map((p) => reason(p.code, p.message))].join(": ");
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
              onclick: () => startDecision("annul", player.player_id, null, "decide-reason") }),
            el("button", { type: "button", className: "secondary", text: T.correct_button,
              "data-key": "correct-" + key, disabled: slip.status === "superseded",
              onclick: () => startDecision("correction", player.player_id, slip.text, "decide-text") })));
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
            onclick: () => startDecision("revoke", null, d.event_id, "decide-reason") })));
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
        onclick: (event) => dryRun(state.game.round.round, "/top", { move },
          fmt(T.top, { move }), event.currentTarget) }) : null)));
  }

  function renderControls(rnd) {
    const open = rnd && !rnd.closed;
    const playing = state.game.status === "playing";
    if ($("draw")) {
      $("draw").hidden = open || !playing;
      $("draw-submit").textContent = $("draw-submit").dataset.label + " " + (rnd ? rnd.round + 1 : 1);
    }
    if ($("close")) {
      $("close").hidden = !open;
      $("close-round").textContent = fmt(T.close, { round: rnd ? rnd.round : "" }) + "…";
    }
    if ($("paper")) $("paper").hidden = !open;
    if ($("decide")) $("decide").hidden = !rnd;
  }

  // ---- writing ----
  function newKey() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return "console-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  async function send(path, body, version, { dryRun = false, key = null } = {}) {
    const headers = { "Content-Type": "application/json", "If-Match": '"' + version + '"' };
    if (key) headers["Idempotency-Key"] = key;
    let answer;
    try {
      answer = await fetch(api + path + (dryRun ? "?dry_run=true" : ""), {
        method: "POST", headers, body: JSON.stringify(body), credentials: "same-origin",
      });
    } catch (e) {
      warn(T.unreachable);
      return null;
    }
    const told = await answer.json().catch(() => ({}));
    if (answer.status === 412) {
      closePreview();
      await refresh();
      warn(T.moved);
      return null;
    }
    if (!answer.ok) {
      const detail = told.detail || answer.statusText;
      const translated = T.lang !== "en" && T.reasons[told.code];
      warn(fmt(T.refused, { detail: translated ? translated + " (" + detail + ")" : detail }));
      return null;
    }
    return { status: answer.status, document: told };
  }

  // A decision: its dry run first, shown; "Confirm" sends it with the dry run's version.
  async function dryRun(round, tail, body, what, origin, done = null) {
    const path = (round === null ? "" : "/rounds/" + round) + tail;
    const version = state.version;
    const answered = await send(path, body, version, { dryRun: true });
    if (!answered) return;
    preview = { path, body, version, key: newKey(), origin, what, done };
    showPreview(answered.document, what);
  }

  function showPreview(outcome, what) {
    $("preview-what").textContent = what;
    $("preview-events").replaceChildren(...outcome.events.map((event) => {
      const shown = Object.entries(event.payload)
        .filter(([, value]) => value !== null && typeof value !== "object")
        .map(([name, value]) => name + ": " + value).join(", ");
      return el("li", {}, el("strong", { text: T.events[event.type] || event.type }), " ",
        el("span", { className: "slip", text: shown }));
    }));
    $("preview-changes").replaceChildren(...changes(outcome.changes).map((line) => el("li", { text: line })));
    $("preview").hidden = false;
    $("preview-confirm").disabled = false;
    $("preview-title").focus();
  }

  function changes(changed) {
    const lines = [];
    if (!changed) return [T.no_change];
    const before = changed.results_before;
    const after = changed.results_after;
    if (before && after) {
      const was = new Map(before.players.map((p) => [p.player_id, p.total]));
      for (const player of after.players) {
        const then = was.get(player.player_id);
        if (then !== player.total) {
          lines.push(fmt(T.round_change, { player: player.name || player.player_id,
            before: then ?? "–", after: player.total ?? "–" }));
        }
      }
      const topOf = (r) => (r.top ? r.top.move + " (" + r.top.score + ")" : T.none);
      if (topOf(before) !== topOf(after)) {
        lines.push(fmt(T.top_change, { before: topOf(before), after: topOf(after) }));
      }
      if (!before.closed && after.closed) lines.push(T.closes);
    }
    const totals = new Map((changed.standings_before || []).map((s) => [s.player_id, s.total]));
    for (const standing of changed.standings_after || []) {
      const then = totals.get(standing.player_id);
      if (then !== standing.total) {
        lines.push(fmt(T.total_change, { player: standing.name || standing.player_id,
          before: then ?? "–", after: standing.total }));
      }
    }
    return lines.length ? lines : [T.no_change];
  }

  function closePreview() {
    $("preview").hidden = true;
    preview = null;
  }

  function restoreFocus(origin) {
    const key = origin && origin.dataset ? origin.dataset.key : null;
    const found = key ? document.querySelector('[data-key="' + CSS.escape(key) + '"]') : null;
    if (found && !found.disabled && found.offsetParent !== null) found.focus();
    else if (origin && origin.isConnected && origin.offsetParent !== null) origin.focus();
    else $("console-status").focus();
  }

  async function confirm() {
    if (!preview) return;
    const sent = preview;
    $("preview-confirm").disabled = true;
    const answered = await send(sent.path, sent.body, sent.version, { key: sent.key });
    if (!answered) { if (preview) $("preview-confirm").disabled = false; return; }
    closePreview();
    await refresh();
    say(answered.status === 201 ? sent.done || T.recorded + " " + sent.what : T.nothing);
    if (sent.origin && sent.origin.id === "decide-preview") $("decide-form").reset();
    if (sent.origin && sent.origin.id === "decide-preview") showFields();
    restoreFocus(sent.origin);
  }

  // ---- the decision form ----
  function showFields() {
    const kind = $("decide-kind").value;
    for (const field of document.querySelectorAll("#decide-form .field")) {
      field.hidden = !field.dataset.for.split(" ").includes(kind);
    }
  }

  function startDecision(kind, player, extra, focusId) {
    $("decide-kind").value = kind;
    showFields();
    if (player) $("decide-player").value = player;
    if (kind === "correction" && extra) $("decide-text").value = extra;
    if (kind === "revoke" && extra) $("decide-event").value = extra;
    $(focusId).focus();
  }

  function decisionOf() {
    const kind = $("decide-kind").value;
    const player = $("decide-player").value;
    const reason = $("decide-reason").value.trim();
    const named = { player: playerName(player), reason };
    if (kind !== "revoke" && !player) return [null, T.player_required, "decide-player"];
    if (!reason) return [null, T.reason_required, "decide-reason"];
    if (kind === "penalty") {
      const points = Number($("decide-points").value);
      if (!Number.isInteger(points) || points < 1 || points > 1000) {
        return [null, T.points_required, "decide-points"];
      }
      return [["/penalties", { player, points, reason }, fmt(T.penalty, { ...named, points })]];
    }
    if (kind === "warning") return [["/warnings", { player, reason }, fmt(T.warning, named)]];
    if (kind === "annul") return [["/annulments", { player, reason }, fmt(T.annul, named)]];
    if (kind === "correction") {
      const text = $("decide-text").value.trim();
      if (!text) return [null, T.text_required, "decide-text"];
      return [["/corrections", { player, text, reason }, fmt(T.correction, { ...named, text })]];
    }
    const event = $("decide-event").value;
    if (!event) return [null, T.decision_required, "decide-event"];
    const label = $("decide-event").selectedOptions[0].textContent;
    return [["/revocations", { event_id: event, reason }, fmt(T.revoke, { decision: label, reason })]];
  }

  // ---- wiring ----
  function wire() {
    const form = $("decide-form");
    if (form) {
      $("decide-kind").addEventListener("change", showFields);
      showFields();
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const [decision, problem, field] = decisionOf();
        if (!decision) { warn(problem, false); $(field).focus(); return; }
        const [tail, body, what] = decision;
        const round = tail === "/revocations" ? null : state.game.round.round;
        dryRun(round, tail, body, what, $("decide-preview"));
      });
    }
    if ($("preview")) {
      $("preview-confirm").addEventListener("click", confirm);
      $("preview-cancel").addEventListener("click", () => {
        const origin = preview && preview.origin;
        closePreview();
        restoreFocus(origin);
      });
    }
    if ($("close-round")) {
      $("close-round").addEventListener("click", (event) => {
        const round = state.game.round.round;
        dryRun(round, "/close", {}, fmt(T.close, { round }), event.currentTarget,
          fmt(T.closed, { round }));
      });
    }
    if ($("draw-form")) wireDraw();
    if ($("paper-form")) wirePaper();
  }

  function showRejected() {
    $("draw-rejected").replaceChildren(...rejected.map((tiles, index) => el("li", {},
      el("span", { className: "slip", text: tiles }), " ",
      el("button", { type: "button", className: "secondary", text: T.remove,
        onclick: () => { rejected.splice(index, 1); showRejected(); $("draw-tiles").focus(); } }))));
  }

  function wireDraw() {
    const submit = $("draw-submit");
    submit.dataset.label = submit.textContent;
    const manual = $("draw-form").dataset.draw !== "seeded";
    if (manual) {
      $("draw-reject").addEventListener("click", () => {
        const tiles = $("draw-tiles").value.trim();
        if (!tiles) { warn(T.tiles_required, false); $("draw-tiles").focus(); return; }
        rejected.push(tiles);
        $("draw-tiles").value = "";
        showRejected();
        $("draw-tiles").focus();
      });
    }
    $("draw-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = {};
      if (manual) {
        const tiles = $("draw-tiles").value.trim();
        if (!tiles) { warn(T.tiles_required, false); $("draw-tiles").focus(); return; }
        body.tiles = tiles;
        if (rejected.length) body.rejected = rejected.slice();
      }
      const minutes = Number($("draw-minutes").value);
      if (minutes > 0) body.deadline = new Date(Date.now() + minutes * 60000).toISOString();
      const rnd = state.game.round;
      const number = rnd ? rnd.round + 1 : 1;
      submit.disabled = true;
      const answered = await send("/rounds/" + number + "/draw", body, state.version, { key: newKey() });
      submit.disabled = false;
      if (!answered) return;
      $("draw-form").reset();
      rejected = [];
      if (manual) showRejected();
      await refresh();
      say(fmt(T.drawn, { round: number, rack: state.game.round ? state.game.round.rack : "" }));
      $(($("paper") && !$("paper").hidden) ? "paper-player" : "console-status").focus();
    });
  }

  function wirePaper() {
    $("paper-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const player = $("paper-player").value;
      const text = $("paper-text").value.trim();
      if (!player) { warn(T.player_required, false); $("paper-player").focus(); return; }
      if (!text) { warn(T.text_required, false); $("paper-text").focus(); return; }
      const body = { player, text, source: "paper" };
      const time = $("paper-time").value;
      if (time) {
        const [h, m, s] = time.split(":").map(Number);
        const when = new Date();
        when.setHours(h, m, s || 0, 0);
        body.received_at = when.toISOString();
      }
      const round = state.game.round.round;
      const answered = await send("/rounds/" + round + "/submissions", body, state.version, { key: newKey() });
      if (!answered) return;
      $("paper-text").value = "";
      $("paper-time").value = "";
      await refresh();
      say(fmt(T.slip_entered, { player: playerName(player) }));
      $("paper-player").focus();
    });
  }

  function follow() {
    const live = new EventSource(api + "/live");
    live.addEventListener("open", () => { $("live-state").textContent = T.live_on; });
    live.addEventListener("error", () => { $("live-state").textContent = T.live_off; });
    for (const kind of ["round_opened", "slip_received", "round_closed", "decision", "game_ended"]) {
      live.addEventListener(kind, () => refresh());
    }
  }

  $("controls").hidden = false;
  wire();
  render();
  follow();
})();
