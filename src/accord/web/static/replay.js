"use strict";
// Per-game replay views with a scrubber (accord.core.replay): a game's view is a list of frames
// in a small vocabulary (grid, facts, messages) and one step per trace event. Loaded before
// app.js, whose helpers (el, api, enc, link, crumbs, show, fmt, sortableTable) it calls; every
// text is inserted as a text node.

const TONES = new Set(["free", "busy", "blocked", "meeting", "current", "moved", "new", "good", "bad", "muted"]);
const tone = (t) => (TONES.has(t) ? ` tone-${t}` : "");

function replayPanel(panel) {
  if (panel.kind === "grid") {
    return el("section", { class: "rv-panel rv-grid" }, el("h3", {}, panel.title),
      el("div", { class: "scroll" }, el("table", { class: "rv-table" },
        el("thead", {}, el("tr", {}, el("th", {}, ""), panel.columns.map((c) => el("th", {}, c)))),
        el("tbody", {}, panel.rows.map((row) => el("tr", {}, el("th", { scope: "row" }, row.label),
          row.cells.map((c) => el("td", { class: `rv-cell${tone(c.tone)}`, title: c.note || null, "data-overlay": c.overlay || null },
            c.text, c.overlay ? el("span", { class: "rv-overlay" }, c.overlay) : null))))))));
  }
  if (panel.kind === "facts") {
    return el("section", { class: "rv-panel rv-facts" }, el("h3", {}, panel.title),
      el("dl", {}, panel.items.map((it) => [el("dt", {}, it.label), el("dd", { class: tone(it.tone).trim() || null }, fmt(it.value))])));
  }
  if (panel.kind === "messages") {
    return el("section", { class: "rv-panel rv-messages" }, el("h3", {}, panel.title),
      panel.items.length ? el("ol", { class: "rv-talk" }, panel.items.map((m) => el("li", { class: m.current ? "rv-msg current" : "rv-msg" },
        el("div", { class: "msg-head" }, `${m.from}${m.to ? " → " + m.to : " → everyone"}${m.channel ? " · " + m.channel : ""}${m.note ? " · " + m.note : ""}`),
        el("div", { class: "bubble" }, m.text || "(empty)"))))
        : el("p", { class: "muted" }, "No messages yet."));
  }
  return el("section", { class: "rv-panel" }, el("p", { class: "muted" }, `(a ${panel.kind} panel this page cannot draw)`));
}

function replayFrame(frame) {
  return el("div", { class: "rv-frame" }, el("h3", { class: "rv-title" }, frame.title), el("div", { class: "rv-panels" }, frame.panels.map(replayPanel)));
}

// The keyboard moves the scrubber of the page shown (one at a time): arrow keys step, Home and
// End jump; keys typed into a text field or a list are left alone, but a ticked check box or a
// pressed button keeps no hold on them (after "show the oracle's schedule" the keys still move).
let activeScrubber = null;
const KEY_CONTROLS = /^(checkbox|radio|button|submit|reset|range)$/;
function typesText(target) {
  if (!target || !target.tagName) return false;
  if (target.isContentEditable || /^(TEXTAREA|SELECT)$/.test(target.tagName)) return true;
  return target.tagName === "INPUT" && !KEY_CONTROLS.test(target.type || "text");
}
document.addEventListener("keydown", (e) => {
  if (!activeScrubber || !document.body.contains(activeScrubber.node)) return;
  const target = e.target;
  if (typesText(target) && !target.classList.contains("rv-range")) return;
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const moves = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
  if (!(e.key in moves)) return;
  e.preventDefault();
  activeScrubber.move(moves[e.key]);
});

// A scrubber over `count` positions; onMove(position) redraws. Returns {node, go, move}.
function scrubber(count, labelOf, onMove, start) {
  const range = el("input", { type: "range", min: 0, max: Math.max(count - 1, 0), value: 0, class: "rv-range", id: "rv-range", "aria-label": "step" });
  const back = el("button", { type: "button", id: "rv-back", title: "previous step (←)" }, "◀");
  const next = el("button", { type: "button", id: "rv-next", title: "next step (→)" }, "▶");
  const where = el("span", { id: "rv-step", class: "rv-where" });
  let pos = 0;
  const go = (p) => {
    pos = Math.max(0, Math.min(count - 1, Number.isFinite(p) ? p : 0));
    range.value = String(pos);
    where.textContent = `step ${pos} of ${count - 1} · ${labelOf(pos)}`;
    back.disabled = pos === 0; next.disabled = pos >= count - 1;
    onMove(pos);
  };
  const move = (d) => go(d === Infinity ? count - 1 : d === -Infinity ? 0 : pos + d);
  range.addEventListener("input", () => go(Number(range.value)));
  back.addEventListener("click", () => move(-1));
  next.addEventListener("click", () => move(1));
  const node = el("div", { class: "rv-scrubber toolbar" }, back, " ", range, " ", next, " ", where);
  const handle = { node, go, move, get pos() { return pos; } };
  activeScrubber = handle;
  go(start);
  return handle;
}

// `accord blame`'s recoverable frontier: a tick on the scrubber at the step of the last
// decision from which a fork still saves the game, and a button that goes there.
function frontierMark(scrub, frontier, count) {
  const at = Math.max(0, Math.min(count - 1, frontier.event));
  const range = scrub.node.querySelector("input.rv-range");
  const ticks = el("datalist", { id: "rv-frontier-ticks" }, el("option", { value: at }));
  if (range) range.setAttribute("list", "rv-frontier-ticks");
  const go = el("button", { type: "button", id: "rv-frontier" }, `go to step ${at}`);
  go.addEventListener("click", () => scrub.go(at));
  return el("p", { class: "rv-frontier muted" }, ticks,
    `Recoverable frontier (accord blame): seat ${frontier.seat}, round ${frontier.round}, turn ${frontier.turn}; after this step no fork saves the game. `, go);
}

// The step in the address, so a step can be linked to: BASE/step/N (replaced, not pushed, so
// the back button leaves the page rather than undoing steps).
function setStepInUrl(base, step) {
  const here = decodeURIComponent(location.hash), page = decodeURIComponent(base);
  // A page still loading when the reader moved on must not take the address back.
  if (here === page || here.startsWith(`${page}/step/`)) history.replaceState(null, "", `${base}/step/${step}`);
}

// The game page's replay: the view, then (after the page is shown) the timeline and transcript
// follow the scrubber. Returns the section and a function to call once they are in the page.
function replaySection(trace, data, base, startStep, frontier) {
  const steps = data.steps;
  const holder = el("div", { class: "rv-view", id: "replay-view" });
  const overlay = el("input", { type: "checkbox", id: "rv-overlay" });
  overlay.addEventListener("change", () => holder.classList.toggle("show-overlay", overlay.checked));
  const hasOverlay = data.frames.some((f) => f.panels.some((p) => p.kind === "grid" && p.rows.some((r) => r.cells.some((c) => c.overlay))));
  let follow = () => {};
  const draw = (step) => {
    holder.replaceChildren(replayFrame(data.frames[steps[step].frame]));
    holder.dataset.step = String(step);
    setStepInUrl(base, step);
    follow(step);
  };
  const labelOf = (i) => steps[i].label;
  const section = el("section", { id: "replay" }, el("h2", {}, "Replay"));
  const scrub = scrubber(steps.length, labelOf, draw, startStep);
  section.append(scrub.node,
    ...(frontier ? [frontierMark(scrub, frontier, steps.length)] : []),
    ...(hasOverlay ? [el("label", { class: "rv-toggle" }, overlay, " show the oracle's schedule (outlined)")] : []),
    holder);
  const attach = () => {
    follow = (step) => followStep(trace, step);
    followStep(trace, scrub.pos);
  };
  return { section, attach };
}

// Highlight the current event in the timeline and the model call behind it in the transcripts,
// each scrolled into view inside its own box (the page itself does not jump).
function followStep(trace, step) {
  const list = document.querySelector(".events-col .timeline");
  if (list) {
    list.querySelectorAll(".ev.current").forEach((li) => li.classList.remove("current"));
    const li = list.querySelector(`.ev[data-step="${step}"]`);
    if (li) { li.classList.add("current"); list.scrollTop = li.offsetTop - list.offsetTop - list.clientHeight / 3; }
  }
  const ev = trace.events[step] || {};
  const seatOf = (e) => (typeof e.seat === "number" ? e.seat : typeof e.agent === "number" ? e.agent : null);
  const seat = seatOf(ev);
  let call = null;
  for (let i = step; i >= 0; i--) {
    const e = trace.events[i];
    if ((e.type === "model_call" || e.type === "model_error") && (seat === null || seatOf(e) === seat)) { call = e; break; }
  }
  const pick = document.querySelector(".transcript-col select");
  if (!call || !pick) return;
  const seatInfo = trace.seats.find((s) => s.seat === call.seat);
  if (seatInfo && pick.value !== seatInfo.name && [...pick.options].some((o) => o.value === seatInfo.name)) {
    pick.value = seatInfo.name;
    pick.dispatchEvent(new Event("change"));
  }
  const box = document.querySelector(".transcript-col .calls");
  if (!box) return;
  box.querySelectorAll(".call.current").forEach((d) => d.classList.remove("current"));
  const details = box.querySelector(`.call[data-call="${call.call}"]`);
  if (details) {
    details.classList.add("current");
    details.open = true;
    box.scrollTop = details.offsetTop - box.offsetTop;
  }
}

// -- two games side by side -------------------------------------------------------------
function sideHref(ra, ta, rb, tb) { return `#/side/${enc(ra)}/${enc(ta)}/${enc(rb)}/${enc(tb)}`; }

// On a game page: pick another game of the run to step beside this one (same scenario first).
function sidePicker(runId, trace, traceId) {
  const holder = el("div", { class: "toolbar", id: "side-picker" });
  api(`/api/runs/${enc(runId)}/games`).then((rows) => {
    const mine = rows.find((r) => r.trace_id === traceId);
    const others = rows.filter((r) => r.trace_id !== traceId && r.game_id === trace.game_id && r.status !== "unreadable" && r.status !== "playing");
    if (!others.length) return;
    const same = (r) => mine && r.scenario && r.scenario === mine.scenario;
    others.sort((x, y) => Number(same(y)) - Number(same(x)));
    const pick = el("select", { id: "side-with", "aria-label": "game to compare with" },
      others.map((r) => el("option", { value: r.trace_id }, `${r.trace_id} · ${r.players || ""}${same(r) ? " (same scenario)" : ""}`)));
    const go = el("button", { type: "button", id: "side-go" }, "Side by side");
    go.addEventListener("click", () => { location.hash = sideHref(runId, traceId, runId, pick.value); });
    holder.replaceChildren("Step beside another game: ", pick, " ", go);
  }).catch(() => {});
  return holder;
}

async function renderSide(ra, ta, rb, tb, startStep) {
  const q = new URLSearchParams({ a_run: ra, a_trace: ta, b_run: rb, b_trace: tb });
  const data = await api("/api/side?" + q);
  const base = sideHref(ra, ta, rb, tb);
  const name = (s) => `${s.run} › ${s.trace_id}`;
  const cols = ["a", "b"].map((k) => {
    const s = data[k];
    return { s, view: el("div", { class: "rv-view", id: `side-${k}` }), where: el("p", { class: "muted rv-where", id: `side-${k}-step` }) };
  });
  const missing = cols.filter((c) => !c.s.replay);
  const draw = (i) => {
    const pair = data.pairs[i];
    cols.forEach((c, k) => {
      const step = pair[k];
      const st = c.s.replay.steps[step];
      c.view.replaceChildren(replayFrame(c.s.replay.frames[st.frame]));
      c.view.dataset.step = String(step);
      c.where.textContent = `event ${step} of ${c.s.replay.steps.length - 1} · ${st.label}`;
    });
    setStepInUrl(base, i);
  };
  const diffs = sortableTable([
    { label: "metric", value: (r) => r.metric },
    { label: "A", value: (r) => r.a, num: true, render: (r) => el("span", { class: "side-a" }, fmt(r.a)) },
    { label: "B", value: (r) => r.b, num: true, render: (r) => el("span", { class: "side-b" }, fmt(r.b)) },
    { label: "B − A", value: (r) => r.diff, num: true, render: (r) => el("span", { class: r.diff ? "side-diff clear-delta" : "side-diff" }, fmt(r.diff)) },
  ], data.metrics);
  show(
    crumbs(link("#/", "Runs"), link(runHref(ra), ra), link(gameHref(ra, ta), ta), "side by side"),
    el("h1", {}, `${name(data.a)} vs ${name(data.b)}`),
    el("p", { class: data.same_scenario ? "muted" : "error", id: "side-scenario" }, data.same_scenario
      ? `Same scenario (${data.a.game_id}, seed ${data.a.seed}): A ${data.a.players} · B ${data.b.players}. Stepped round by round.`
      : `These games were played on different scenarios (A seed ${data.a.seed}, B seed ${data.b.seed}): the rounds line up, the situations do not.`),
    missing.length ? el("p", { class: "error" }, missing.map((c) => c.s.note || "no replay view").join(" · ")) : null,
    data.pairs.length ? scrubber(data.pairs.length, (i) => `round ${data.a.replay.steps[data.pairs[i][0]].mark}`, draw, startStep).node : null,
    el("div", { class: "side-body" }, cols.map((c, k) => el("section", { class: "side-col" },
      el("h2", {}, `${k ? "B" : "A"}: `, link(gameHref(c.s.run, c.s.trace_id), c.s.trace_id), el("span", { class: "muted" }, ` · ${c.s.players}`)), c.where, c.view))),
    el("h2", {}, "Metrics (B − A)"),
    data.metrics.length ? diffs : el("p", { class: "muted" }, "The two games share no numeric metric."),
  );
}
