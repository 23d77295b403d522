"use strict";
// Read-only view of Accord runs. Routes live in the URL hash so every page can be bookmarked
// without server routes: #/ (runs), #/run/RUN (one run), #/run/RUN/game/TRACE (one game),
// #/compare/RUN_A/BATCH_A/RUN_B/BATCH_B (two runs or batches side by side), and the replays of
// replay.js: #/run/RUN/game/TRACE/step/N (a game at one event), #/side/RUN_A/TRACE_A/RUN_B/TRACE_B.
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
  if (window.ACCORD_BUNDLE) return window.ACCORD_BUNDLE.get(path); // static site (bundle.js)
  const res = await fetch(path, { headers: { Accept: "application/json" } });
  if (!res.ok) {
    let detail = res.statusText;
    try { detail = (await res.json()).detail || detail; } catch (_) { /* not JSON */ }
    throw new Error(`${res.status}: ${detail}`);
  }
  return res.json();
}

// An image of the API: in the static site (bundle.js) its copied file.
function asset(path) { return window.ACCORD_BUNDLE ? window.ACCORD_BUNDLE.asset(path) : path; }

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
// (dataTable, with a column chooser and pages, is in tables.js.)
function sortableTable(columns, rows) { return dataTable(columns, rows, {}); }

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
      { label: "playing", value: (r) => r.playing, num: true },
      { label: "state", value: (r) => r.progress ? r.progress.state : null, render: (r) => r.progress ? el("span", { class: `state-${r.progress.state}` }, r.progress.state) : "–" },
      { label: "game ids", value: (r) => r.game_ids.join(", ") },
      { label: "verified", value: (r) => verifiedState(r), render: (r) => verifiedBadge(r) },
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
  const f = (x) => x === null || x === undefined ? "–" : x.toLocaleString("en", { maximumFractionDigits: 3 });
  const num = (x, cls) => el("span", { class: cls || null, "data-value": x === null || x === undefined ? "" : String(x) }, f(x));
  const ci = (lo, hi, cls) => lo === null || lo === undefined ? el("span", { class: cls }, "–")
    : el("span", { class: cls, "data-low": String(lo), "data-high": String(hi) }, `[${f(lo)}, ${f(hi)}]`);
  const p = (x, cls) => el("span", { class: cls, "data-value": x === null ? "" : String(x) }, x === null ? "–" : x.toPrecision(3));
  const clear = (r) => r.mode === "paired" ? r.paired_ci_low > 0 || r.paired_ci_high < 0 : r.unpaired_ci_low > 0 || r.unpaired_ci_high < 0;
  const unmatched = [["A", data.unmatched_a], ["B", data.unmatched_b]].filter(([, ids]) => ids.length).map(([side, ids]) =>
    el("p", { class: "muted unmatched" }, `Unmatched games of ${side} (${ids.length}, left out of the paired differences): ` +
      ids.slice(0, 20).join(", ") + (ids.length > 20 ? " …" : "")));
  const reasons = [...new Set(data.rows.filter((r) => r.mode === "unpaired").map((r) => r.reason))];
  show(
    crumbs(link("#/", "Runs"), "compare"),
    el("h1", {}, `${name(data.a)} vs ${name(data.b)}`),
    el("p", { class: "muted", id: "compare-mode" }, `Comparison: ${data.mode} · ${data.matched} scenarios played on both sides ` +
      `(matched on ${data.matched_on}) · A: ${data.a.games} complete games · B: ${data.b.games} complete games`),
    ...unmatched,
    ...reasons.map((why) => el("p", { class: "muted" }, `unpaired: ${why}`)),
    data.left_out.length ? el("p", { class: "muted", id: "compare-left-out" }, `Left out (one constant value on both sides): ${data.left_out.join(", ")}`) : null,
    el("p", { class: "muted" }, "Δ = B − A: paired = mean over matched scenarios (repeats averaged), CI resampling scenarios, " +
      "sign-flip permutation p; unpaired = every game of each side, each resampled on its own, label-permutation p. " +
      "95% bootstrap CIs; p (Holm) adjusted across the metrics shown; bold where the CI of the comparison made excludes 0."),
    data.rows.length ? sortableTable([
      { label: "game", value: (r) => r.game_id },
      { label: "metric", value: (r) => r.metric },
      { label: "mode", value: (r) => r.mode, render: (r) => el("span", { class: "cmp-mode", title: r.reason || null }, r.mode) },
      { label: "pairs", value: (r) => r.pairs, num: true },
      { label: "A", value: (r) => r.mean_a, render: (r) => num(r.mean_a, "cmp-a"), num: true },
      { label: "B", value: (r) => r.mean_b, render: (r) => num(r.mean_b, "cmp-b"), num: true },
      { label: "Δ (B − A)", value: (r) => r.diff, render: (r) => num(r.diff, clear(r) ? "cmp-diff clear-delta" : "cmp-diff"), num: true },
      { label: "paired CI", value: (r) => r.paired_ci_low, render: (r) => ci(r.paired_ci_low, r.paired_ci_high, "cmp-paired"), num: true },
      { label: "unpaired CI", value: (r) => r.unpaired_ci_low, render: (r) => ci(r.unpaired_ci_low, r.unpaired_ci_high, "cmp-unpaired"), num: true },
      { label: "p", value: (r) => r.p, render: (r) => p(r.p, "cmp-p"), num: true },
      { label: "p (Holm)", value: (r) => r.p_holm, render: (r) => p(r.p_holm, "cmp-holm"), num: true },
    ], data.rows) : el("p", { class: "muted" }, "The two sides share no game and metric with complete games."),
  );
}

// The summary's label and unit of each metric, per game (from /api/games), so the games table
// names and scales a metric exactly as the summary does: "efficiency %" with 72.9, not 0.729.
const METRICS = new Map();

function metricInfo(gameId, key) {
  const known = (METRICS.get(gameId) || []).find((m) => m.key === key);
  return known || null;
}
function metricLabel(m) { return m.label + (m.percent ? " %" : ""); }
function scaled(value, percent) {
  if (typeof value !== "number") return fmt(value);
  return percent ? (value * 100).toLocaleString("en", { maximumFractionDigits: 1 }) : fmt(value);
}
// Cost: "unknown" when any call had no known price (never a partial sum shown as a total).
function costCell(value, known) {
  if (known === false || value === null || value === undefined) return el("span", { class: "muted", title: "a call had no known price (set options.prices)" }, "unknown");
  return value.toLocaleString("en", { maximumFractionDigits: 4 });
}
// mean with its CI after it, kept on one line.
function estimateCell(m) {
  const text = estimate(m);
  const i = text.indexOf(" [");
  return i < 0 ? text : el("span", { class: "est" }, text.slice(0, i), el("span", { class: "ci" }, text.slice(i)));
}
const DEFAULT_METRICS = 5;

function summaryTables(groups) {
  return [...groupBy(groups, (g) => g.game_id)].map(([gameId, gs]) => {
    const metrics = new Map();
    for (const g of gs) for (const [key, m] of Object.entries(g.metrics)) if (!metrics.has(key)) metrics.set(key, metricLabel(m));
    const measured = (key) => gs.some((g) => g.metrics[key] && g.metrics[key].n);
    return el("section", {}, el("h3", {}, gameId), dataTable([
      { key: "batch", label: "batch", value: (g) => g.batch, wrap: true },
      { key: "pairing", label: "pairing", value: (g) => g.pairing, wrap: true },
      { key: "games", label: "games", value: (g) => g.games, render: (g) => `${g.complete}/${g.games}`, num: true },
      { key: "failed", label: "failed", value: (g) => g.failed, num: true, default: gs.some((g) => g.failed) },
      { key: "fallback", label: "fallback %", value: (g) => g.fallback_rate, render: (g) => scaled(g.fallback_rate, true), num: true, default: gs.some((g) => g.fallback_rate != null) },
      { key: "cost", label: "cost $", value: (g) => g.cost_known === false ? null : g.cost_usd, render: (g) => costCell(g.cost_usd, g.cost_known), num: true },
      ...[...metrics].map(([key, label]) => ({ key: `m:${key}`, label, optional: true, default: measured(key), value: (g) => (g.metrics[key] || {}).mean ?? null, render: (g) => estimateCell(g.metrics[key]), num: true })),
    ], gs, { id: `summary:${gameId}` }));
  });
}

function gamesTables(run, rows) {
  return [...groupBy(rows, (r) => r.game_id || "unreadable")].map(([gameId, rs]) => {
    const keys = [...new Set(rs.flatMap((r) => Object.keys(r.metrics || {})))];
    const known = (METRICS.get(gameId) || []).filter((m) => keys.includes(m.key));
    const others = keys.filter((k) => !metricInfo(gameId, k)).sort();
    const measured = known.filter((m) => rs.some((r) => typeof (r.metrics || {})[m.key] === "number"));
    const shownByDefault = new Set(measured.slice(0, DEFAULT_METRICS).map((m) => m.key));
    const batches = new Set(rs.map((r) => r.batch)).size;
    const paid = rs.some((r) => r.input_tokens);
    return el("section", {}, el("h3", {}, `${gameId} (${rs.length})`), dataTable([
      { key: "trace", label: "trace", value: (r) => r.trace_id, render: (r) => link(gameHref(run, r.trace_id), r.trace_id), wrap: true },
      { key: "status", label: "status", value: (r) => r.status, render: (r) => el("span", { class: `status-${r.status}`, title: r.error }, r.status) },
      { key: "batch", label: "batch", value: (r) => r.batch, default: batches > 1, wrap: true },
      { key: "pairing", label: "pairing", value: (r) => r.pairing, wrap: true },
      { key: "players", label: "players", value: (r) => r.players, default: false, wrap: true },
      { key: "seed", label: "seed", value: (r) => r.seed, num: true, default: false },
      { key: "events", label: "events", value: (r) => r.events, num: true, default: false },
      { key: "tokens", label: "tokens", value: (r) => r.input_tokens == null ? null : r.input_tokens + r.output_tokens, num: true, default: paid },
      { key: "cost", label: "cost $", value: (r) => r.cost_usd, render: (r) => (r.status === "complete" || r.status === "failed") ? costCell(r.cost_usd, r.cost_usd != null) : "–", num: true },
      ...known.map((m) => ({ key: `m:${m.key}`, label: metricLabel(m), optional: true, default: shownByDefault.has(m.key), value: (r) => (r.metrics || {})[m.key] ?? null, render: (r) => scaled((r.metrics || {})[m.key], m.percent), num: true })),
      ...others.map((k) => ({ key: `m:${k}`, label: k, title: `metric ${k} as the trace stores it`, default: false, value: (r) => (r.metrics || {})[k] ?? null, num: true })),
    ], rs, { id: `games:${gameId}`, pageSize: 50 }));
  });
}

// Whether `accord verify` re-played the run and its traces are still the ones it checked.
function verifiedState(run) {
  return run.verified ? run.verified.state : "none";
}

function verifiedBadge(run) {
  const state = verifiedState(run);
  const text = { verified: "verified", failed: "verification failed", stale: "changed since verified" }[state] || "not verified";
  return el("span", { class: `verified-${state}`, title: run.verified ? run.verified.detail : "" }, text);
}

async function renderRun(runId) {
  const [runs, rows, games] = await Promise.all([api("/api/runs"), api(`/api/runs/${enc(runId)}/games`), api("/api/games")]);
  for (const g of games) METRICS.set(g.game_id, g.metrics || []);
  const run = runs.find((r) => r.run === runId);
  const hooks = {};
  const gamesHolder = el("div", { id: "games" }, filteredGames(runId, rows, hooks));
  // While the run plays, its progress streams in; the games list follows its counts.
  const refresh = () => api(`/api/runs/${enc(runId)}/games`).then((fresh) => hooks.update(fresh)).catch(() => {});
  show(
    crumbs(link("#/", "Runs"), runId),
    el("h1", {}, runId),
    run.progress ? liveProgress(runId, run, refresh) : null,
    runControlSection(runId, run),
    el("p", { class: "muted" }, `${run.dir} · ${run.games} games, ${run.complete} complete, ${run.failed} failed` + (run.playing ? `, ${run.playing} playing` : "") + (run.unreadable ? `, ${run.unreadable} unreadable` : "")),
    el("p", { id: "verified" }, verifiedBadge(run), run.verified && run.verified.state !== "none" ? ` · ${run.verified.detail}` : ""),
    reproductionSection(runId),
    el("h2", {}, "Summary (mean [95% bootstrap CI] over games)"),
    run.summary ? summaryTables(run.summary) : el("p", { class: "muted" }, "This run has no summary.json."),
    el("h2", {}, "Leaderboard"),
    leaderboardSection(runId),
    el("h2", {}, "Report figures"),
    figuresSection(runId),
    el("h2", {}, "Games"),
    gamesHolder,
  );
}

// A search box (trace, batch, pairing, players, error), a status choice and a metric range
// (in the metric's shown unit: percent metrics are filtered in %).
// `hooks.update(rows)` redraws with new rows (a run in progress), keeping the filter.
// A metric's name in the filter: the summary's label and unit where a game declares it.
function filterLabel(rows, key) {
  const row = rows.find((r) => r.metrics && key in r.metrics && metricInfo(r.game_id, key));
  return row ? metricLabel(metricInfo(row.game_id, key)) : key;
}

function filteredGames(runId, rows, hooks) {
  const metricKeys = [...new Set(rows.flatMap((r) => Object.keys(r.metrics || {})))].sort();
  const text = el("input", { type: "search", placeholder: "search trace, batch, pairing, players", "aria-label": "search games", id: "game-search", size: 36 });
  const status = el("select", { "aria-label": "status", id: "game-status" },
    ["", "complete", "failed", "playing", "unreadable"].map((v) => el("option", { value: v }, v || "any status")));
  const metric = el("select", { "aria-label": "metric", id: "game-metric" },
    el("option", { value: "" }, "any metric"), metricKeys.map((k) => el("option", { value: k }, filterLabel(rows, k))));
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
        const raw = (r.metrics || {})[metric.value];
        const info = metricInfo(r.game_id, metric.value);
        const v = typeof raw === "number" && info && info.percent ? raw * 100 : raw;
        if (typeof v !== "number" || v < lo || v > hi) return false;
      }
      return true;
    });
    count.textContent = `${shown.length} of ${rows.length} games`;
    holder.replaceChildren(...(shown.length ? gamesTables(runId, shown) : [el("p", { class: "muted" }, rows.length ? "No game matches." : "No traces yet.")]));
  };
  for (const input of [text, status, metric, low, high]) input.addEventListener("input", draw);
  if (hooks) hooks.update = (fresh) => { rows = fresh; draw(); };
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
        // Tied players share a rank; a model's 95% rank interval follows in brackets.
        { label: "#", value: (r) => r.rank, num: true, render: (r) => r.rank_low != null && (r.rank_low !== r.rank || r.rank_high !== r.rank) ? `${r.rank} (${r.rank_low}–${r.rank_high})` : String(r.rank) },
        { label: "player", value: (r) => r.player },
        { label: "games", value: (r) => r.games, num: true },
        { label: "MMR", value: (r) => r.mmr, num: true, render: (r) => fmt(r.mmr) },
        ...dims.filter((d) => rs.some((r) => r[`${d}_mean`] !== undefined)).map((d) => ({
          label: d, num: true, value: (r) => r[`${d}_mu`] ?? r[`${d}_mean`],
          render: (r) => r[`${d}_mu`] == null ? `${fmt(r[`${d}_mean`])} (raw mean${r.kind === "model" ? "; unrated" : ""})` : `${fmt(r[`${d}_mu`])} ± ${fmt(r[`${d}_sigma`])} (raw ${fmt(r[`${d}_mean`])})`,
        })),
      ], rs))));
  }).catch((err) => holder.replaceChildren(el("p", { class: "error" }, String(err.message || err))));
  return holder;
}

// A reproduction directory (`accord reproduce`): its reproduction.md and figures, first.
function reproductionSection(runId) {
  const holder = el("section", { id: "reproduction" });
  api(`/api/runs/${enc(runId)}/reproduction`).then((data) => {
    if (!data.markdown) return;
    holder.replaceChildren(
      el("h2", {}, "Reproduction (reproduction.md)"),
      el("div", { class: "md" }, markdown(data.markdown)),
      data.figures.length ? el("div", { class: "figures" }, data.figures.map((n) =>
        el("figure", {}, el("img", { src: asset(`/api/runs/${enc(runId)}/reproduction/${enc(n)}`), alt: n, loading: "lazy" }), el("figcaption", {}, `reproduction/${n}`)))) : null,
    );
  }).catch((err) => holder.replaceChildren(el("p", { class: "error" }, String(err.message || err))));
  return holder;
}

function figuresSection(runId) {
  const holder = el("div", { class: "figures" });
  api(`/api/runs/${enc(runId)}/figures`).then((names) => {
    holder.replaceChildren(...(names.length
      ? names.map((n) => {
        const path = n.split("/").map(enc).join("/");
        return el("figure", {}, el("img", { src: asset(`/api/runs/${enc(runId)}/figures/${path}`), alt: n, loading: "lazy" }), el("figcaption", {}, n));
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
  return el("li", { class: `ev ev-${kind} ${seatClass}`, "data-kind": kind, "data-type": ev.type, "data-step": idx },
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

// -- live runs ---------------------------------------------------------------------------
// Server-sent event streams open on the current page; a route change closes them.
let streams = [];
function openStream(url, handlers) {
  const es = new EventSource(url);
  for (const [name, fn] of Object.entries(handlers)) es.addEventListener(name, (e) => fn(JSON.parse(e.data), es));
  streams.push(es);
  return es;
}
function closeStreams() { streams.forEach((es) => es.close()); streams = []; }

function clockText(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  const s = Math.max(0, Math.round(seconds)), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  const pad = (x) => String(x).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

function progressLine(p) {
  const finished = p.already + p.done + p.failed;
  return `games ${finished}/${p.planned} (failed ${p.failed}, in flight ${p.in_flight}) · calls ${fmt(p.calls)} (retries ${p.retries}, errors ${p.errors}) · ` +
    `tokens ${fmt(p.input_tokens + p.output_tokens)} · cost ${p.cost_usd === null ? "unknown" : "$" + p.cost_usd.toFixed(4)} · elapsed ${clockText(p.elapsed_s)} · ETA ${p.state === "running" ? clockText(p.eta_s) : "–"}`;
}

// The run's progress, live while it plays; `onChange` is called when its game counts move.
function liveProgress(runId, run, onChange) {
  const box = el("div", { class: "progress-box", id: "run-progress" });
  const draw = (p) => {
    const finished = p.already + p.done + p.failed;
    box.replaceChildren(
      el("span", { class: `state-${p.state}`, id: "run-state" }, p.state), " ",
      el("progress", { max: p.planned || 1, value: finished }), " ",
      el("span", { id: "run-progress-line" }, progressLine(p)));
  };
  draw(run.progress);
  if (run.progress.state === "running") {
    let key = "";
    openStream(`/api/runs/${enc(runId)}/live`, {
      progress: (snap) => {
        if (snap.progress) draw(snap.progress);
        const k = `${snap.games}/${snap.complete}/${snap.failed}/${snap.in_flight}`;
        if (k !== key) { key = k; onChange(); }
      },
      end: (_, es) => { es.close(); onChange(); },
    });
  }
  return box;
}

// A game in flight: what its log holds so far, then each event as the runner records it.
function renderLiveGame(runId, traceId, game) {
  const list = el("ol", { class: "timeline", id: "live-timeline" });
  let n = 0;
  const count = el("span", { id: "live-count" }, "0");
  const add = (ev) => { list.append(renderEvent(game, ev, n++)); count.textContent = String(n); };
  game.events.forEach(add);
  show(
    crumbs(link("#/", "Runs"), link(runHref(runId), runId), traceId),
    el("h1", {}, traceId),
    el("p", { class: "muted" }, `${game.game_id} · seed ${game.seed} · started ${game.started_at}`),
    el("p", {}, el("span", { class: `status-${game.status}`, id: "live-status" }, game.status),
      game.status === "playing" ? el("span", { class: "muted" }, " · events appear as they happen; the full trace replaces this page when the game ends") : null),
    el("h2", {}, "Seats"),
    sortableTable([
      { label: "seat", value: (r) => r.seat, num: true }, { label: "name", value: (r) => r.name },
      { label: "agent", value: (r) => r.agent }, { label: "model", value: (r) => r.model },
    ], game.seats),
    el("h2", {}, "Events (", count, ")"),
    list,
  );
  if (game.status !== "playing") return;
  openStream(`/api/runs/${enc(runId)}/games/${enc(traceId)}/stream?since=${n}`, {
    ev: add,
    end: (data, es) => {
      es.close();
      if (data.gone) document.getElementById("live-status").textContent = "gone (no trace was written)";
      else route();
    },
  });
}

async function renderGame(runId, traceId, step) {
  const trace = await api(`/api/runs/${enc(runId)}/games/${enc(traceId)}`);
  if (trace.live) return renderLiveGame(runId, traceId, trace);
  // The game's own replay view (replay.js), when its game declares one.
  const view = await api(`/api/runs/${enc(runId)}/games/${enc(traceId)}/replay`).catch(() => null);
  const replay = view && view.replay && view.replay.steps.length ? replaySection(trace, view.replay, gameHref(runId, traceId), step || 0, view.frontier) : null;
  const scalars = Object.fromEntries(Object.entries(trace.metrics).filter(([, v]) => v === null || typeof v !== "object"));
  const nested = Object.fromEntries(Object.entries(trace.metrics).filter(([, v]) => v !== null && typeof v === "object"));
  const seatRowKeys = [...new Set(trace.seat_rows.flatMap((r) => Object.keys(r)))];
  show(
    crumbs(link("#/", "Runs"), link(runHref(runId), runId), traceId),
    el("h1", {}, traceId),
    el("p", { class: "muted" }, `${trace.game_id} · seed ${trace.seed} · ${trace.started_at} → ${trace.ended_at} · accord ${trace.accord_version}`),
    el("p", {}, el("span", { class: `status-${trace.status}` }, trace.status), trace.error ? el("span", { class: "error" }, " ", trace.error) : null),
    replay ? [replay.section, sidePicker(runId, trace, traceId)] : view && view.note ? el("p", { class: "muted", id: "replay-note" }, view.note) : null,
    el("details", {}, el("summary", {}, "options and run labels"), el("pre", {}, JSON.stringify({ config: trace.config, run: trace.run }, null, 1))),
    el("h2", {}, "Seats"),
    seatsTable(trace),
    el("h2", {}, "Final metrics"),
    keyValueTable(scalars),
    Object.keys(nested).length ? el("details", {}, el("summary", {}, "nested metrics"), el("pre", {}, JSON.stringify(nested, null, 1))) : null,
    trace.seat_rows.length ? [el("h3", {}, "Per seat"), sortableTable(seatRowKeys.map((k) => ({ label: k, value: (r) => r[k] ?? null })), trace.seat_rows)] : null,
    el("details", {}, el("summary", {}, "final state"), el("pre", {}, JSON.stringify(trace.final_state, null, 1))),
    el("div", { class: replay ? "game-body replaying" : "game-body" },
      el("section", { class: "events-col" }, el("h2", {}, `Events (${trace.events.length})`), timeline(trace)),
      el("section", { class: "transcript-col" }, el("h2", {}, "Model transcripts"), transcripts(trace))),
  );
  if (replay) replay.attach();
}

// -- people in the browser (accord serve --play) ------------------------------------------
// #/play/KEY is the lobby (the key was printed by the server); #/seat/TOKEN is one seat.
let timers = [];
function every(ms, fn) { timers.push(setInterval(fn, ms)); }
function stopTimers() { timers.forEach(clearInterval); timers = []; }

async function keyed(path, key, init) {
  const res = await fetch(path, { ...(init || {}), headers: { Accept: "application/json", "Content-Type": "application/json", "X-Accord-Key": key } });
  if (!res.ok) {
    let detail = res.statusText;
    try { detail = (await res.json()).detail || detail; } catch (_) { /* not JSON */ }
    throw new Error(typeof detail === "string" ? detail : JSON.stringify(detail));
  }
  return res.json();
}

// A read-only box holding `text`, selected whole on focus, for copying a link to send.
function copyable(text, label) {
  const box = el("input", { class: "seat-url", readonly: true, value: text, size: 60, "aria-label": label });
  box.addEventListener("focus", () => box.select());
  return box;
}

function seatUrl(token) { return `${location.origin}${location.pathname}#/seat/${enc(token)}`; }

async function renderLobby(key) {
  const games = await keyed("/api/play/games", key);
  const gameSel = el("select", { id: "play-game", "aria-label": "game" }, games.map((g) => el("option", { value: g.game_id }, g.game_id)));
  const seatsBox = el("div", { id: "play-seats", class: "seat-choices" });
  const options = el("textarea", { id: "play-options", rows: 2, cols: 50, placeholder: '{"rounds": 2}  (game options as JSON; empty: defaults)' });
  const seed = el("input", { id: "play-seed", type: "number", min: 0, placeholder: "random", size: 12 });
  const error = el("p", { class: "error", id: "play-error" });
  const tablesBox = el("div", { id: "play-tables" });
  const choices = [];
  const drawSeats = () => {
    const game = games.find((g) => g.game_id === gameSel.value);
    choices.length = 0;
    seatsBox.replaceChildren(...game.seats.map((name, i) => {
      const pick = el("select", { id: `seat-${i}`, "aria-label": `seat ${name}` },
        el("option", { value: "human" }, "a person"),
        game.reference_agents.map((a) => el("option", { value: a }, `reference: ${a}`)),
        el("option", { value: "/model" }, "a model…"));
      const model = el("input", { id: `seat-${i}-model`, placeholder: "provider/model, e.g. mock/schema", size: 28, hidden: true });
      pick.addEventListener("change", () => { model.hidden = pick.value !== "/model"; });
      if (i > 0 && game.reference_agents.length) pick.value = game.reference_agents[0];
      choices.push(() => (pick.value === "/model" ? model.value.trim() : pick.value));
      return el("div", { class: "toolbar" }, el("b", {}, `seat ${name}: `), pick, " ", model);
    }));
  };
  gameSel.addEventListener("change", drawSeats);
  drawSeats();
  let shown = null;
  const drawTables = async () => {
    const tables = await keyed("/api/play/tables", key);
    const text = JSON.stringify(tables);
    if (text === shown) return; // unchanged: keep what the user selected or is copying
    shown = text;
    tablesBox.replaceChildren(...(tables.length ? tables.map((t) => el("section", { class: "table-card", "data-table": t.table },
      el("h3", {}, `${t.game_id} · table ${t.table} · `, el("span", { class: `status-${t.status}` }, t.status)),
      t.error ? el("p", { class: "error" }, t.error) : null,
      el("ul", {}, t.seats.map((st) => el("li", {},
        el("b", {}, st.name), ` — ${st.agent}`,
        st.token ? [" · ", el("a", { href: seatUrl(st.token), class: "seat-link", "data-seat": st.seat, target: "_blank", rel: "noopener" }, "open"),
          " · ", copyable(seatUrl(st.token), `seat ${st.name} link to send`),
          t.status === "complete" || t.status === "failed" ? null : st.joined ? (st.present ? " · here" : " · away") : " · not joined yet"] : null))),
      t.status === "complete" || t.status === "failed" ? el("p", {}, link(gameHref(t.run, t.trace_id), "trace")) : null,
    )) : [el("p", { class: "muted" }, "No tables yet.")]));
  };
  const create = el("button", { type: "button", id: "play-create" }, "Create table");
  create.addEventListener("click", async () => {
    error.textContent = "";
    let opts = {};
    if (options.value.trim()) {
      try { opts = JSON.parse(options.value); } catch (err) { error.textContent = `Options are not JSON: ${err.message}`; return; }
    }
    const body = { game: gameSel.value, seats: choices.map((c) => c()), options: opts };
    if (seed.value !== "") body.seed = Number(seed.value);
    try { await keyed("/api/play/tables", key, { method: "POST", body: JSON.stringify(body) }); await drawTables(); }
    catch (err) { error.textContent = err.message; }
  });
  show(
    crumbs(link("#/", "Runs"), "play"),
    el("h1", {}, "Play in the browser"),
    el("p", { class: "muted" }, "Set up a table: who sits in each seat. Each person's seat gets a link; send it to them (or open it yourself). The game starts when every person has opened theirs. A person sees exactly what a model in that seat would be told."),
    el("div", { class: "toolbar" }, el("b", {}, "game: "), gameSel, " ", el("b", {}, "seed: "), seed),
    seatsBox,
    el("details", {}, el("summary", {}, "game options"), options),
    el("p", {}, create), error,
    el("h2", {}, "Tables"),
    tablesBox,
  );
  await drawTables();
  every(2000, () => drawTables().catch(() => {}));
}

// -- an answer form built from the request's JSON schema ---------------------------------
function alternatives(schema) {
  return (schema.anyOf || []).flatMap((alt) => (alt.anyOf ? alternatives(alt) : [alt]));
}

function altLabel(alt) {
  if (alt.title) return alt.title;
  if (alt.type === "null") return "none";
  const props = alt.properties || {};
  if (props.type && props.type.const !== undefined) return String(props.type.const);
  const keys = Object.keys(props);
  return keys.length ? keys.join(" + ") : String(alt.type || "value");
}

let fieldIds = 0;
// Returns { node, value() } for one schema; labels come from property names.
function schemaInput(schema, label) {
  const id = `f${++fieldIds}`;
  if (!schema || schema === true) {
    const area = el("textarea", { id, rows: 6, cols: 70, "aria-label": label || "answer" });
    return { node: area, value: () => area.value };
  }
  if (schema.anyOf) {
    const alts = alternatives(schema);
    const pick = el("select", { id, "aria-label": `${label || "choice"}: kind` }, alts.map((a, i) => el("option", { value: i }, altLabel(a))));
    const holder = el("div", { class: "alt" });
    let current = null;
    const draw = () => { current = schemaInput(alts[Number(pick.value)], label); holder.replaceChildren(current.node); };
    pick.addEventListener("change", draw);
    draw();
    return { node: el("div", {}, pick, holder), value: () => current.value() };
  }
  if (schema.const !== undefined) return { node: el("span", { class: "muted" }, JSON.stringify(schema.const)), value: () => schema.const };
  if (schema.enum) {
    const pick = el("select", { id, "aria-label": label }, schema.enum.map((v, i) => el("option", { value: i }, String(v))));
    return { node: pick, value: () => schema.enum[Number(pick.value)] };
  }
  switch (schema.type) {
    case "null": return { node: el("span", { class: "muted" }, "(nothing)"), value: () => null };
    case "boolean": {
      const box = el("input", { id, type: "checkbox", "aria-label": label });
      return { node: box, value: () => box.checked };
    }
    case "integer": case "number": {
      const input = el("input", { id, type: "number", step: schema.type === "integer" ? 1 : "any", min: schema.minimum, max: schema.maximum, "aria-label": label, size: 6 });
      return { node: input, value: () => (input.value === "" ? null : Number(input.value)) };
    }
    case "string": {
      const long = !schema.maxLength || schema.maxLength > 120;
      const input = long ? el("textarea", { id, rows: 3, cols: 60, maxlength: schema.maxLength, "aria-label": label })
        : el("input", { id, maxlength: schema.maxLength, "aria-label": label, size: 40 });
      return { node: input, value: () => input.value };
    }
    case "array": {
      const items = [];
      const list = el("ol", { class: "form-array" });
      const add = el("button", { type: "button", class: "small" }, `add ${label ? label.replace(/s$/, "") : "item"}`);
      const redraw = () => { list.replaceChildren(...items.map((it) => it.li)); add.disabled = schema.maxItems !== undefined && items.length >= schema.maxItems; };
      add.addEventListener("click", () => {
        const inner = schemaInput(schema.items, label);
        const remove = el("button", { type: "button", class: "small" }, "remove");
        const item = { li: el("li", {}, inner.node, " ", remove), value: inner.value };
        remove.addEventListener("click", () => { items.splice(items.indexOf(item), 1); redraw(); });
        items.push(item);
        redraw();
      });
      redraw();
      return { node: el("div", {}, list, add, schema.maxItems !== undefined ? el("span", { class: "muted" }, ` (at most ${schema.maxItems})`) : null), value: () => items.map((it) => it.value()) };
    }
    case "object": default: {
      // A model's private "thinking" is not asked of a person: it is sent empty.
      const all = Object.entries(schema.properties || {});
      const props = all.filter(([name]) => name !== "thinking");
      const hidden = all.length > props.length ? [["thinking", ""]] : [];
      const fields = props.map(([name, sub]) => [name, schemaInput(sub, name)]);
      return {
        node: el("div", { class: "form-object" }, fields.map(([name, f]) => el("div", { class: "form-row" }, el("label", {}, name), f.node))),
        value: () => Object.fromEntries([...hidden, ...fields.map(([name, f]) => [name, f.value()])]),
      };
    }
  }
}

// -- one seat ----------------------------------------------------------------------------
async function renderSeat(token) {
  const state = await api(`/api/play/seat/${enc(token)}`);
  const names = Object.fromEntries(state.seats.map((s) => [s.seat, s.name]));
  const status = el("span", { id: "seat-status", class: `status-${state.status}` }, state.status);
  const waiting = el("span", { id: "seat-waiting", class: "muted" });
  const briefing = el("pre", { id: "briefing" }, "(not yet)");
  const request = el("div", { id: "request" }, el("p", { class: "muted" }, "Waiting for your turn…"));
  const messages = el("ol", { id: "messages", class: "timeline" });
  const history = el("div", { id: "history" });
  const result = el("div", { id: "seat-result" });
  let open = null;

  const showRequest = (item) => {
    if (item.system) briefing.textContent = item.system;
    // The game's own controls when it declares them; else a form from the reply's schema
    // (without the model's private "thinking"). Never a raw JSON box for a person.
    const own = item.form.controls ? gameControls(item.form.controls, names, () => checkSoon()) : null;
    const form = own || schemaInput(item.form.schema, item.form.kind);
    const answerText = () => (own || item.form.schema ? JSON.stringify(form.value()) : form.value());
    const error = el("p", { class: "error", id: "answer-error" });
    const check = el("p", { id: "answer-check", class: "muted", "aria-live": "polite" });
    const send = el("button", { type: "button", id: "answer-submit" }, "Send");
    // Checked as it is typed: the server reads the answer as it would on Send, sending nothing.
    let timer = null, asked = 0;
    const checkNow = async () => {
      const mine = ++asked;
      try {
        const res = await fetch(`/api/play/seat/${enc(token)}/check`, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify({ id: item.id, text: answerText() }) });
        const got = res.ok ? await res.json() : { ok: false, error: res.statusText };
        if (mine !== asked || open !== item.id) return;
        check.textContent = got.ok ? "Ready to send." : `Not yet valid: ${got.error}`;
        check.className = got.ok ? "ok" : "error";
        check.dataset.state = got.ok ? "ok" : "invalid";
      } catch (_) { /* the next edit or Send checks again */ }
    };
    const checkSoon = () => { check.dataset.state = "checking"; clearTimeout(timer); timer = setTimeout(checkNow, 200); };
    send.addEventListener("click", async () => {
      error.textContent = "";
      const text = answerText();
      send.disabled = true;
      try {
        const res = await fetch(`/api/play/seat/${enc(token)}/answer`, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify({ id: item.id, text }) });
        if (!res.ok) {
          let detail = res.statusText;
          try { detail = (await res.json()).detail || detail; } catch (_) { /* not JSON */ }
          error.textContent = `Not valid: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`;
        }
      } catch (err) { error.textContent = String(err.message || err); }
      send.disabled = false;
    });
    open = item.id;
    request.replaceChildren(...[
      el("h3", {}, `Your move: ${item.form.kind} · round ${item.round}`),
      // The game's own view of where you stand (its replay view, for your seat only).
      item.view ? el("div", { id: "seat-view", class: "rv-view" }, replayFrame(item.view)) : null,
      item.view ? el("details", {}, el("summary", {}, "What a model in your seat is told"), el("pre", { id: "observation" }, item.observation)) : el("pre", { id: "observation" }, item.observation),
      own ? el("p", { class: "muted" }, item.view ? "Answer with the controls below." : "The text above is what a model in your seat is told; answer with the controls below.") : null,
      !own && item.form.hint ? el("p", { class: "muted" }, item.form.hint) : null,
      el("div", { id: "answer-form", "data-kind": item.form.kind, "data-id": item.id, "data-controls": own ? item.form.controls.game : "schema" }, form.node),
      check, el("p", {}, send), error].filter(Boolean));
    if (own) checkSoon();
  };
  const closeRequest = (item, how) => {
    if (open !== item.id) return;
    const obs = request.querySelector("#observation");
    if (obs) history.prepend(el("details", { class: "past" }, el("summary", {}, `${how} (request ${item.id})`), el("pre", {}, obs.textContent)));
    open = null;
    request.replaceChildren(el("p", { class: "muted", id: "request-wait" }, how === "timed out" ? "You were away: this decision used the game's fallback. Waiting…" : "Sent. Waiting for the others…"));
  };
  const handle = (item) => {
    if (item.type === "request") showRequest(item);
    else if (item.type === "answered") closeRequest(item, `answered in ${item.response_s} s`);
    else if (item.type === "timed_out") closeRequest(item, "timed out");
    else if (item.type === "message") messages.append(el("li", { class: `ev ev-chat seat-${item.from % 6}` },
      el("div", { class: "ev-head" }, el("span", { class: "who" }, names[item.from] ?? String(item.from)), item.channel ? el("span", { class: "tag" }, item.channel) : null, item.round ? el("span", { class: "pos" }, `round ${item.round}`) : null),
      el("div", { class: "bubble" }, item.text || "(empty)")));
    else if (item.type === "end") {
      status.textContent = item.status; status.className = `status-${item.status}`;
      request.replaceChildren(el("p", { id: "game-over" }, `The game is over (${item.status}).`, item.error ? el("span", { class: "error" }, " " + item.error) : null));
      if (item.result) result.replaceChildren(el("h2", {}, "Your result"), keyValueTable(item.result));
      if (typeof item.replay === "string" && item.replay.startsWith("#/run/")) result.append(el("p", {}, el("a", { href: item.replay, id: "seat-replay" }, "Replay the whole game, every seat shown")));
    }
  };
  show(
    el("h1", {}, `${state.game_id} · you are ${state.name}`),
    el("p", {}, status, " ", waiting),
    // The open decision (the game's view of your seat, then the controls) spans the page, so
    // its tables keep their width; the briefing, history and messages share the row below.
    el("section", { class: "seat-request" }, request, result),
    el("div", { class: "game-body" },
      el("section", { class: "events-col" },
        el("details", { open: true }, el("summary", {}, "Your briefing"), briefing),
        el("h3", {}, "Earlier decisions"), history),
      el("section", { class: "transcript-col" }, el("h2", {}, "Messages to you"), messages)),
  );
  let received = 0, ended = false;
  const connect = () => {
    const es = openStream(`/api/play/seat/${enc(token)}/stream?since=${received}`, {
      table: (info) => {
        if (!ended) { status.textContent = info.status; status.className = `status-${info.status}`; }
        waiting.textContent = info.waiting_for.length ? `waiting for ${info.waiting_for.join(", ")} to join` : "";
      },
      item: (item, src) => { received++; handle(item); if (item.type === "end") { ended = true; src.close(); } },
    });
    es.onerror = () => {
      es.close();
      if (!ended && streams.includes(es)) setTimeout(() => { if (streams.includes(es)) connect(); }, 1000);
    };
  };
  connect();
}

const TAGLINE = document.querySelector(".top .muted");
async function route() {
  closeStreams();
  stopTimers();
  const playing = /^#\/(play|seat)\//.test(location.hash);
  if (TAGLINE) TAGLINE.textContent = playing ? "playing in the browser" : "view of run directories";
  show(el("p", { class: "muted" }, "Loading…"));
  try {
    const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
    if (parts[0] === "play" && parts[1]) await renderLobby(parts[1]);
    else if (parts[0] === "seat" && parts[1]) await renderSeat(parts[1]);
    else if (parts[0] === "compare" && parts.length >= 5) await renderCompare(parts[1], parts[2], parts[3], parts[4]);
    else if (parts[0] === "side" && parts.length >= 5) await renderSide(parts[1], parts[2], parts[3], parts[4], parts[5] === "step" ? Number(parts[6]) : 0);
    else if (parts[0] === "run" && parts[2] === "game" && parts[3]) await renderGame(parts[1], parts[3], parts[4] === "step" ? Number(parts[5]) : 0);
    else if (parts[0] === "run" && parts[1]) await renderRun(parts[1]);
    else await renderRuns();
  } catch (err) {
    // A refused page (an unknown run, a comparison of a run with itself) still has a title,
    // and says why in the server's own words.
    show(crumbs(link("#/", "Runs")), el("h1", {}, "This page cannot be shown"), el("p", { class: "error" }, String(err.message || err)));
  }
  window.scrollTo(0, 0);
}

window.addEventListener("hashchange", route);
route();
