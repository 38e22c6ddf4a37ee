// The replay page's script (pipelines/pictures/replay_html.py): it only shows what the page's
// JSON document holds, computed by Arbitru from the ledger. Recorded texts are put in as text
// (textContent), never as markup; nothing is fetched.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var m = data.messages;
  var steps = data.steps;
  var slider = document.getElementById("step");
  var chooser = document.getElementById("player");
  var boards = document.querySelectorAll("#boards .board");
  var names = {};
  data.players.forEach(function (p) { names[p.player_id] = p.name ? p.player_id + " " + p.name : p.player_id; });

  function byId(id) { return document.getElementById(id); }
  function say(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, key) {
      return values[key] === undefined || values[key] === null ? "" : String(values[key]);
    });
  }
  function put(element, text) { element.textContent = text === null || text === undefined ? "" : String(text); }
  function cell(row, text, klass) {
    var td = document.createElement("td");
    put(td, text);
    if (klass) { td.className = klass; }
    row.appendChild(td);
    return td;
  }
  function clear(element) { while (element.firstChild) { element.removeChild(element.firstChild); } }

  function words(s) {
    var shown = s.words.map(function (w) {
      return w.word + " " + w.score + (w.premiums.length ? " (" + w.premiums.join(", ") + ")" : "");
    });
    if (s.bingo) { shown.push(say(m.bingo, { bonus: s.bonus })); }
    if (s.claimed !== null && s.claimed !== undefined) { shown.push(say(m.points_claimed, { claimed: s.claimed })); }
    return shown.join("; ");
  }
  function status(s) {
    var problems = s.problems.map(function (p) { return reason(p.code, p.message); });
    var named = m.status[s.status];
    if (named) { return problems.length && s.status !== "counted" ? named + ": " + problems.join("; ") : named; }
    return problems.length ? problems.join("; ") : s.status;
  }

  // Why a slip does not count: in Romanian from the catalogue, else the engine's own words.
  function reason(code, said) { return (code && data.reasons[code]) || said; }

  function showResults(step) {
    var body = document.querySelector("#submissions tbody");
    var decisions = byId("decisions");
    clear(body);
    clear(decisions);
    var results = step.results === null ? null : data.results[step.results];
    if (results === null) {
      put(byId("round"), m.no_round);
      put(byId("top"), "");
      return;
    }
    put(byId("round"), say(m.round, results) + " (" + (results.closed ? m.closed : m.open) + ")");
    var top = results.top;
    var told = m.no_top;
    if (results.tied.length) { told = say(m.tied, { count: results.tied.length }); }
    else if (top) { told = say(m.top, top) + (top.solo ? " · " + say(m.solo, { player: names[top.solo] || top.solo }) : ""); }
    put(byId("top"), data.anticipation ? "" : told);
    results.players.forEach(function (row) {
      var player = data.rows[row];
      var extra = [];
      if (player.bonus) { extra.push(say(m.solo_bonus, { bonus: player.bonus })); }
      if (player.penalty) { extra.push(say(m.penalty, { points: player.penalty })); }
      if (player.warnings) { extra.push(say(m.warnings, { count: player.warnings })); }
      if (player.replacement) {
        var r = player.replacement;
        extra.push(r.applied ? say(m.replacement, r) : say(m.replacement_ignored, r));
      }
      var rows = player.submissions.length ? player.submissions : [null];
      rows.forEach(function (s, i) {
        var tr = document.createElement("tr");
        tr.setAttribute("data-player", player.player_id);
        cell(tr, i === 0 ? names[player.player_id] || player.player_id : "", "player");
        if (s === null) {
          cell(tr, "", "text");
          cell(tr, "", "move");
          cell(tr, "", "points number");
          cell(tr, extra.join("; "), "detail");
          cell(tr, player.code === "no_submission" ? m.no_submission : reason(player.code, player.message) || m.no_submission, "status");
          tr.className = "zero";
        } else {
          tr.setAttribute("data-seq", s.seq === null ? "" : s.seq);
          cell(tr, s.text, "text");
          cell(tr, s.move, "move");
          cell(tr, s.score, "points number");
          cell(tr, words(s) + (i === 0 && extra.length ? (s.words.length ? "; " : "") + extra.join("; ") : ""), "detail");
          cell(tr, status(s), "status");
          if (!s.score) { tr.className = "zero"; }
        }
        cell(tr, i === 0 ? player.total : "", "total number");
        body.appendChild(tr);
      });
    });
    if (!results.decisions.length) {
      var none = document.createElement("li");
      put(none, m.no_decisions);
      decisions.appendChild(none);
    }
    results.decisions.forEach(function (d) {
      var li = document.createElement("li");
      var said = [m.events[d.type] || d.type];
      if (d.player_id) { said.push(names[d.player_id] || d.player_id); }
      if (d.points) { said.push(d.points); }
      if (d.reason) { said.push(d.reason); }
      if (d.revoked_by) { said.push(m.revoked); }
      put(li, said.join(" · "));
      decisions.appendChild(li);
    });
  }

  function showStandings(step) {
    var body = document.querySelector("#standings tbody");
    clear(body);
    data.standings[step.standings].forEach(function (row) {
      var s = data.rows[row];
      var tr = document.createElement("tr");
      tr.setAttribute("data-player", s.player_id);
      cell(tr, s.rank, "rank number");
      cell(tr, names[s.player_id] || s.player_id, "player");
      cell(tr, s.total, "total number");
      cell(tr, s.solos, "solos number");
      cell(tr, s.warnings, "warnings number");
      cell(tr, s.pct_of_top === null ? "–" : s.pct_of_top.toFixed(2), "pct number");
      body.appendChild(tr);
    });
  }

  function show(index) {
    if (!steps.length) {
      put(byId("where"), m.nothing);
      return;
    }
    index = Math.max(0, Math.min(steps.length - 1, index));
    slider.value = String(index);
    var step = steps[index];
    var own = chooser && step.own ? step.own[chooser.value] : null;
    var spot = own || step;
    for (var i = 0; i < boards.length; i += 1) {
      boards[i].hidden = Number(boards[i].getAttribute("data-board")) !== spot.board;
    }
    var where = say(m.where, { n: index + 1, count: steps.length, seq: step.seq, event: m.events[step.type] || step.type });
    if (step.round !== null) { where += " · " + say(m.in_round, step); }
    if (step.player) { where += " · " + say(m.by_player, { player: names[step.player] || step.player }); }
    put(byId("where"), where);
    document.body.setAttribute("data-seq", String(step.seq));
    put(byId("rack"), say(m.rack, { rack: spot.rack || "–" }));
    put(byId("bag"), say(m.bag, { count: spot.bag }));
    var state = step.ended ? say(m.ended, { reason: step.ended }) : step.over ? say(m.over, { reason: step.over }) : "";
    put(byId("state"), state);
    showResults(step);
    showStandings(step);
  }

  function move(by) { show(Number(slider.value) + by); }

  slider.addEventListener("input", function () { show(Number(slider.value)); });
  byId("previous").addEventListener("click", function () { move(-1); });
  byId("next").addEventListener("click", function () { move(1); });
  if (chooser) { chooser.addEventListener("change", function () { show(Number(slider.value)); }); }
  document.addEventListener("keydown", function (event) {
    if (event.target === chooser) { return; }
    var keys = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
    if (!(event.key in keys)) { return; }
    event.preventDefault();
    var by = keys[event.key];
    show(by === -Infinity ? 0 : by === Infinity ? steps.length - 1 : Number(slider.value) + by);
  });

  if (data.altered) {
    var altered = byId("altered");
    put(altered, say(m.altered, { reason: data.altered }));
    altered.hidden = false;
  }
  put(byId("head"), say(m.head, data.head));
  show(data.start);
}());
