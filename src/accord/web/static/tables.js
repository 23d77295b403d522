"use strict";
// Data tables of the web view: sortable, with a column chooser and pages, fitted to the window.
// Loaded before app.js, whose helpers (el, fmt, compare) they call; cells are built as
// elements and text nodes only.

// Per-table view state (sort, page) kept across redraws of a live run; the chosen columns are
// kept in the browser (localStorage), per table id, so they survive a reload.
const VIEW = new Map();
const PAGE_SIZES = [25, 50, 100, 200];

function storedColumns(id) {
  try { const v = JSON.parse(localStorage.getItem(`accord.columns.${id}`)); return Array.isArray(v) ? v : null; } catch (_) { return null; }
}
function storeColumns(id, keys) {
  try { if (keys) localStorage.setItem(`accord.columns.${id}`, JSON.stringify(keys)); else localStorage.removeItem(`accord.columns.${id}`); } catch (_) { /* private mode */ }
}

// A sortable table. With opts.id, a column chooser (columns carry `key` and `default`) and,
// with opts.pageSize, pages. Left to its defaults, a table narrower than its box is kept: the
// last default columns are hidden until it fits, and the chooser says so.
function dataTable(columns, rows, opts) {
  const id = opts.id;
  const state = (id && VIEW.get(id)) || { sortBy: null, asc: true, page: 0, pageSize: opts.pageSize || 0 };
  if (id) VIEW.set(id, state);
  const chosen = id ? storedColumns(id) : null;
  let visible = columns.filter((c) => !id || (chosen ? chosen.includes(c.key) : c.default !== false));
  if (!visible.length) visible = columns.slice(0, 1);
  const box = el("div", { class: "scroll" });
  const wrap = el("div", { class: "data-table", "data-table": id || null });
  const tools = el("div", { class: "toolbar table-tools" });
  const fitNote = el("span", { class: "muted fit-note" });

  function sortedRows() {
    const col = columns.find((c) => (c.key || c.label) === state.sortBy);
    return col ? [...rows].sort((a, b) => compare(col.value(a), col.value(b), state.asc)) : rows;
  }
  function draw() {
    const all = sortedRows();
    const size = state.pageSize || all.length || 1;
    const pages = Math.max(1, Math.ceil(all.length / size));
    state.page = Math.min(state.page, pages - 1);
    const shown = state.pageSize ? all.slice(state.page * size, (state.page + 1) * size) : all;
    const heads = visible.map((col) => {
      const key = col.key || col.label;
      const sort = key !== state.sortBy ? "none" : state.asc ? "ascending" : "descending";
      const th = el("th", { class: col.num ? "num sortable" : "sortable", title: col.title || "click to sort", "aria-sort": sort, "data-col": col.key || null }, col.label);
      th.addEventListener("click", () => { state.asc = state.sortBy === key ? !state.asc : true; state.sortBy = key; draw(); });
      return th;
    });
    const body = el("tbody", {}, shown.map((row) => el("tr", {}, visible.map((c) =>
      el("td", { class: [c.num ? "num" : null, c.wrap ? "wrap" : null].filter(Boolean).join(" ") || null }, c.render ? c.render(row) : fmt(c.value(row)))))));
    box.replaceChildren(el("table", { class: "data" }, el("thead", {}, el("tr", {}, heads)), body));
    tools.replaceChildren(...[id ? chooser() : null, state.pageSize ? pager(all.length, pages) : null, fitNote].filter(Boolean));
  }
  function chooser() {
    const boxes = columns.map((c) => {
      const input = el("input", { type: "checkbox", value: c.key, checked: visible.includes(c) });
      input.addEventListener("change", () => {
        const keys = columns.filter((col) => col === c ? input.checked : visible.includes(col)).map((col) => col.key);
        if (!keys.length) { input.checked = true; return; }
        storeColumns(id, keys);
        visible = columns.filter((col) => keys.includes(col.key));
        fitNote.textContent = "";
        draw();
      });
      return el("label", { class: "choice" }, input, " ", c.label);
    });
    const reset = el("button", { type: "button", class: "small" }, "Default columns");
    reset.addEventListener("click", () => { storeColumns(id, null); visible = columns.filter((c) => c.default !== false); draw(); fit(); });
    const open = wrap.querySelector("details.chooser[open]") !== null;
    return el("details", { class: "chooser", open: open || null },
      el("summary", {}, `Columns (${visible.length} of ${columns.length})`),
      el("div", { class: "choices" }, boxes, reset));
  }
  function pager(total, pages) {
    const prev = el("button", { type: "button", class: "small page-prev", disabled: state.page === 0 || null }, "‹ Previous");
    const next = el("button", { type: "button", class: "small page-next", disabled: state.page >= pages - 1 || null }, "Next ›");
    prev.addEventListener("click", () => { state.page -= 1; draw(); });
    next.addEventListener("click", () => { state.page += 1; draw(); });
    const size = el("select", { "aria-label": "rows per page", class: "page-size" },
      PAGE_SIZES.map((n) => el("option", { value: n, selected: n === state.pageSize || null }, `${n} per page`)));
    size.addEventListener("change", () => { state.pageSize = Number(size.value); state.page = 0; draw(); });
    const first = total ? state.page * state.pageSize + 1 : 0;
    const last = Math.min(total, (state.page + 1) * state.pageSize);
    return el("span", { class: "pager" }, prev, " ", el("span", { class: "page-info" }, `${first}–${last} of ${total}`), " ", next, " ", size);
  }
  // Default columns only: hide the last optional ones while the table is wider than its box.
  function fit() {
    wrap.dataset.fitted = "yes";
    if (!id || storedColumns(id)) return;
    const table = box.querySelector("table");
    if (!table || !box.isConnected || !box.clientWidth) return;
    const hidden = [];
    while (table.scrollWidth > box.clientWidth + 1) {
      const drop = [...visible].reverse().find((c) => c.optional);
      if (!drop) break;
      visible = visible.filter((c) => c !== drop);
      hidden.unshift(drop.label);
      draw();
      const t = box.querySelector("table");
      if (t.scrollWidth <= box.clientWidth + 1) break;
    }
    if (hidden.length) {
      fitNote.textContent = ` ${hidden.length} column${hidden.length > 1 ? "s" : ""} hidden to fit the window (${hidden.join(", ")}): choose them under Columns.`;
      draw();
    }
  }
  draw();
  wrap.append(...(id || opts.pageSize ? [tools] : []), box);
  if (id) requestAnimationFrame(() => requestAnimationFrame(fit));
  return wrap;
}
