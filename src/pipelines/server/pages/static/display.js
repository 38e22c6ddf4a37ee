/* The room's display, kept live: the game's stream (Server-Sent Events) says what happened,
   the public API says what it is now. Every read is the public's (no cookie sent): a display
   opened on an arbiter's laptop shows the room only what anyone may see.

   A notice is handled after the one before it (a queue), so that an older answer never
   overwrites a newer one. The stream resumes from the last notice received: EventSource
   sends Last-Event-ID when it reconnects by itself, and when it gives up (the server
   answered with an error) a new one is opened with ?after=SEQ and everything is read again.
   Recorded texts go into the page with textContent only. */
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("display-data").textContent);
  var words = JSON.parse(document.getElementById("display-words").textContent);
  var game = encodeURIComponent(data.game);
  var api = "/api/v1/games/" + game;
  var lastSeq = data.seq;
  var shownRound = data.results_round;
  var clockOffset = 0; /* the server's clock less ours, read from answers' Date header */
  var queue = Promise.resolve();
  var source = null;

  function byId(id) { return document.getElementById(id); }

  function setText(id, text) {
    var element = byId(id);
    if (element) { element.textContent = text; }
  }

  function getJson(path) {
    return fetch(path, { credentials: "omit", cache: "no-store",
                         headers: { Accept: "application/json" } })
      .then(function (answer) {
        var date = answer.headers.get("Date");
        if (date) { clockOffset = Date.parse(date) - Date.now(); }
        if (!answer.ok) { throw new Error(path + " answered " + answer.status); }
        return answer.json();
      });
  }

  function row(cells, className) {
    var tr = document.createElement("tr");
    if (className) { tr.className = className; }
    cells.forEach(function (cell) {
      var td = document.createElement("td");
      td.textContent = cell.text;
      if (cell.number) { td.className = "number"; }
      if (cell.note) {
        var note = document.createElement("span");
        note.className = "note";
        note.textContent = " " + cell.note;
        td.appendChild(note);
      }
      tr.appendChild(td);
    });
    return tr;
  }

  function fillBody(table, rows) {
    var body = byId(table).tBodies[0];
    body.replaceChildren.apply(body, rows);
  }

  /* The game now: round, rack, deadline, slips, status; the board for its version. */
  function showGame(now) {
    var current = now.round;
    setText("round-number", current ? String(current.round) : "–");
    setText("round-state", current ? (current.closed ? words.closed : words.open) : "");
    setText("rack", current ? current.rack : "");
    var countdown = byId("countdown");
    countdown.dataset.deadline = current && current.deadline && !current.closed
      ? current.deadline : "";
    tick();
    if (current) { setText("slips", String(current.slips)); }
    var status = byId("status");
    status.hidden = now.status === "playing";
    status.textContent = now.status === "playing" ? "" : words.over;
    var board = byId("board");
    if (board) {
      board.src = "/games/" + game + "/display/board?v=" + now.version + "&lang=" + data.lang;
    }
    document.body.dataset.version = String(now.version);
  }

  /* A closed round's results: the top, who found it, the solos, everyone's score. */
  function showResults(document_) {
    var names = {};
    document_.players.forEach(function (p) { names[p.player_id] = p.name || p.player_id; });
    var top = document_.top;
    var found = top ? top.reached_by : [];
    setText("results-title", words.round_results.replace("{round}", String(document_.round)));
    setText("top-move", top ? top.move : "–");
    setText("top-score", top ? String(top.score) : "");
    setText("found-by", found.map(function (p) { return names[p] || p; }).join(", ") || "–");
    var solos = document_.players.filter(function (p) { return p.solo; });
    setText("solos", solos.map(function (p) { return names[p.player_id]; }).join(", ") || "–");
    var players = document_.players.slice().sort(function (a, b) {
      return b.total - a.total || names[a.player_id].localeCompare(names[b.player_id]);
    });
    fillBody("round-table", players.map(function (p) {
      var mark = p.solo ? "solo" : (found.indexOf(p.player_id) >= 0 ? "top" : "");
      var why = p.code ? (data.reasons[p.code] || p.message) : null; /* in the page's language */
      return row([{ text: names[p.player_id], note: why },
                  { text: String(p.total), number: true }], mark);
    }));
    byId("results").hidden = false;
    shownRound = document_.round;
  }

  function showStandings(document_) {
    fillBody("standings", document_.standings.map(function (s) {
      return row([{ text: String(s.rank), number: true }, { text: s.name || s.player_id },
                  { text: String(s.total), number: true }]);
    }));
  }

  function readResults(round) {
    var reads = [getJson(api + "/standings").then(showStandings)];
    if (round) { reads.push(getJson(api + "/rounds/" + round + "/results").then(showResults)); }
    return Promise.all(reads);
  }

  /* Everything read again: on a new stream after the old one gave up. */
  function readAll() {
    return getJson(api).then(function (now) {
      showGame(now);
      var current = now.round;
      var last = !now.rounds_closed || !current ? null
        : (current.closed ? current.round : current.round - 1);
      return readResults(last);
    });
  }

  var handlers = {
    round_opened: function (notice) {
      setText("slips", "0");
      return getJson(api).then(showGame);
    },
    slip_received: function (notice) {
      var shown = byId("round-number").textContent;
      if (String(notice.round) === shown) { setText("slips", String(notice.slips)); }
    },
    round_closed: function (notice) {
      return Promise.all([getJson(api).then(showGame), readResults(notice.round)]);
    },
    decision: function (notice) {
      /* an open round's decisions change nothing the public sees until it closes */
      var round = notice.round && notice.round <= (shownRound || 0) ? shownRound : null;
      return Promise.all([getJson(api).then(showGame), readResults(round)]);
    },
    game_ended: function () {
      return getJson(api).then(showGame);
    },
  };

  function follow(kind, event) {
    var seq = Number(event.lastEventId);
    queue = queue.then(function () {
      if (seq && seq <= lastSeq) { return null; } /* told already (before a reconnection) */
      return Promise.resolve(handlers[kind](JSON.parse(event.data))).then(function () {
        if (seq) { lastSeq = seq; }
        document.body.dataset.seq = String(lastSeq);
      });
    }).catch(function (error) {
      console.warn("display: " + error.message); /* the next notice or reconnection reads again */
    });
  }

  function connect(resumed) {
    source = new EventSource("/api/v1/games/" + game + "/live?after=" + lastSeq);
    Object.keys(handlers).forEach(function (kind) {
      source.addEventListener(kind, function (event) { follow(kind, event); });
    });
    source.addEventListener("open", function () {
      byId("live").hidden = true;
      if (resumed) {
        resumed = false;
        queue = queue.then(readAll).catch(function (error) {
          console.warn("display: " + error.message);
        });
      }
    });
    source.addEventListener("error", function () {
      byId("live").hidden = false;
      if (source.readyState === EventSource.CLOSED) { /* it will not retry: we do */
        source.close();
        window.setTimeout(function () { connect(true); }, 2000);
      }
    });
  }

  function two(n) { return (n < 10 ? "0" : "") + n; }

  function tick() {
    var countdown = byId("countdown");
    var deadline = countdown.dataset.deadline;
    if (!deadline) { countdown.textContent = "–"; countdown.classList.remove("late"); return; }
    var left = Math.round((Date.parse(deadline) - (Date.now() + clockOffset)) / 1000);
    if (left <= 0) {
      countdown.textContent = words.times_up;
      countdown.classList.add("late");
      return;
    }
    countdown.classList.toggle("late", left <= 30);
    var hours = Math.floor(left / 3600);
    var minutes = Math.floor((left % 3600) / 60);
    countdown.textContent = (hours ? hours + ":" + two(minutes) : String(minutes)) + ":" +
      two(left % 60);
  }

  function fullScreenButton() {
    var button = byId("fullscreen");
    if (!document.fullscreenEnabled) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      if (document.fullscreenElement) { document.exitFullscreen(); }
      else { document.documentElement.requestFullscreen(); }
    });
    document.addEventListener("fullscreenchange", function () {
      button.textContent = document.fullscreenElement ? words.leave_full_screen : words.full_screen;
    });
  }

  document.body.dataset.seq = String(lastSeq);
  document.body.dataset.version = String(data.version);
  fullScreenButton();
  tick();
  window.setInterval(tick, 250);
  connect(false);
})();
