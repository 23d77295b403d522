"use strict";
// A game's own controls for a person playing in the browser (accord serve --play). The server
// sends what to draw (form.controls, from the game's declaration); each builder returns
// { node, value() } where value() is what the game's build() turns into the action. `changed`
// is called on every edit so the page can check the answer as it is typed. Everything shown
// is inserted as text (el() from app.js), never as HTML.

function ctlNumber(attrs) {
  return el("input", { type: "number", step: 1, min: 0, size: 5, inputmode: "numeric", ...attrs });
}

function intOrNull(input) {
  const v = input.value.trim();
  return v === "" ? null : (/^\d+$/.test(v) ? Number(v) : v);
}

// -- calendar: pick slots, move errands, write messages ------------------------------------
function calendarControls(c, names, changed) {
  const who = (a) => names[a] ?? `agent${a}`;
  if (c.phase === "REFLECTION") return calendarReflection(c, who, changed);
  const slotText = (s) => s.free ? "free" : `${s.kind} #${s.id} · cost ${s.cost}` + (s.kind === "errand" && !s.movable ? " · blocked" : "");
  const deciding = c.calls.includes("schedule");
  const moving = c.calls.includes("reschedule");
  const talking = c.calls.some((k) => !["schedule", "reschedule"].includes(k));
  const parts = [el("p", { class: "muted" }, `Round ${c.round} · meeting #${c.meeting.id} with ${c.meeting.participants.map(who).join(", ")}` + (c.is_participant ? " (you take part)" : " (you do not take part)"))];

  // The calendar: one row per slot; in DECISION each free-able slot can take the meeting.
  const slotName = `cal-slot-${Math.random().toString(36).slice(2)}`;
  const radios = [];
  const rows = c.slots.map((s) => {
    let pick = null;
    if (deciding) {
      pick = el("input", { type: "radio", name: slotName, value: s.slot, "aria-label": `meet in slot ${s.slot}` });
      pick.addEventListener("change", changed);
      radios.push(pick);
    }
    return el("tr", { "data-slot": s.slot, class: s.free ? "slot-free" : `slot-${s.kind}` },
      el("td", {}, `slot ${s.slot}`), el("td", {}, slotText(s)), deciding ? el("td", {}, pick) : null);
  });
  let none = null;
  if (deciding) {
    none = el("input", { type: "radio", name: slotName, value: "", checked: true, "aria-label": "do not schedule" });
    none.addEventListener("change", changed);
  }
  parts.push(el("table", { class: "cal-slots", id: "cal-slots" },
    el("thead", {}, el("tr", {}, el("th", {}, "slot"), el("th", {}, "your calendar"), deciding ? el("th", {}, `meeting #${c.meeting.id} here`) : null)),
    el("tbody", {}, rows)));
  if (none) parts.push(el("label", {}, none, " do not schedule it this round"));

  // Moves of the seat's own movable errands (VOLUNTARY and DECISION).
  const moves = [];
  if (moving) {
    const movable = c.slots.filter((s) => s.movable);
    const list = el("div", { id: "cal-moves" }, el("h4", {}, "Move your errands"),
      movable.length ? null : el("p", { class: "muted" }, "You have no errand you can move."));
    for (const s of movable) {
      const to = el("select", { "aria-label": `move errand ${s.id} to` }, el("option", { value: "" }, "stay"),
        c.slots.filter((t) => t.slot !== s.slot).map((t) => el("option", { value: t.slot }, `slot ${t.slot}`)));
      const why = el("input", { maxlength: c.justification_max, size: 40, placeholder: "why it moves", "aria-label": `why errand ${s.id} moves` });
      to.addEventListener("change", changed);
      why.addEventListener("input", changed);
      moves.push({ s, to, why });
      list.append(el("div", { class: "cal-move" }, el("b", {}, `errand #${s.id} (slot ${s.slot})`), " to ", to, " ", why));
    }
    parts.push(list);
  }

  // Messages (CHEAP_TALK): each to one agent, to the meeting's participants or to everyone.
  const messages = [];
  if (talking) {
    const targets = [];
    for (const kind of c.calls) {
      if (kind === "dm") c.agents.forEach((a) => targets.push({ label: `to ${who(a)} only`, type: "dm", to: a }));
      else if (kind === "participant_groupchat") targets.push({ label: "to the meeting's participants", type: kind });
      else if (kind === "all_groupchat") targets.push({ label: "to everyone", type: kind });
    }
    const box = el("ol", { id: "cal-messages", class: "form-array" });
    const add = el("button", { type: "button", class: "small", id: "cal-add-message" }, "add a message");
    const addRow = () => {
      const to = el("select", { "aria-label": "send to" }, targets.map((t, i) => el("option", { value: i }, t.label)));
      const text = el("textarea", { rows: 2, cols: 60, maxlength: c.content_max, "aria-label": "message", placeholder: "leave empty to say nothing" });
      const count = el("span", { class: "muted" }, `0/${c.content_max}`);
      text.addEventListener("input", () => { count.textContent = `${text.value.length}/${c.content_max}`; changed(); });
      to.addEventListener("change", changed);
      messages.push({ to, text });
      box.append(el("li", {}, to, el("br"), text, " ", count));
      add.disabled = messages.length >= c.max_calls;
    };
    add.addEventListener("click", () => { addRow(); changed(); });
    addRow();
    parts.push(el("h4", {}, "Messages"), box, add, el("span", { class: "muted" }, ` (at most ${c.max_calls}; empty ones are not sent)`));
    const targetOf = (m) => targets[Number(m.to.value)];
    messages.targetOf = targetOf;
  }
  const value = () => {
    const calls = [];
    for (const m of messages) {
      if (!m.text.value.trim()) continue;
      const t = messages.targetOf(m);
      calls.push(t.type === "dm" ? { type: "dm", to: t.to, content: m.text.value } : { type: t.type, content: m.text.value });
    }
    for (const m of moves) {
      if (m.to.value === "") continue;
      calls.push({ type: "reschedule", item_id: m.s.id, from_slot: m.s.slot, to_slot: Number(m.to.value), justification: m.why.value });
    }
    const chosen = radios.find((r) => r.checked);
    if (chosen) calls.push({ type: "schedule", slot: Number(chosen.value) });
    return { calls };
  };
  return { node: el("div", { class: "controls controls-calendar" }, parts), value };
}

// The measurement-only question after a round: per other agent and slot, -3 (now think it
// free) to 3 (now think it occupied); 0 is no change.
function calendarReflection(c, who, changed) {
  const slots = [...Array(c.num_slots).keys()];
  const boxes = Object.fromEntries(c.targets.map((t) => [t, slots.map((k) => {
    const b = el("input", { type: "number", step: 1, min: -c.max, max: c.max, value: 0, size: 3, "aria-label": `${who(t)} slot ${k}` });
    b.addEventListener("input", changed);
    return b;
  })]));
  return {
    node: el("div", { class: "controls controls-calendar" },
      el("p", { class: "muted" }, `After round ${c.round}: how did it change your belief that each slot is occupied on the others' calendars? From -${c.max} (free) to ${c.max} (occupied); 0: no change. No one sees this answer.`),
      el("div", { class: "scroll-x" }, el("table", { id: "cal-reflection" },
        el("thead", {}, el("tr", {}, el("th", {}, "agent"), slots.map((k) => el("th", {}, String(k))))),
        el("tbody", {}, c.targets.map((t) => el("tr", {}, el("td", {}, who(t)), boxes[t].map((b) => el("td", {}, b)))))))),
    value: () => ({ deltas: Object.fromEntries(c.targets.map((t) => [String(t), boxes[t].map((b) => (/^-?\d+$/.test(b.value.trim()) ? Number(b.value) : b.value))])) }),
  };
}

// -- negotiation: quantities within the budget, project runs, a message ----------------------
function negotiationControls(c, names, changed) {
  if (c.phase === "reflect") {
    const text = el("textarea", { rows: 4, cols: 70, maxlength: c.text_max, "aria-label": "reflection" });
    text.addEventListener("input", changed);
    return { node: el("div", { class: "controls" }, el("label", {}, "Your reflection on the game"), el("br"), text), value: () => ({ text: text.value }) };
  }
  const qty = c.resources.map((r) => ctlNumber({ max: r.max, "aria-label": `buy ${r.name}`, "data-resource": r.name }));
  const runs = c.projects.map((p) => ctlNumber({ "aria-label": `runs of ${p.name}`, "data-project": p.name }));
  const spent = el("p", { id: "neg-budget" });
  const decide = c.must_decide ? null : el("input", { type: "checkbox", id: "neg-decide", "aria-label": "decide now" });
  const speech = c.speech === "none" ? null : el("textarea", { id: "neg-speech", rows: 3, cols: 60, maxlength: c.speech_max, "aria-label": "message to the other party" });
  const deciding = () => c.must_decide || (decide && decide.checked);
  const refresh = () => {
    const on = deciding();
    let cost = 0, types = 0;
    c.resources.forEach((r, i) => {
      qty[i].disabled = !on;
      const q = Number(qty[i].value || 0);
      cost += q * r.cost;
      if (q > 0) types++;
    });
    runs.forEach((b) => { b.disabled = !on; });
    // In the plain reply format a decision is sent alone, without a message.
    if (speech && c.speech === "alone") speech.disabled = on;
    const over = cost > c.budget + 1e-9 || types > c.max_types;
    spent.textContent = on ? `Cost ${+cost.toFixed(2)} of your budget ${c.budget} · ${types} of at most ${c.max_types} resource types` : "Not deciding this turn: only your message is sent.";
    spent.className = over && on ? "error" : "muted";
  };
  [...qty, ...runs].forEach((b) => b.addEventListener("input", () => { refresh(); changed(); }));
  if (decide) decide.addEventListener("change", () => { refresh(); changed(); });
  if (speech) speech.addEventListener("input", changed);
  const market = el("table", { id: "neg-market" },
    el("thead", {}, el("tr", {}, ["resource", "unit cost", "supply (both of you)", "you buy"].map((h) => el("th", {}, h)))),
    el("tbody", {}, c.resources.map((r, i) => el("tr", {}, el("td", {}, r.name), el("td", {}, fmt(r.cost)), el("td", {}, fmt(r.supply)), el("td", {}, qty[i])))));
  const projects = el("table", { id: "neg-projects" },
    el("thead", {}, el("tr", {}, ["your project", "needs per run", "reward per run", "runs (optional)"].map((h) => el("th", {}, h)))),
    el("tbody", {}, c.projects.map((p, i) => el("tr", {}, el("td", {}, p.name), el("td", {}, Object.entries(p.needs).map(([k, v]) => `${v} ${k}`).join(", ")), el("td", {}, fmt(p.reward)), el("td", {}, runs[i])))));
  refresh();
  const value = () => {
    const purchase = {}, wanted = {};
    c.resources.forEach((r, i) => { const v = intOrNull(qty[i]); if (v !== null && v !== 0) purchase[r.name] = v; });
    c.projects.forEach((p, i) => { const v = intOrNull(runs[i]); if (v !== null && v !== 0) wanted[p.name] = v; });
    return { speech: speech && !speech.disabled ? speech.value : "", decide: deciding(), purchase, runs: wanted };
  };
  return {
    node: el("div", { class: "controls controls-negotiation" },
      el("p", { class: "muted" }, `Round ${c.round} of ${c.rounds}` + (c.must_decide ? " · decide your purchase now" : " · talk, or decide now")),
      decide ? el("label", {}, decide, " decide my purchase now") : null,
      market, spent, projects,
      speech ? el("div", { class: "form-row" }, el("label", { for: "neg-speech" }, "Message"), speech) : null),
    value,
  };
}

// -- sorting: commands picked from the backend's command list -------------------------------
function sortingControls(c, names, changed) {
  const who = (a) => names[a] ?? `Agent-${a}`;
  const byVerb = Object.fromEntries(c.commands.map((k) => [k.verb, k]));
  const rows = [];
  const list = el("ol", { id: "sort-commands", class: "form-array" });
  const add = el("button", { type: "button", class: "small", id: "sort-add" }, "add a command");
  const addRow = (verb) => {
    const pick = el("select", { "aria-label": "command" }, c.commands.map((k) => el("option", { value: k.verb }, k.verb)));
    pick.value = verb;
    const args = el("span", { class: "sort-args" });
    const help = el("span", { class: "muted" });
    const row = { pick, inputs: {} };
    const draw = () => {
      const kind = byVerb[pick.value].args;
      help.textContent = ` ${byVerb[pick.value].help}`;
      const inputs = {};
      if (kind === "text" || kind === "to_text") inputs.text = el("textarea", { rows: 2, cols: 40, "aria-label": "message" });
      if (kind === "to_text") inputs.to = el("select", { "aria-label": "to" }, c.agents.map((a) => el("option", { value: a }, who(a))));
      if (kind === "key" || kind === "key_value" || kind === "prefix") inputs.key = el("input", { size: 16, "aria-label": "key", placeholder: kind === "prefix" ? "prefix (optional)" : "key" });
      if (kind === "key_value") inputs.value = el("textarea", { rows: 2, cols: 40, "aria-label": "value" });
      if (kind === "list") inputs.text = el("input", { size: 30, "aria-label": "integers", placeholder: `${c.submit_len} integers, e.g. [3, 17, 42]` });
      Object.values(inputs).forEach((i) => i.addEventListener("input", changed));
      if (inputs.to) inputs.to.addEventListener("change", changed);
      row.inputs = inputs;
      args.replaceChildren(...["to", "key", "text", "value"].filter((k) => inputs[k]).flatMap((k) => [" ", inputs[k]]));
    };
    pick.addEventListener("change", () => { draw(); changed(); });
    draw();
    const remove = el("button", { type: "button", class: "small" }, "remove");
    const li = el("li", {}, pick, args, help, " ", remove);
    remove.addEventListener("click", () => { rows.splice(rows.indexOf(row), 1); li.remove(); add.disabled = false; changed(); });
    rows.push(row);
    list.append(li);
    add.disabled = rows.length >= c.max_commands;
  };
  add.addEventListener("click", () => { addRow(c.commands[0].verb); changed(); });
  addRow(c.commands.some((k) => k.verb === "wait") ? "wait" : c.commands[0].verb);
  const value = () => ({
    commands: rows.map((r) => {
      const out = { verb: r.pick.value };
      for (const [k, input] of Object.entries(r.inputs)) out[k] = k === "to" ? Number(input.value) : input.value;
      return out;
    }),
  });
  return {
    node: el("div", { class: "controls controls-sorting" },
      el("p", {}, `Round ${c.round} of ${c.max_rounds} · task ${c.task} · backend ${c.backend}`),
      el("p", { id: "sort-slice" }, `Your numbers: [${c.xs.join(", ")}] · submit ${c.submit_len} integer${c.submit_len === 1 ? "" : "s"}`),
      el("details", {}, el("summary", {}, "Command list"), el("dl", { id: "sort-help" }, c.commands.flatMap((k) => [el("dt", {}, k.verb), el("dd", {}, k.help)]))),
      list, add),
    value,
  };
}

// -- any game: controls declared as fields (accord.core.controls.fields_form) ----------------
// choice (radio buttons, or a list when there are many), number, text, check and note, each
// with the limits the game declared; value() maps each field's name to its value.
function fieldsControls(c, names, changed) {
  const readers = [];
  const rows = c.fields.map((f, n) => {
    const id = `field-${n}`;
    if (f.kind === "note") return el("p", { class: "muted field-note" }, f.label);
    if (f.kind === "choice") {
      if (f.options.length <= 8) {
        const group = `choice-${n}-${Math.random().toString(36).slice(2)}`;
        const radios = f.options.map((o) => {
          const r = el("input", { type: "radio", name: group, value: String(o.value), checked: o.value === f.default, "aria-label": o.text });
          r.addEventListener("change", changed);
          return [r, o];
        });
        readers.push([f.name, () => { const hit = radios.find(([r]) => r.checked); return hit ? hit[1].value : null; }]);
        return el("fieldset", { class: "field-choice", "data-field": f.name }, el("legend", {}, f.label),
          radios.map(([r, o]) => el("label", { class: "field-option" }, r, " ", o.text)));
      }
      const pick = el("select", { id, "data-field": f.name }, el("option", { value: "" }, "(choose)"),
        f.options.map((o, i) => el("option", { value: String(i), selected: o.value === f.default }, o.text)));
      pick.addEventListener("change", changed);
      readers.push([f.name, () => (pick.value === "" ? null : f.options[Number(pick.value)].value)]);
      return el("div", { class: "form-row" }, el("label", { for: id }, f.label), pick);
    }
    if (f.kind === "number") {
      const box = ctlNumber({ id, "data-field": f.name, min: f.min ?? false, max: f.max ?? false, value: f.default ?? false });
      if (f.min !== null && f.min !== undefined && f.min < 0) box.removeAttribute("inputmode");
      box.addEventListener("input", changed);
      readers.push([f.name, () => { const v = box.value.trim(); return v === "" ? null : (/^-?\d+$/.test(v) ? Number(v) : v); }]);
      return el("div", { class: "form-row" }, el("label", { for: id }, f.label), box);
    }
    if (f.kind === "check") {
      const box = el("input", { type: "checkbox", id, "data-field": f.name, checked: !!f.default });
      box.addEventListener("change", changed);
      readers.push([f.name, () => box.checked]);
      return el("div", { class: "form-row" }, el("label", {}, box, " ", f.label));
    }
    // text
    const count = el("span", { class: "muted" }, `0/${f.max}`);
    const box = f.lines > 1
      ? el("textarea", { id, "data-field": f.name, rows: f.lines, cols: 60, maxlength: f.max })
      : el("input", { id, "data-field": f.name, size: 40, maxlength: f.max });
    box.addEventListener("input", () => { count.textContent = `${box.value.length}/${f.max}`; changed(); });
    readers.push([f.name, () => box.value]);
    return el("div", { class: "form-row" }, el("label", { for: id }, f.label), box, " ", count);
  });
  return {
    node: el("div", { class: "controls controls-fields" }, c.title ? el("p", {}, c.title) : null, rows),
    value: () => Object.fromEntries(readers.map(([name, read]) => [name, read()])),
  };
}

// The page's own control sets, by the name a form gives (the built-in games use these).
const CONTROL_SETS = { calendar: calendarControls, negotiation: negotiationControls, sorting: sortingControls };

// The controls for `c`: declared fields, whatever the game, or a control set of this page
// (null when the page knows neither: the seat then gets the form from the reply's schema).
function gameControls(c, names, changed) {
  if (Array.isArray(c.fields)) return fieldsControls(c, names, changed);
  const build = Object.hasOwn(CONTROL_SETS, c.game) ? CONTROL_SETS[c.game] : null;
  return build ? build(c, names, changed) : null;
}
