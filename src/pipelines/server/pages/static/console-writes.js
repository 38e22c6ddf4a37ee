// The arbiter's console, its writes: every one carries the game version the console last
// showed (If-Match), so that an arbiter never records over what another wrote meanwhile (the
// API answers 412, and the console says so and shows the game as it now is). Every decision
// (and closing the round) is sent first as a dry run (?dry_run=true) and shown; only "Confirm"
// sends it for real, with the version the dry run was made on and an Idempotency-Key (a retry
// records it once). Draws and paper slips are sent at once. The view is console.js's.
(() => {
  "use strict";
  const C = window.arbitruConsole;
  if (!C) return;
  const { T, api, $, el, fmt, say, warn, refresh, playerName } = C;
  let preview = null; // {path, body, version, key, origin, what, done}
  let rejected = [];

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
    const version = C.state().version;
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
    $("preview-stale").textContent = "";
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
    if (sent.origin && sent.origin.id === "decide-preview") {
      $("decide-form").reset(); // recorded: the form is free for the next decision
      showFields();
    }
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

  // the buttons in the tables of slips, decisions and tied tops (made by the view)
  function act(button) {
    const { action, player, text, event, move } = button.dataset;
    if (action === "annul") startDecision("annul", player, null, "decide-reason");
    else if (action === "correction") startDecision("correction", player, text, "decide-text");
    else if (action === "revoke") startDecision("revoke", null, event, "decide-reason");
    else if (action === "top") {
      dryRun(C.state().game.round.round, "/top", { move }, fmt(T.top, { move }), button);
    }
  }

  // the game shown again (live) while a dry run waits: say that confirming it would be refused
  document.addEventListener("arbitru:shown", () => {
    if (preview && preview.version !== C.state().version) $("preview-stale").textContent = T.stale;
  });

  // ---- wiring ----
  function wire() {
    document.querySelector(".console-state").addEventListener("click", (event) => {
      const button = event.target.closest("button[data-action]");
      if (button) act(button);
    });
    const form = $("decide-form");
    if (form) {
      $("decide-kind").addEventListener("change", showFields);
      showFields();
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const [decision, problem, field] = decisionOf();
        if (!decision) { warn(problem, false); $(field).focus(); return; }
        const [tail, body, what] = decision;
        const round = tail === "/revocations" ? null : C.state().game.round.round;
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
        const round = C.state().game.round.round;
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
      const rnd = C.state().game.round;
      const number = rnd ? rnd.round + 1 : 1;
      submit.disabled = true;
      const answered = await send("/rounds/" + number + "/draw", body, C.state().version, { key: newKey() });
      submit.disabled = false;
      if (!answered) return;
      $("draw-form").reset();
      rejected = [];
      if (manual) showRejected();
      await refresh();
      say(fmt(T.drawn, { round: number, rack: C.state().game.round ? C.state().game.round.rack : "" }));
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
      const round = C.state().game.round.round;
      const answered = await send("/rounds/" + round + "/submissions", body, C.state().version, { key: newKey() });
      if (!answered) return;
      $("paper-text").value = "";
      $("paper-time").value = "";
      await refresh();
      say(fmt(T.slip_entered, { player: playerName(player) }));
      $("paper-player").focus();
    });
  }

  wire();
})();
