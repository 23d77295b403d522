"use strict";
// A reproduction's write-up (reproduction.md) as page elements. Loaded before app.js, whose
// el() it calls.

// The Markdown our write-ups use (headings, paragraphs, lists, fenced code, tables, **bold**,
// `code`), built as elements from text: nothing in the file is ever read as HTML.
function inline(text) {
  return text.split(/(\*\*[^*]+\*\*|`[^`]+`)/).filter(Boolean).map((part) =>
    part.startsWith("**") && part.endsWith("**") && part.length > 4 ? el("strong", {}, part.slice(2, -2))
      : part.startsWith("`") && part.endsWith("`") && part.length > 2 ? el("code", {}, part.slice(1, -1)) : part);
}
// "0.40 [0.20, 0.60]": the mean, then its CI kept whole (it may go under the mean, never split).
function mdCell(text) {
  const m = /^(\S+) (\[[^\]]+\])$/.exec(text);
  return m ? el("span", { class: "est" }, m[1], " ", el("span", { class: "ci" }, m[2])) : inline(text);
}
function cellsOf(line) { return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim()); }
function markdown(text) {
  const out = [];
  const lines = text.split("\n");
  let para = [];
  const flush = () => { if (para.length) out.push(el("p", {}, inline(para.join(" ")))); para = []; };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("```")) {
      flush();
      const code = [];
      for (i++; i < lines.length && !lines[i].startsWith("```"); i++) code.push(lines[i]);
      out.push(el("pre", {}, code.join("\n")));
    } else if (/^#{1,6} /.test(line)) {
      flush();
      const level = Math.min(6, line.indexOf(" ") + 2);
      out.push(el(`h${level}`, {}, inline(line.slice(line.indexOf(" ") + 1))));
    } else if (line.trim().startsWith("|")) {
      flush();
      const rows = [];
      for (; i < lines.length && lines[i].trim().startsWith("|"); i++) rows.push(lines[i]);
      i--;
      const [head, ...rest] = rows;
      const body = rest.filter((r) => !/^\|?\s*:?-{3,}/.test(r.trim()));
      out.push(el("div", { class: "scroll" }, el("table", { class: "data md-table" },
        el("thead", {}, el("tr", {}, cellsOf(head).map((c) => el("th", {}, inline(c))))),
        el("tbody", {}, body.map((r) => el("tr", {}, cellsOf(r).map((c) => el("td", {}, mdCell(c)))))))));
    } else if (/^\s*- /.test(line)) {
      flush();
      const items = [];
      for (; i < lines.length && /^\s*- /.test(lines[i]); i++) {
        const depth = lines[i].search(/\S/) >= 2 ? "nested" : null;
        items.push(el("li", { class: depth }, inline(lines[i].replace(/^\s*- /, ""))));
      }
      i--;
      out.push(el("ul", {}, items));
    } else if (!line.trim()) {
      flush();
    } else {
      para.push(line.trim());
    }
  }
  flush();
  return out;
}
