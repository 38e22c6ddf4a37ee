/* The player's page, with a script: the deadline counted down, the slip previewed on the
   board as it is typed (POST .../preview: placed and scored, never checked against the word
   list), the slip sent to the API with an Idempotency-Key and its receipt shown in place, and
   the page brought up to date when the arbiter draws or closes a round (the game's live
   stream). Without the script the page is a plain form that posts to itself. Recorded texts
   go into the page with textContent only. */
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("play-data").textContent);
  var words = data.words;
  var asked = 0;
  var waiting = null;
  var timer = null;
  var key = null;
  var keyFor = null;

  function fill(text, values) {
    return text.replace(/%\((\w+)\)s/g, function (_, name) { return String(values[name]); });
  }

  function api(path) {
    return "/api/v1/games/" + encodeURIComponent(data.game) + path;
  }

  function byId(id) { return document.getElementById(id); }

  function part() {
    var chosen = byId("part");
    return chosen ? Number(chosen.value) : 1;
  }

  function asJson(answer) {
    return answer.json().then(function (body) { return { ok: answer.ok, body: body }; });
  }

  function newKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return (b + 256).toString(16).slice(1);
    }).join("");
  }

  /* The deadline, counted down every second. */
  function countdown() {
    var deadline = byId("deadline");
    var shown = byId("countdown");
    if (timer) { clearInterval(timer); timer = null; }
    if (!deadline || !shown) { return; }
    var end = Date.parse(deadline.getAttribute("datetime"));
    function tick() {
      var left = Math.round((end - Date.now()) / 1000);
      shown.hidden = false;
      if (left <= 0) {
        shown.textContent = words.past;
        clearInterval(timer);
        timer = null;
        return;
      }
      var hours = Math.floor(left / 3600);
      var minutes = Math.floor((left % 3600) / 60);
      var seconds = left % 60;
      var time = (hours ? hours + ":" + (minutes < 10 ? "0" : "") : "") + minutes + ":" +
        (seconds < 10 ? "0" : "") + seconds;
      shown.textContent = fill(words.left, { time: time });
    }
    tick();
    timer = setInterval(tick, 1000);
  }

  /* Recorded times in the reader's own time zone (the page says them in UTC). */
  function localTimes() {
    var times = document.querySelectorAll("#play time[datetime]");
    Array.prototype.forEach.call(times, function (time) {
      var moment = new Date(time.getAttribute("datetime"));
      if (!isNaN(moment.getTime())) {
        time.textContent = moment.toLocaleString(document.documentElement.lang);
      }
    });
  }

  /* The preview: tiles drawn on the board, the score and its words beside it. */
  function clearPreview() {
    var drawn = document.querySelectorAll("#board .preview-tile");
    Array.prototype.forEach.call(drawn, function (tile) { tile.remove(); });
    var section = byId("preview");
    if (section) { section.hidden = true; }
  }

  function drawTile(svg, tile, refused) {
    var x = data.margin + tile.col * data.cell;
    var y = data.margin + tile.row * data.cell;
    var group = document.createElementNS(SVG, "g");
    group.setAttribute("class", "preview-tile" + (tile.joker ? " joker" : "") +
      (refused ? " refused" : ""));
    group.setAttribute("data-square", tile.square);
    var rect = document.createElementNS(SVG, "rect");
    rect.setAttribute("x", x + 2);
    rect.setAttribute("y", y + 2);
    rect.setAttribute("width", data.cell - 4);
    rect.setAttribute("height", data.cell - 4);
    rect.setAttribute("rx", 4);
    var letter = document.createElementNS(SVG, "text");
    letter.setAttribute("x", x + data.cell / 2);
    letter.setAttribute("y", y + data.cell / 2 + 7);
    letter.textContent = tile.letter;
    group.appendChild(rect);
    group.appendChild(letter);
    svg.appendChild(group);
  }

  function showPreview(body) {
    clearPreview();
    var svg = document.querySelector("#board svg");
    var refused = body.problems.length > 0;
    if (svg) {
      body.tiles.forEach(function (tile) { drawTile(svg, tile, refused); });
    }
    var list = byId("preview-words");
    list.textContent = "";
    body.words.forEach(function (word) {
      var item = document.createElement("li");
      var factor = word.word_factor > 1 ? " " + fill(words.times, { factor: word.word_factor }) : "";
      item.textContent = word.word + factor + " = " + word.score;
      list.appendChild(item);
    });
    if (body.bingo) {
      var bonus = document.createElement("li");
      bonus.textContent = fill(words.bingo, { points: body.bonus });
      list.appendChild(bonus);
    }
    byId("preview-score").textContent = refused ? "" : fill(words.score, { points: body.score });
    byId("preview-problems").textContent = refused ? words.cannot + " " +
      body.problems.map(function (p) { return data.reasons[p.code] || p.message; }).join("; ") : "";
    byId("preview").hidden = false;
  }

  function preview() {
    var slip = byId("slip");
    var text = slip ? slip.value.trim() : "";
    var number = ++asked;
    if (!text || !data.round || slip.disabled) { clearPreview(); return; }
    fetch(api("/rounds/" + data.round + "/preview"), {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify({ text: text, part: part() })
    }).then(asJson).then(function (answer) {
      if (number !== asked) { return; }
      if (answer.ok) { showPreview(answer.body); } else { clearPreview(); }
    }).catch(function () { if (number === asked) { clearPreview(); } });
  }

  function previewSoon() {
    if (waiting) { clearTimeout(waiting); }
    waiting = setTimeout(preview, 200);
  }

  /* Sending: the API's route, a key kept for the text until it is recorded (a retry after a
     lost answer records nothing twice). */
  function said(text) {
    var problem = byId("send-problem");
    problem.textContent = text;
    problem.hidden = !text;
  }

  function send(event) {
    event.preventDefault();
    var slip = byId("slip");
    var text = slip.value.trim();
    if (!text || !data.round) { return; }
    if (keyFor !== text + "\n" + part()) { key = newKey(); keyFor = text + "\n" + part(); }
    said(words.sending);
    fetch(api("/rounds/" + data.round + "/submissions"), {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify({ text: text, part: part() })
    }).then(asJson).then(function (answer) {
      if (!answer.ok) {
        said(fill(words.failed, { why: data.reasons[answer.body.code] || answer.body.detail || answer.body.title }));
        return;
      }
      key = null;
      keyFor = null;
      said("");
      history.replaceState(null, "", location.pathname + "?receipt=" + answer.body.seq);
      refresh();  // the receipt, as the ledger holds it, shown in place
    }).catch(function () { said(words.offline); });
  }

  /* The page brought up to date: the board and the column beside it made again by the
     server, the slip being typed kept. */
  function refresh() {
    return fetch(location.pathname + location.search, { credentials: "same-origin" })
      .then(function (answer) { return answer.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html");
        var freshData = fresh.getElementById("play-data");
        if (!freshData) { return; }
        var before = data.round;
        var slip = byId("slip");
        var typed = slip ? slip.value : "";
        var focused = document.activeElement && document.activeElement.id;
        var chosen = part();
        ["board", "play"].forEach(function (id) {
          var now = byId(id);
          var made = fresh.getElementById(id);
          if (now && made) { now.replaceWith(document.importNode(made, true)); }
        });
        data = JSON.parse(freshData.textContent);
        words = data.words;
        var again = byId("slip");
        if (again && data.round === before && !again.disabled) {
          again.value = typed;
          if (byId("part")) { byId("part").value = String(chosen); }
        }
        if (focused && byId(focused)) { byId(focused).focus(); }
        localTimes();
        countdown();
        preview();
      });
  }

  document.addEventListener("input", function (event) {
    if (event.target.id === "slip" || event.target.id === "part") { previewSoon(); }
  });
  document.addEventListener("change", function (event) {
    if (event.target.id === "part") { previewSoon(); }
  });
  document.addEventListener("submit", function (event) {
    if (event.target.id === "send") { send(event); }
  });

  localTimes();
  countdown();
  preview();
  if (window.EventSource) {
    var live = new EventSource(api("/live"));
    ["round_opened", "round_closed", "decision", "game_ended"].forEach(function (kind) {
      live.addEventListener(kind, function () { refresh(); });
    });
  }
}());
