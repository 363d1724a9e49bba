// clauseguard handler page: clauses and their timelines — the cited span highlighted in a clause's
// text, links from an answer to its clauses, the clause dialog (a clause the answer excluded shown as
// not eligible, with its reason) and a document's versions on one line. Decides nothing.
"use strict";

// ------------------------------------------------------------------ spans, links, timelines

// Where `quote` sits in `text`, ignoring differences in whitespace (the verifier's rule); null if absent.
function findSpan(text, quote) {
  const words = String(quote || "").trim().split(/\s+/).filter(Boolean);
  if (!words.length) return null;
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const match = new RegExp(escaped.join("\\s+")).exec(text);
  return match ? [match.index, match.index + match[0].length] : null;
}

function highlighted(text, quote) {
  const span = findSpan(text, quote);
  const p = h("p", { class: "clause-text", "data-highlight": span ? "found" : "missing" });
  if (!span) return append(p, [text]);
  return append(p, [text.slice(0, span[0]), h("mark", { class: "cited" }, text.slice(span[0], span[1])),
    text.slice(span[1])]);
}

function clauseLink(id) {
  return h("a", {
    href: `#clause-${id}`, class: "cid-link", "data-clause-link": id,
    onclick: (event) => { event.preventDefault(); showClause(id); },
  }, id);
}

// The answer text with each cited clause id turned into a link to its clause.
function linkified(text, ids) {
  const known = [...new Set(ids)].filter(Boolean).sort((a, b) => b.length - a.length);
  const patterns = known.map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  // also "(article 7.3, page 34, CG-2021-09; CLAUSE-ID)" and "[CLAUSE-ID]" for ids no panel lists
  patterns.push("(?<=; )[A-Za-z0-9][\\w-]*(?:\\.[\\w-]+)+(?=\\))", "(?<=\\[)[A-Za-z0-9][\\w-]*(?:\\.[\\w-]+)+(?=\\])");
  const re = new RegExp(patterns.join("|"), "g");
  const out = [];
  let last = 0;
  for (const match of String(text || "").matchAll(re)) {
    out.push(text.slice(last, match.index), clauseLink(match[0]));
    last = match.index + match[0].length;
  }
  out.push(String(text || "").slice(last));
  return out;
}

function showClause(id) {
  if (notEligible.has(id)) { openClauseDialog(id); return; }
  const card = document.getElementById(`clause-${id}`);
  if (card) {
    card.scrollIntoView({ behavior: "smooth", block: "center" });
    card.focus({ preventScroll: true });
    card.classList.add("flash");
    setTimeout(() => card.classList.remove("flash"), 1600);
    return;
  }
  openClauseDialog(id);
}

async function openClauseDialog(id) {
  const dialog = $("#clause-dialog");
  const body = $("#clause-dialog-body");
  $("#clause-dialog-title").textContent = id;
  body.replaceChildren(h("p", { class: "empty" }, "loading…"));
  if (!dialog.open) dialog.showModal();
  try {
    const clause = await getClause(id);
    const reason = notEligible.get(id);
    // A clause the answer excluded is shown as not eligible, with its reason, never as the clause that governs.
    const timeline = await renderTimeline(clause.document_id, reason
      ? { others: new Set([clause.version]), why: () => `${clause.version} does not govern this request: ${reason}.` }
      : { marks: { [clause.version]: "this clause" } });
    body.replaceChildren(
      reason ? h("p", { class: "not-eligible", role: "note", "data-testid": "not-eligible" },
        h("b", {}, "Not eligible for this request"), ` — ${reason}. It was excluded before ranking; do not cite it.`) : null,
      h("p", { class: "meta" }, clauseMeta(clause)),
      h("p", { class: "clause-text" }, clause.text),
      h("h3", {}, "Version timeline"), timeline,
    );
  } catch (error) {
    body.replaceChildren(h("p", { class: "error" }, error.message));
  }
}

function clauseMeta(clause) {
  const where = [clause.article ? `article ${clause.article}` : null, pageText(clause) || null]
    .filter(Boolean).join(", ");
  return `${clause.document_id} (${clause.document_title}) · ${clause.version}, in effect ${clause.effective_start}`
    + ` to ${clause.effective_end || "open-ended"} · ${clause.section}${where ? ` · ${where}` : ""}`;
}

const dayNumber = (iso) => Date.parse(`${iso}T00:00:00Z`) / 86400000;

// A document's versions on one horizontal line, widths by duration; `marks` names the versions that
// govern (version -> label), `others` the versions whose clauses were excluded, `date` the governing day.
async function renderTimeline(documentId, { marks = {}, others = new Set(), date = null, why = null } = {}) {
  let data;
  try { data = await getVersions(documentId); } catch (error) {
    return h("p", { class: "empty" }, `${documentId}: ${error.message}`);
  }
  const starts = data.versions.map((v) => dayNumber(v.effective_start));
  const ends = data.versions.map((v) => (v.effective_end ? dayNumber(v.effective_end) + 1 : null));
  const from = Math.min(...starts);
  const known = [...starts, ...ends.filter((e) => e !== null)];
  if (date) known.push(dayNumber(date) + 1);
  const until = Math.max(...known) + 365;
  const bar = h("div", { class: "bar", "aria-hidden": "true" });
  data.versions.forEach((v, i) => {
    const span = (ends[i] ?? until) - starts[i];
    const label = marks[v.version];
    const cls = label ? "seg governing" : others.has(v.version) ? "seg other" : "seg";
    bar.append(h("div", { class: cls, style: `flex: ${Math.max(span, 1)} 1 0`, title: v.version },
      h("b", {}, v.version, label ? ` — ${label}` : ""),
      `${v.effective_start} → ${v.effective_end || "open-ended"}`));
  });
  if (date) {
    const at = (dayNumber(date) - from) / (until - from);
    if (at >= 0 && at <= 1) bar.append(h("div", { class: "date-marker", style: `left: ${(at * 100).toFixed(2)}%`, title: date }));
  }
  const list = h("ol", { class: "visually-hidden-list" }, data.versions.map((v) =>
    h("li", { "data-version": v.version, "data-governing": marks[v.version] ? "true" : null },
      `${v.version}: ${v.effective_start} to ${v.effective_end || "open-ended"}, ${v.clauses} clauses`,
      marks[v.version] ? ` (${marks[v.version]})` : "", others.has(v.version) ? " (excluded here)" : "")));
  list.style.cssText = "position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)";
  const closed = data.events.filter((e) => e.kind === "version_closed").map((e) => `${e.date}: ${e.detail}`);
  const sentence = why ? why(data) : null;
  return h("div", { class: "timeline", "data-testid": "timeline", "data-document-id": documentId },
    h("h3", {}, `${data.document_id} — ${data.title} `, h("span", { class: "code" }, data.kind)),
    sentence ? h("p", { class: "why", "data-testid": "why-governs" }, sentence) : null,
    bar, list,
    h("div", { class: "legend" },
      date ? `red line: ${date}; ` : "", "green: the version named on the bar; striped: versions whose clauses were excluded here",
      closed.length ? ` · ${closed.join("; ")}` : ""));
}
