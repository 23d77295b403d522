"use strict";
// Read-only view of Accord runs. Routes live in the URL hash so every page can be bookmarked
// without server routes: #/ (runs), #/run/RUN (one run), #/run/RUN/game/TRACE (one game),
// #/compare/RUN_A/BATCH_A/RUN_B/BATCH_B (two runs or batches side by side).
// Trace text is model output: it is only ever inserted as text nodes, never as HTML.

const main = document.getElementById("main");
const enc = encodeURIComponent;

// Event types the harness records when a reply was unusable or replaced (docs/architecture.md).
const PROBLEM_TYPES = new Set([
  "validation_error", "output_format_warning", "model_error", "heuristic_fallback",
  "decision_auto_filled",
]);
const TEXT_FIELDS = ["speech", "content", "text"];
const SPEAKER_FIELDS = ["seat", "agent", "sender"];
const POSITION_FIELDS = ["phase", "round", "turn", "t"];
const LONG_VALUE = 160;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path) {
  const res = await fetch(path, { headers: { Accept: "application/json" } });
  if (!res.ok) {
    let detail = res.statusText;
    try { detail = (await res.json()).detail || detail; } catch (_) { /* not JSON */ }
    throw new Error(`${res.status}: ${detail}`);
  }
  return res.json();
}

function fmt(value) {
  if (value === null || value === undefined || value === "") return "–";
  if (typeof value === "number") return value.toLocaleString("en", { maximumFractionDigits: 3 });
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

// A summary cell: mean [95% CI], scaled to percent where the game says so (as the CLI table).
function estimate(m) {
  if (!m || !m.n || m.mean === null) return "–";
  const k = m.percent ? 100 : 1;
  const f = (x) => (x * k).toLocaleString("en", { maximumFractionDigits: m.percent ? 1 : 2 });
  if (m.n === 1 || m.ci_low === m.ci_high || m.ci_low === null) return f(m.mean);
  return `${f(m.mean)} [${f(m.ci_low)}, ${f(m.ci_high)}]`;
}

// Replaces the page; children may nest arrays and hold null for "nothing here", as in el().
function show(...children) { main.replaceChildren(el("div", {}, children)); }

function link(href, text) { return el("a", { href }, text); }
function crumbs(...parts) { return el("nav", { class: "crumbs" }, parts.flatMap((p, i) => i ? [" › ", p] : [p])); }
function runHref(run) { return `#/run/${enc(run)}`; }
function gameHref(run, tid) { return `#/run/${enc(run)}/game/${enc(tid)}`; }

// Nulls sort last in both directions, numbers as numbers, anything else as text.
function compare(a, b, asc) {
  const na = a === null || a === undefined, nb = b === null || b === undefined;
  if (na || nb) return na === nb ? 0 : na ? 1 : -1;
  const d = typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b), "en", { numeric: true });
  return asc ? d : -d;
}

// columns: [{label, value: row => raw value, render?: row => node, num?: bool}]
function sortableTable(columns, rows) {
  let sortBy = -1, asc = true;
  const tbody = el("tbody");
  const heads = columns.map((col, i) => {
    const th = el("th", { class: col.num ? "num sortable" : "sortable", title: "click to sort", "aria-sort": "none" }, col.label);
    th.addEventListener("click", () => { asc = sortBy === i ? !asc : true; sortBy = i; draw(); });
    return th;
  });
  function draw() {
    const col = columns[sortBy];
    const shown = col ? [...rows].sort((a, b) => compare(col.value(a), col.value(b), asc)) : rows;
    heads.forEach((th, i) => th.setAttribute("aria-sort", i !== sortBy ? "none" : asc ? "ascending" : "descending"));
    tbody.replaceChildren(...shown.map((row) => el("tr", {}, columns.map((c) =>
      el("td", { class: c.num ? "num" : null }, c.render ? c.render(row) : fmt(c.value(row)))))));
  }
  draw();
  return el("div", { class: "scroll" }, el("table", { class: "data" }, el("thead", {}, el("tr", {}, heads)), tbody));
}

function keyValueTable(obj) {
  return el("table", { class: "kv" }, Object.entries(obj).map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, fmt(v)))));
}

function groupBy(items, key) {
  const out = new Map();
  for (const item of items) {
    const k = key(item);
    if (!out.has(k)) out.set(k, []);
    out.get(k).push(item);
  }
  return out;
}

async function renderRuns() {
  const [runs, games] = await Promise.all([api("/api/runs"), api("/api/games")]);
  show(
    el("h1", {}, "Runs"),
    sortableTable([
      { label: "run", value: (r) => r.run, render: (r) => link(runHref(r.run), r.run) },
      { label: "directory", value: (r) => r.dir },
      { label: "games", value: (r) => r.games, num: true },
      { label: "complete", value: (r) => r.complete, num: true },
      { label: "failed", value: (r) => r.failed + r.unreadable, num: true },
      { label: "game ids", value: (r) => r.game_ids.join(", ") },
    ], runs),
    el("h2", {}, "Compare two runs or batches"),
    compareForm(runs),
    el("h2", {}, "Registered games"),
    keyValueTable(Object.fromEntries(games.map((g) => [g.game_id, g.reference_agents.join(", ")]))),
  );
}

// Sides are a whole run or one batch of it; the choice goes into the URL, so a comparison can
// be bookmarked: #/compare/RUN_A/BATCH_A/RUN_B/BATCH_B (an empty batch = the whole run).
function sideOptions(runs) {
  return runs.flatMap((r) => [
    el("option", { value: JSON.stringify([r.run, ""]) }, `${r.run} (all ${r.games} games)`),
    ...[...new Set((r.summary || []).map((g) => g.batch))].map((b) =>
      el("option", { value: JSON.stringify([r.run, b]) }, `${r.run} › ${b}`)),
  ]);
}

function compareForm(runs) {
  const a = el("select", { "aria-label": "side A", id: "compare-a" }, sideOptions(runs));
  const b = el("select", { "aria-label": "side B", id: "compare-b" }, sideOptions(runs));
  if (b.options.length > 1) b.selectedIndex = 1;
  const go = el("button", { type: "button", id: "compare-go" }, "Compare");
  go.addEventListener("click", () => {
    const [ra, ba] = JSON.parse(a.value), [rb, bb] = JSON.parse(b.value);
    location.hash = `#/compare/${enc(ra)}/${enc(ba)}/${enc(rb)}/${enc(bb)}`;
  });
  return el("div", { class: "toolbar" }, "A ", a, " B ", b, " ", go);
}

async function renderCompare(ra, ba, rb, bb) {
  const q = new URLSearchParams({ a: ra, b: rb });
  if (ba) q.set("a_batch", ba);
  if (bb) q.set("b_batch", bb);
  const data = await api("/api/compare" + "?" + q);
  const name = (side) => side.batch ? `${side.run} › ${side.batch}` : side.run;
  const delta = (r) => {
    const f = (x) => x.toLocaleString("en", { maximumFractionDigits: 3 });
    return `${r.delta > 0 ? "+" : ""}${f(r.delta)} [${f(r.delta_ci_low)}, ${f(r.delta_ci_high)}]`;
  };
  show(
    crumbs(link("#/", "Runs"), "compare"),
    el("h1", {}, `${name(data.a)} vs ${name(data.b)}`),
    el("p", { class: "muted" }, `A: ${data.a.games} complete games · B: ${data.b.games} complete games · ` +
      "mean [95% bootstrap CI] over games; Δ = B − A with its CI (bold where the CI excludes 0)"),
    data.rows.length ? sortableTable([
      { label: "game", value: (r) => r.game_id },
      { label: "metric", value: (r) => r.metric },
      { label: "A", value: (r) => r.a.mean, render: (r) => estimate(r.a), num: true },
      { label: "B", value: (r) => r.b.mean, render: (r) => estimate(r.b), num: true },
      { label: "Δ (B − A)", value: (r) => r.delta, render: (r) => el("span", { class: r.clear ? "clear-delta" : null }, delta(r)), num: true },
    ], data.rows) : el("p", { class: "muted" }, "The two sides share no game and metric with complete games."),
  );
}

function summaryTables(groups) {
  return [...groupBy(groups, (g) => g.game_id)].map(([gameId, gs]) => {
    const metrics = new Map();
    for (const g of gs) for (const [key, m] of Object.entries(g.metrics)) metrics.set(key, m.label + (m.percent ? " %" : ""));
    return el("section", {}, el("h3", {}, gameId), sortableTable([
      { label: "batch", value: (g) => g.batch },
      { label: "pairing", value: (g) => g.pairing },
      { label: "games", value: (g) => g.games, render: (g) => `${g.complete}/${g.games}`, num: true },
      { label: "cost $", value: (g) => g.cost_usd, num: true },
      ...[...metrics].map(([key, label]) => ({ label, value: (g) => (g.metrics[key] || {}).mean ?? null, render: (g) => estimate(g.metrics[key]), num: true })),
    ], gs));
  });
}

function gamesTables(run, rows) {
  return [...groupBy(rows, (r) => r.game_id || "unreadable")].map(([gameId, rs]) => {
    const keys = [...new Set(rs.flatMap((r) => Object.keys(r.metrics)))];
    return el("section", {}, el("h3", {}, `${gameId} (${rs.length})`), sortableTable([
      { label: "trace", value: (r) => r.trace_id, render: (r) => link(gameHref(run, r.trace_id), r.trace_id) },
      { label: "status", value: (r) => r.status, render: (r) => el("span", { class: `status-${r.status}`, title: r.error }, r.status) },
      { label: "batch", value: (r) => r.batch },
      { label: "pairing", value: (r) => r.pairing },
      { label: "players", value: (r) => r.players },
      { label: "seed", value: (r) => r.seed, num: true },
      { label: "events", value: (r) => r.events, num: true },
      { label: "tokens", value: (r) => r.input_tokens == null ? null : r.input_tokens + r.output_tokens, num: true },
      { label: "cost $", value: (r) => r.cost_usd, render: (r) => (r.cost_usd == null && r.status !== "unreadable" ? "unknown" : fmt(r.cost_usd)), num: true },
      ...keys.map((k) => ({ label: k, value: (r) => r.metrics[k] ?? null, num: true })),
    ], rs));
  });
}

async function renderRun(runId) {
  const [runs, rows] = await Promise.all([api("/api/runs"), api(`/api/runs/${enc(runId)}/games`)]);
  const run = runs.find((r) => r.run === runId);
  show(
    crumbs(link("#/", "Runs"), runId),
    el("h1", {}, runId),
    el("p", { class: "muted" }, `${run.dir} · ${run.games} games, ${run.complete} complete, ${run.failed} failed` + (run.unreadable ? `, ${run.unreadable} unreadable` : "")),
    el("h2", {}, "Summary (mean [95% bootstrap CI] over games)"),
    run.summary ? summaryTables(run.summary) : el("p", { class: "muted" }, "This run has no summary.json."),
    el("h2", {}, "Leaderboard"),
    leaderboardSection(runId),
    el("h2", {}, "Report figures"),
    figuresSection(runId),
    el("h2", {}, "Games"),
    rows.length ? filteredGames(runId, rows) : el("p", { class: "muted" }, "No traces yet."),
  );
}

// A search box (trace, batch, pairing, players, error), a status choice and a metric range.
function filteredGames(runId, rows) {
  const metricKeys = [...new Set(rows.flatMap((r) => Object.keys(r.metrics || {})))].sort();
  const text = el("input", { type: "search", placeholder: "search trace, batch, pairing, players", "aria-label": "search games", id: "game-search", size: 36 });
  const status = el("select", { "aria-label": "status", id: "game-status" },
    ["", "complete", "failed", "unreadable"].map((v) => el("option", { value: v }, v || "any status")));
  const metric = el("select", { "aria-label": "metric", id: "game-metric" },
    el("option", { value: "" }, "any metric"), metricKeys.map((k) => el("option", { value: k }, k)));
  const low = el("input", { type: "number", step: "any", placeholder: "min", "aria-label": "metric minimum", id: "game-min", size: 6 });
  const high = el("input", { type: "number", step: "any", placeholder: "max", "aria-label": "metric maximum", id: "game-max", size: 6 });
  const count = el("span", { class: "muted", id: "game-count" });
  const holder = el("div", {});
  const draw = () => {
    const words = text.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const lo = low.value === "" ? -Infinity : Number(low.value), hi = high.value === "" ? Infinity : Number(high.value);
    const shown = rows.filter((r) => {
      const hay = [r.trace_id, r.batch, r.pairing, r.players, r.status, r.error].join(" ").toLowerCase();
      if (!words.every((w) => hay.includes(w))) return false;
      if (status.value && r.status !== status.value) return false;
      if (metric.value) {
        const v = (r.metrics || {})[metric.value];
        if (typeof v !== "number" || v < lo || v > hi) return false;
      }
      return true;
    });
    count.textContent = `${shown.length} of ${rows.length} games`;
    holder.replaceChildren(...(shown.length ? gamesTables(runId, shown) : [el("p", { class: "muted" }, "No game matches.")]));
  };
  for (const input of [text, status, metric, low, high]) input.addEventListener("input", draw);
  draw();
  return [el("div", { class: "toolbar filters" }, text, " ", status, " ", metric, " from ", low, " to ", high, " ", count), holder];
}

function leaderboardSection(runId) {
  const holder = el("div", {}, el("p", { class: "muted" }, "Rating…"));
  api(`/api/runs/${enc(runId)}/leaderboard`).then((data) => {
    if (!data.rows.length) {
      holder.replaceChildren(el("p", { class: "muted" }, data.note || "No rated games in this run."));
      return;
    }
    const dims = [...new Set(data.rows.flatMap((r) => Object.keys(r).filter((k) => k.endsWith("_mean")).map((k) => k.slice(0, -5))))];
    holder.replaceChildren(...[...groupBy(data.rows, (r) => r.game)].map(([game, rs]) => el("section", {},
      el("h3", {}, game),
      sortableTable([
        { label: "kind", value: (r) => r.kind },
        { label: "#", value: (r) => r.rank, num: true },
        { label: "player", value: (r) => r.player },
        { label: "games", value: (r) => r.games, num: true },
        ...dims.filter((d) => rs.some((r) => r[`${d}_mean`] !== undefined)).map((d) => ({
          label: d, num: true, value: (r) => r[`${d}_mu`] ?? r[`${d}_mean`],
          render: (r) => r[`${d}_mu`] == null ? `${fmt(r[`${d}_mean`])} (raw mean${r.kind === "model" ? "; unrated" : ""})` : `${fmt(r[`${d}_mu`])} ± ${fmt(r[`${d}_sigma`])} (raw ${fmt(r[`${d}_mean`])})`,
        })),
      ], rs))));
  }).catch((err) => holder.replaceChildren(el("p", { class: "error" }, String(err.message || err))));
  return holder;
}

function figuresSection(runId) {
  const holder = el("div", { class: "figures" });
  api(`/api/runs/${enc(runId)}/figures`).then((names) => {
    holder.replaceChildren(...(names.length
      ? names.map((n) => {
        const path = n.split("/").map(enc).join("/");
        return el("figure", {}, el("img", { src: `/api/runs/${enc(runId)}/figures/${path}`, alt: n, loading: "lazy" }), el("figcaption", {}, n));
      })
      : [el("p", { class: "muted" }, "No report yet: run accord report on this directory (or accord run --report).")]));
  }).catch((err) => holder.replaceChildren(el("p", { class: "error" }, String(err.message || err))));
  return holder;
}

function seatName(trace, value) {
  const seat = typeof value === "number" ? trace.seats.find((s) => s.seat === value) : null;
  return seat ? seat.name : String(value);
}

function eventKind(ev, speaker, text) {
  if (PROBLEM_TYPES.has(ev.type) || ev.fallback === true || ev.failed === true || ev.ok === false) return "problem";
  if (text !== undefined && speaker !== undefined) return "chat";
  if (/decision|decide|submission|batch_applied/.test(ev.type)) return "decision";
  if (/result|resolution|^(round|phase|game)_end$/.test(ev.type)) return "result";
  if (/_start$/.test(ev.type)) return "marker";
  return "other";
}

// One compact "key: value" per remaining field; long values fold away so the timeline stays readable.
function fieldList(ev, skip) {
  const items = Object.entries(ev).filter(([k]) => !skip.has(k)).map(([k, v]) => {
    const s = typeof v === "string" ? v : JSON.stringify(v);
    if (s.length > LONG_VALUE || s.includes("\n")) {
      return el("details", { class: "field" }, el("summary", {}, `${k} (${s.length} chars)`), el("pre", {}, typeof v === "string" ? v : JSON.stringify(v, null, 1)));
    }
    return el("span", { class: "field" }, el("b", {}, k), ": ", s);
  });
  return items.length ? el("div", { class: "fields" }, items) : null;
}

function renderEvent(trace, ev, idx) {
  const speakerField = SPEAKER_FIELDS.find((f) => ev[f] !== undefined && ev[f] !== null);
  const speaker = speakerField === undefined ? undefined : ev[speakerField];
  const textField = TEXT_FIELDS.find((f) => typeof ev[f] === "string");
  const text = textField === undefined ? undefined : ev[textField];
  const kind = eventKind(ev, speaker, text);
  const pos = POSITION_FIELDS.filter((f) => ev[f] !== undefined && ev[f] !== null).map((f) => `${f} ${ev[f]}`).join(" · ");
  const skip = new Set(["type", "thinking", ...POSITION_FIELDS, speakerField, textField]);
  const seatClass = typeof speaker === "number" ? `seat-${speaker % 6}` : "";
  return el("li", { class: `ev ev-${kind} ${seatClass}`, "data-kind": kind, "data-type": ev.type },
    el("div", { class: "ev-head" },
      el("span", { class: "ev-type" }, ev.type),
      speaker !== undefined ? el("span", { class: "who" }, seatName(trace, speaker)) : null,
      ev.delivered === false ? el("span", { class: "tag" }, "not delivered") : null,
      el("span", { class: "pos" }, `#${idx}${pos ? " · " + pos : ""}`)),
    text !== undefined ? el("div", { class: "bubble" }, text || "(empty)") : null,
    ev.thinking ? el("details", { class: "thinking" }, el("summary", {}, "private thinking"), el("pre", {}, String(ev.thinking))) : null,
    fieldList(ev, skip));
}

function timeline(trace) {
  const list = el("ol", { class: "timeline" });
  const items = trace.events.map((ev, i) => renderEvent(trace, ev, i));
  const counts = new Map();
  for (const ev of trace.events) counts.set(ev.type, (counts.get(ev.type) || 0) + 1);
  const filter = el("select", { "aria-label": "show events" },
    el("option", { value: "" }, `all events (${items.length})`),
    ["chat", "problem", "decision", "result"].map((k) => el("option", { value: `kind:${k}` }, `${k} only`)),
    [...counts].map(([type, n]) => el("option", { value: `type:${type}` }, `${type} (${n})`)));
  const draw = () => {
    const [by, what] = filter.value.split(":");
    list.replaceChildren(...items.filter((li) => !by || li.dataset[by] === what));
  };
  filter.addEventListener("change", draw);
  draw();
  return [el("div", { class: "toolbar" }, "Show ", filter), list];
}

function seatsTable(trace) {
  const rows = trace.seats.map((s) => ({ ...s, ...(trace.usage[s.name] || {}) }));
  if (trace.usage.total) rows.push({ name: "total", ...trace.usage.total });
  const num = (key, label) => ({ label, value: (r) => r[key] ?? null, num: true });
  return sortableTable([
    num("seat", "seat"), { label: "name", value: (r) => r.name }, { label: "agent", value: (r) => r.agent },
    { label: "model", value: (r) => r.model }, num("calls", "calls"), num("attempts", "attempts"),
    num("input_tokens", "input tokens"), num("output_tokens", "output tokens"),
    num("reasoning_tokens", "reasoning tokens"), num("cost_usd", "cost $"), num("latency_s", "latency s"),
  ], rows);
}

// Transcripts: trace.transcripts[seat].messages holds each message once; a model_call or
// model_error event names what it was sent ("sent": [[first, last], ...]) and got ("reply").
function expandRanges(ranges) {
  const out = [];
  for (const [first, last] of ranges || []) for (let i = first; i <= last; i++) out.push(i);
  return out;
}

function messageBlock(index, msg) {
  const title = `#${index} ${msg.role}` + (msg.truncated ? ` (cut from ${msg.truncated} characters)` : "") + (msg.note ? ` · ${msg.note}` : "");
  return el("div", { class: `msg msg-${msg.role}` },
    el("div", { class: "msg-head" }, title),
    msg.reasoning ? el("details", { class: "thinking" }, el("summary", {}, "reasoning"), el("pre", {}, msg.reasoning)) : null,
    el("pre", {}, msg.content || "(empty)"));
}

function seatTranscript(trace, name) {
  const seat = trace.seats.find((s) => s.name === name);
  const messages = trace.transcripts[name].messages;
  const calls = trace.events
    .filter((e) => seat && e.seat === seat.seat && (e.type === "model_call" || e.type === "model_error"))
    .sort((a, b) => (a.call || 0) - (b.call || 0));
  const seen = new Set();
  return el("div", { class: "calls" }, calls.map((ev) => {
    const sent = expandRanges(ev.sent);
    const fresh = sent.filter((i) => !seen.has(i));
    const earlier = sent.filter((i) => seen.has(i));
    sent.forEach((i) => seen.add(i));
    if (ev.reply !== undefined) seen.add(ev.reply);
    const failed = ev.type === "model_error";
    const head = `call ${ev.call} · ${ev.kind || ""}` + (failed ? " · failed" : ` · ${ev.input_tokens ?? "?"} in / ${ev.output_tokens ?? "?"} out tokens · ${ev.attempts ?? 1} attempt(s)`);
    return el("details", { class: `call${failed ? " call-failed" : ""}`, open: calls.length <= 6 || failed, "data-call": ev.call },
      el("summary", {}, head),
      earlier.length ? el("details", { class: "earlier" }, el("summary", {}, `${earlier.length} earlier messages sent again`), earlier.map((i) => messageBlock(i, messages[i]))) : null,
      fresh.map((i) => messageBlock(i, messages[i])),
      (ev.retries || []).map((r) => el("div", { class: "retry" }, `retry after attempt ${r.attempt}: ${r.error} (waited ${r.wait_s} s)`)),
      failed ? el("div", { class: "error" }, ev.error) : messageBlock(ev.reply, messages[ev.reply]));
  }));
}

function transcripts(trace) {
  const names = Object.keys(trace.transcripts || {});
  if (!names.length) return el("p", { class: "muted" }, "No model transcripts in this trace (no model seats, or written before Accord stored them).");
  const holder = el("div", {});
  const pick = el("select", { "aria-label": "seat transcript" }, names.map((n) => el("option", { value: n }, `seat ${n} (${trace.transcripts[n].calls} calls)`)));
  const draw = () => holder.replaceChildren(seatTranscript(trace, pick.value));
  pick.addEventListener("change", draw);
  draw();
  return [el("div", { class: "toolbar" }, "Seat ", pick), holder];
}

async function renderGame(runId, traceId) {
  const trace = await api(`/api/runs/${enc(runId)}/games/${enc(traceId)}`);
  const scalars = Object.fromEntries(Object.entries(trace.metrics).filter(([, v]) => v === null || typeof v !== "object"));
  const nested = Object.fromEntries(Object.entries(trace.metrics).filter(([, v]) => v !== null && typeof v === "object"));
  const seatRowKeys = [...new Set(trace.seat_rows.flatMap((r) => Object.keys(r)))];
  show(
    crumbs(link("#/", "Runs"), link(runHref(runId), runId), traceId),
    el("h1", {}, traceId),
    el("p", { class: "muted" }, `${trace.game_id} · seed ${trace.seed} · ${trace.started_at} → ${trace.ended_at} · accord ${trace.accord_version}`),
    el("p", {}, el("span", { class: `status-${trace.status}` }, trace.status), trace.error ? el("span", { class: "error" }, " ", trace.error) : null),
    el("details", {}, el("summary", {}, "options and run labels"), el("pre", {}, JSON.stringify({ config: trace.config, run: trace.run }, null, 1))),
    el("h2", {}, "Seats"),
    seatsTable(trace),
    el("h2", {}, "Final metrics"),
    keyValueTable(scalars),
    Object.keys(nested).length ? el("details", {}, el("summary", {}, "nested metrics"), el("pre", {}, JSON.stringify(nested, null, 1))) : null,
    trace.seat_rows.length ? [el("h3", {}, "Per seat"), sortableTable(seatRowKeys.map((k) => ({ label: k, value: (r) => r[k] ?? null })), trace.seat_rows)] : null,
    el("details", {}, el("summary", {}, "final state"), el("pre", {}, JSON.stringify(trace.final_state, null, 1))),
    el("div", { class: "game-body" },
      el("section", { class: "events-col" }, el("h2", {}, `Events (${trace.events.length})`), timeline(trace)),
      el("section", { class: "transcript-col" }, el("h2", {}, "Model transcripts"), transcripts(trace))),
  );
}

async function route() {
  show(el("p", { class: "muted" }, "Loading…"));
  try {
    const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
    if (parts[0] === "compare" && parts.length >= 5) await renderCompare(parts[1], parts[2], parts[3], parts[4]);
    else if (parts[0] === "run" && parts[2] === "game" && parts[3]) await renderGame(parts[1], parts[3]);
    else if (parts[0] === "run" && parts[1]) await renderRun(parts[1]);
    else await renderRuns();
  } catch (err) {
    show(crumbs(link("#/", "Runs")), el("p", { class: "error" }, String(err.message || err)));
  }
  window.scrollTo(0, 0);
}

window.addEventListener("hashchange", route);
route();
