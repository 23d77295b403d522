"use strict";
// The run page's control buttons (accord ctl from the browser): pause, resume, concurrency N,
// stop, stop --drain. Shown while the run has a control token and is not known to have ended
// (a run in a store has no live files here: its buttons stay); each change is sent with the
// token, and a refused token (a new start of the run made a new one) is fetched again once.

function runControlSection(runId, run) {
  const holder = el("div", { id: "run-control" });
  if (window.ACCORD_BUNDLE) return holder; // a static copy controls nothing
  if (run && run.progress && run.progress.state !== "running") return holder; // it has ended
  const path = `/api/runs/${encodeURIComponent(runId)}/control`;
  const status = el("span", { class: "muted", id: "run-control-status" });
  let token = null;

  async function state() {
    const res = await fetch(path, { headers: { Accept: "application/json" } });
    if (!res.ok) throw new Error(`${res.status}`);
    return res.json();
  }

  async function ask(body, retried) {
    const res = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-Accord-Control-Token": token || "" },
      body: JSON.stringify(body),
    });
    if (res.status === 403 && !retried) {
      token = (await state()).token;
      return ask(body, true);
    }
    let detail = res.statusText;
    try { detail = (await res.json()).detail || detail; } catch (_) { /* not JSON */ }
    status.textContent = res.ok ? `asked: ${body.action}${body.value ? " " + body.value : ""}${body.drain ? " --drain" : ""}; drivers apply it within seconds` : `refused: ${detail}`;
  }

  const number = el("input", { type: "number", min: 1, step: 1, size: 4, "aria-label": "concurrency", id: "run-control-n" });
  const button = (label, body) => {
    const b = el("button", { type: "button" }, label);
    b.addEventListener("click", () => ask(typeof body === "function" ? body() : body, false).catch((e) => { status.textContent = `failed: ${e.message}`; }));
    return b;
  };
  state().then((s) => {
    if (!s.controllable) return;
    token = s.token;
    holder.replaceChildren(
      el("h2", {}, "Control"),
      el("p", {},
        button("Pause", { action: "pause" }), " ",
        button("Resume", { action: "resume" }), " ",
        number, " ", button("Set concurrency", () => ({ action: "concurrency", value: Number(number.value) || null })), " ",
        button("Stop after games in flight", { action: "stop", drain: true }), " ",
        button("Stop now", { action: "stop" }), " ",
        status),
    );
  }).catch(() => { /* no control for this run */ });
  return holder;
}
