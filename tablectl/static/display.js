"use strict";
// The pit display: logs in, follows the table's stream, lists rounds, shows audits.
(function () {
  const $ = (id) => document.getElementById(id);
  let me = null;
  let source = null;
  let newestListed = 0;  // the newest round in the list of rounds
  let loading = false;
  let currentRound = 0;

  function text(el, value) { el.textContent = value; }
  function card(code) {
    const span = document.createElement("span");
    span.className = "card" + (/[HD]$/.test(code) ? " red" : "");
    span.textContent = code;
    return span;
  }
  function cardsInto(el, cards) {
    el.replaceChildren(...cards.map(card));
    if (!cards.length) text(el, "–");
  }
  function total(value, soft) { return (soft ? "soft " : "") + value; }
  function signed(n) { return (n >= 0 ? "+" : "") + n; }

  async function call(method, path, body) {
    const headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (method !== "GET" && me && me.csrf) headers["X-CSRF-Token"] = me.csrf;
    const response = await fetch(path, { method, headers, credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body) });
    let answer = {};
    try { answer = await response.json(); } catch (e) { answer = {}; }
    return { status: response.status, answer };
  }

  async function start() {
    const { status, answer } = await call("GET", "/me");
    if (status !== 200) { showLogin(); return; }
    me = answer;
    $("login").hidden = true;
    $("table-view").hidden = false;
    $("me").replaceChildren(document.createTextNode(me.user + " (" + me.role + ") "));
    const out = document.createElement("button");
    out.id = "logout"; out.textContent = "log out";
    out.onclick = async () => { await call("POST", "/logout"); location.reload(); };
    $("me").appendChild(out);
    follow();
    loadRounds();
    route();
    loadFloor();
    watchCamera();
  }

  // The camera's state and the house deck being learnt change with the frames, not with
  // the table: asked for every few seconds.
  const CAMERA_EVERY_MS = 3000;
  let cameraTimer = null;
  async function watchCamera() {
    clearTimeout(cameraTimer);
    const { status, answer } = await call("GET", "/state");
    if (status === 200) showCamera(answer.camera);
    cameraTimer = setTimeout(watchCamera, CAMERA_EVERY_MS);
  }

  function showCamera(camera) {
    $("camera").hidden = !camera;
    if (!camera) return;
    let line = "camera (" + camera.role + ") " + (camera.state === "ok" ? "ok" : "DEGRADED: " + camera.reason);
    const deck = camera.house_deck;
    if (deck) {
      line += " · house deck " + (deck.state === "in use"
        ? "in use (" + (deck.from === "file" ? "loaded" : "learnt from play") + (deck.saved ? ")" : ", not saved yet)")
        : "learning: " + deck.cards_learnt + " of " + deck.cards + " cards, " + deck.exemplars + " exemplars" +
          (deck.missing.length && deck.missing.length <= 8 ? " (missing " + deck.missing.join(" ") + ")" : ""));
      if (deck.problem) line += " · " + deck.problem;
      if (deck.look_alikes && deck.look_alikes.length)
        line += " · not witnessed (seen misread here): " + deck.look_alikes.join(", ");
    }
    if (camera.doubted) line += " · " + camera.doubted + " reads doubted (the shoe's card possible)";
    $("camera").className = "camera" + (camera.state === "ok" ? "" : " degraded");
    text($("camera-text"), line);
    $("relearn").hidden = !(deck && me && (me.role === "pit" || me.role === "admin"));
  }

  $("relearn").addEventListener("click", async () => {
    if (!confirm("Set the learnt house deck aside and learn the deck on the table again?")) return;
    const { status, answer } = await call("POST", "/camera/house-deck/relearn", {});
    if (status !== 200) text($("camera-text"), answer.error || ("failed (" + status + ")"));
    else watchCamera();
  });

  function showLogin() {
    $("login").hidden = false;
    $("table-view").hidden = true;
    text($("status"), "not logged in");
  }

  $("login-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const { status, answer } = await call("POST", "/login",
      { user: $("login-user").value, password: $("login-password").value });
    if (status === 200) { text($("login-error"), ""); start(); }
    else text($("login-error"), answer.error || ("login failed (" + status + ")"));
  });

  function follow() {
    if (source) source.close();
    source = new EventSource("/display/stream");
    source.onopen = () => text($("status"), "live");
    source.onerror = () => text($("status"), "reconnecting…");
    source.onmessage = (message) => show(JSON.parse(message.data));
  }

  function show(state) {
    const view = state.view, due = state.due;
    text($("round"), view.round);
    text($("phase"), view.phase + (view.halted ? " — HALTED" : ""));
    const shoe = state.shoe;
    const shoeEl = $("shoe");
    shoeEl.className = "shoe" + (shoe.online ? "" : " offline");
    text(shoeEl, "shoe " + (shoe.online ? "online" : "OFFLINE") + " · " + shoe.cards_left +
      " of " + shoe.size + " cards left · penetration " + (100 * shoe.penetration).toFixed(1) +
      "%" + (shoe.cut_card_out ? " · CUT CARD out: new shoe after this round" : ""));
    cardsInto($("dealer"), view.dealer);
    text($("dealer-total"), view.dealer.length ? total(view.dealer_total, view.dealer_soft) : "");
    const instruction = $("instruction");
    instruction.className = "instruction" + (state.instruction ? " " + state.instruction.toLowerCase() : "");
    text(instruction, state.instruction || "");
    instruction.dataset.round = view.round;
    showBoxes(view, state.lamps, state.net);
    showFlags(state);
    // A round is recorded when the next begins, and stored a moment after this
    // update: the list is asked again until it holds the round before this one.
    currentRound = view.round;
    if (currentRound - 1 > newestListed && !loading) loadRounds();
    document.body.dataset.seq = state.journal_seq;
    // The latency benchmark (benchmarks/bench_display_latency.py) collects these.
    if (window.tablectlLatencies) window.tablectlLatencies.push(Date.now() / 1000 - state.changed_at);
  }

  function showBoxes(view, lamps, net) {
    const boxes = view.boxes.map((box) => {
      const el = document.createElement("div");
      const lamp = lamps[String(box.number)] || "off";
      el.className = "box" + (lamp === "turn" ? " turn" : "");
      el.id = "box-" + box.number;
      const head = document.createElement("h3");
      head.textContent = "Box " + box.number;
      const lampEl = document.createElement("span");
      lampEl.className = "lamp " + lamp; lampEl.textContent = lamp;
      head.appendChild(lampEl);
      el.appendChild(head);
      const bets = document.createElement("div");
      bets.className = "meta";
      bets.textContent = "bets: " + (box.bets.map((b) => b[0] + " " + b[1] + " " + b[2]).join(", ") || "–");
      el.appendChild(bets);
      const owner = "box" + box.number;
      if (net[owner] !== undefined) {
        const payout = document.createElement("div");
        payout.className = "payout " + (net[owner] > 0 ? "net-pos" : net[owner] < 0 ? "net-neg" : "");
        payout.textContent = "net " + signed(net[owner]);
        el.appendChild(payout);
      }
      for (const hand of box.hands) {
        const h = document.createElement("div");
        h.className = "hand";
        const cards = document.createElement("span"); cards.className = "cards";
        cardsInto(cards, hand.cards);
        h.appendChild(cards);
        const info = document.createElement("div"); info.className = "meta";
        const stakes = hand.stakes.map((s) => s[0] + " " + s[1]).join(", ");
        info.textContent = total(hand.total, hand.soft) + " · " + hand.status +
          (hand.result ? " · " + hand.result : "") + (stakes ? " · stakes " + stakes : "");
        h.appendChild(info);
        el.appendChild(h);
      }
      return el;
    });
    $("boxes").replaceChildren(...boxes);
  }

  function showFlags(state) {
    const open = state.open_flags;
    $("flags").hidden = !open.length && !state.view.halted;
    $("flag-list").replaceChildren(...open.map((flag) => {
      const li = document.createElement("li");
      li.textContent = flag.code + ": " + flag.meaning;
      return li;
    }));
    const actions = $("pit-actions");
    if (!state.pit_may.length) { actions.replaceChildren(); return; }
    if (!me.may_resolve) {
      actions.replaceChildren(document.createTextNode("Waiting for the pit: " +
        state.pit_may.map((p) => p.meaning).join(" or ") + "."));
      return;
    }
    actions.replaceChildren(...state.pit_may.map((p) => {
      const b = document.createElement("button");
      b.id = "resolve-" + p.resolve;
      b.textContent = p.resolve === "void" ? "Void round" : "Accept";
      b.title = p.meaning;
      b.onclick = () => resolve(p.resolve);
      return b;
    }));
  }

  async function resolve(what) {
    const id = "display-" + me.user + "-" + Date.now() + "-" + Math.random().toString(36).slice(2);
    const { status, answer } = await call("POST", "/events", { event: { resolve: what }, id });
    text($("action-result"), status === 200 ? (answer.accepted ? what + " done" : answer.reason)
      : (answer.error || ("refused (" + status + ")")));
  }

  async function loadRounds() {
    loading = true;
    let status, answer;
    try {
      ({ status, answer } = await call("GET", "/display/rounds"));
    } finally {
      setTimeout(() => { loading = false; }, 100);
    }
    if (status !== 200) return;
    newestListed = answer.rounds.length ? answer.rounds[0].round : 0;
    if (currentRound - 1 > newestListed) setTimeout(loadRounds, 250);
    const rows = answer.rounds.map((r) => {
      const tr = document.createElement("tr");
      tr.id = "round-" + r.round;
      const link = document.createElement("a");
      link.href = "#/round/" + r.round; link.textContent = r.round;
      const cells = [link, r.status, netText(r.net), r.flags.join(", ")];
      for (const c of cells) {
        const td = document.createElement("td");
        if (typeof c === "string") td.textContent = c; else td.appendChild(c);
        tr.appendChild(td);
      }
      return tr;
    });
    $("rounds").tBodies[0].replaceChildren(...rows);
  }

  // The floor beside the table ([mqtt] floor_url): asked every 2 s while logged in;
  // a table that shows no floor answers 404 once and the section stays hidden.
  let floorTimer = null;
  async function loadFloor() {
    if (floorTimer) { clearTimeout(floorTimer); floorTimer = null; }
    let status, answer;
    try {
      ({ status, answer } = await call("GET", "/display/floor"));
    } catch (e) {
      status = 0;
    }
    if (status === 404 || status === 401) { $("floor").hidden = true; return; }
    floorTimer = setTimeout(loadFloor, 2000);
    if (status !== 200) { text($("floor-error"), "the table does not answer"); return; }
    $("floor").hidden = false;
    text($("floor-error"), answer.error || "");
    const floor = answer.floor;
    if (!floor) return;  // the floor is away: its last picture stays, with the error above
    text($("floor-head"), "broker " + floor.broker + " · shift since " + floor.shift +
      (floor.error ? " · " + floor.error : ""));
    const rows = floor.tables.map((row) => {
      const tr = document.createElement("tr");
      tr.id = "floor-" + row.table;
      if (row.table === answer.table) tr.className = "this-table";
      const notes = [];
      if (row.missing > 0) notes.push(row.missing + " event(s) missing, asked again");
      if (row.problem) notes.push(row.problem);
      const cells = [[row.table], [row.status, "status-" + row.status], [row.profile ?? "–"],
        [row.round ?? "–", "n"], [row.phase ?? "–"],
        [signed(row.shift_net), "n " + (row.shift_net > 0 ? "net-pos" : row.shift_net < 0 ? "net-neg" : "")],
        [row.shift_rounds, "n"], [row.last_event_s === null ? "–" : row.last_event_s + " s", "n"],
        [(row.open_flags || []).join(", ") || "–", (row.open_flags || []).length ? "flagged" : ""],
        [notes.join("; ")]];
      for (const [value, cls] of cells) {
        const td = document.createElement("td");
        td.textContent = String(value);
        if (cls) td.className = cls;
        tr.appendChild(td);
      }
      return tr;
    });
    $("floor-tables").tBodies[0].replaceChildren(...rows);
    text($("floor-house"), signed(floor.house));
  }

  function netText(net) {
    return Object.entries(net).map(([who, n]) => who + " " + signed(n)).join("  ") || "–";
  }

  async function showAudit(number) {
    const { status, answer } = await call("GET", "/display/rounds/" + number);
    $("audit").hidden = false;
    text($("audit-round"), number);
    if (status !== 200) { text($("audit-summary"), answer.error || "not found"); return; }
    text($("audit-summary"), answer.status + (answer.flags.length ? " · " + answer.flags.join(", ") : "") +
      " · net " + netText(answer.net));
    const rows = answer.events.map((e) => {
      const tr = document.createElement("tr");
      if (e.pit_action) tr.className = "pit";
      const when = e.at ? new Date(e.at * 1000).toISOString().replace("T", " ").slice(0, 23) : "–";
      const from = e.source + (e.ref ? " (" + e.ref + ")" : "");
      for (const c of [String(e.seq), when, from, JSON.stringify(e.event)]) {
        const td = document.createElement("td"); td.textContent = c; tr.appendChild(td);
      }
      return tr;
    });
    $("audit-events").tBodies[0].replaceChildren(...rows);
  }

  function route() {
    const match = /^#\/round\/(\d+)$/.exec(location.hash);
    if (match && me) showAudit(match[1]); else $("audit").hidden = true;
  }
  window.addEventListener("hashchange", route);
  $("audit-close").addEventListener("click", (e) => { e.preventDefault(); location.hash = ""; });
  start();
})();
