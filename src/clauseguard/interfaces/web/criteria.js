// clauseguard handler page: a clause's criteria — the text with the span of every criterion, reference
// and note highlighted, the stretches no one reads marked, the tree in plain words, and who reads the
// clause (the compiler, the corpus's own criteria, or revision R of NAME). Decides nothing: every word
// comes from /v1/criteria/clauses/{id}.
"use strict";

// "read by the compiler" / "read by revision R of NAME, approved by M", from a citation's or a view's read_by.
function readByText(readBy) {
  if (!readBy) return "";
  if (readBy.source === "revision") {
    return `read by revision ${readBy.revision_id} of ${readBy.author}, approved by ${readBy.approved_by}`;
  }
  return readBy.source === "corpus" ? "read from the corpus's own criteria" : "read by the compiler";
}

function readByLine(readBy) {
  return h("p", { class: `read-by read-by-${readBy.source}`, "data-testid": "read-by" }, readByText(readBy));
}

// The text cut at every span boundary; each piece carries the spans that cover it (innermost label shown).
function markedText(text, spans, unread) {
  const all = [
    ...spans.filter((s) => s.kind !== "rule").map((s) => ({ ...s, cls: `crit crit-${s.kind}`, title: s.label })),
    ...unread.map((u) => ({ ...u, cls: "unread", title: `not read: ${u.reason}` })),
  ];
  const cuts = [...new Set([0, text.length, ...all.flatMap((s) => [s.start, s.end])])].sort((a, b) => a - b);
  const p = h("p", { class: "clause-text", "data-testid": "criteria-text" });
  for (let i = 0; i + 1 < cuts.length; i += 1) {
    const [from, to] = [cuts[i], cuts[i + 1]];
    const covering = all.filter((s) => s.start <= from && s.end >= to);
    const piece = text.slice(from, to);
    if (!covering.length) { p.append(piece); continue; }
    const inner = covering.reduce((a, b) => ((b.end - b.start) < (a.end - a.start) ? b : a));
    const unreadHere = covering.some((s) => s.cls === "unread");
    p.append(h("mark", {
      class: unreadHere ? "unread" : inner.cls, title: covering.map((s) => s.title).join(" · "),
      "data-kind": unreadHere ? "unread" : inner.kind,
    }, piece));
  }
  return p;
}

// The clause dialog's criteria section: filled in when the API answers, the plain text until then.
function criteriaPanel(id, text) {
  const box = h("div", { class: "criteria-view", "data-testid": "criteria-view" }, h("p", { class: "clause-text" }, text));
  api("GET", `/v1/criteria/clauses/${encodeURIComponent(id)}`).then((view) => {
    box.replaceChildren();
    append(box, [
      h("p", { class: "meta" }, `${view.role}${view.deciding ? " (decides)" : " (decides nothing)"} · `,
        readByText(view.read_by)),
      markedText(view.text, view.spans, view.unread),
      view.unread.length ? h("p", { class: "unread-note", "data-testid": "unread-note" },
        `${view.unread.length} stretch(es) no one reads: a determination that needs this clause goes to review`) : null,
      view.plain.length ? h("div", {}, h("h3", {}, "In plain words"),
        h("ul", { class: "plain-words", "data-testid": "plain-words" }, view.plain.map((line) => h("li", {}, line)))) : null,
    ]);
  }).catch(() => { /* the plain text stays: criteria are an addition, never a condition of showing the clause */ });
  return box;
}
