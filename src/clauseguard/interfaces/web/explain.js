// clauseguard handler page: what the page says around an answer — why a version governs, where a
// clause sits (printed page labels), and the next step after REFUSE, REVIEW or HALT, printable as a
// request for information. Decides nothing: every sentence is built from the API's answer and catalog.
"use strict";

// The page as a handler finds it: the printed label first, the PDF page when they differ (and a range).
function pageText(p) {
  if (!p || !p.page) return "";
  const label = p.page_label && p.page_label !== String(p.page) ? `page ${p.page_label} (PDF page ${p.page})` : `page ${p.page}`;
  if (!p.page_end || p.page_end === p.page) return label;
  const end = p.page_end_label && p.page_end_label !== String(p.page_end) ? p.page_end_label : String(p.page_end);
  return `${label}–${end}`;
}

const period = (v) => `${v.effective_start} to ${v.effective_end || "open-ended"}`;

// One sentence per document: why `version` is the one that governs this answer.
// `ctx`: {kind: "search"|"determination"|"compare", answer, contract (from the catalog), document}
function whyGoverns(version, versionData, ctx) {
  if (!version || !versionData) return null;
  const doc = ctx.document || {};
  const r = ctx.answer || {};
  if (doc.kind === "rider") {
    const plan = r.plan_id || (ctx.contract && ctx.contract.plan) || "the plan";
    return `${version} governs: rider ${doc.document_id} is attached to plan ${plan} and this version is in effect `
      + `from ${period(versionData)}, so it changes the requirements it names in the documents it overrides.`;
  }
  if (ctx.contract && ctx.contract.terms_anchor === "contract_date") {
    const moved = r.requested_date ? `; the requested date ${r.requested_date} does not move it to a later version` : "";
    return `${version} governs: contract ${ctx.contract.id} is anchored to its own date, so the terms in effect on `
      + `${ctx.contract.effective_date} (${period(versionData)}) apply for the contract's whole term${moved}.`;
  }
  const day = r.effective_date || r.as_of_date;
  if (ctx.contract && !r.requested_date) {
    return `${version} governs: it is in effect on ${day} (${period(versionData)}), contract ${ctx.contract.id}'s `
      + "own date, since the request gives none.";
  }
  return `${version} governs: it is the version in effect on ${day} (${period(versionData)}).`;
}

// What to do after an answer that is not a decision: the facts to ask for and the clauses to read.
function nextStepOf(r) {
  const read = new Set();
  // The facts to ask for are the ones the answer names as missing, each with the clause that needs it.
  const ask = (r.missing_facts || []).map((m) => {
    const text = typeof m === "string" ? m : JSON.stringify(m);
    const criterion = (r.criteria || []).find((c) => c.result === "unknown" && (c.missing === text || c.criterion === text));
    if (criterion) read.add(criterion.clause_id);
    return { text, clause: criterion ? criterion.clause_id : null };
  });
  for (const c of r.citations || []) {
    if (r.gate === "REVIEW" || Object.values(c.checks || {}).some((ok) => !ok)) read.add(c.clause_id);
  }
  for (const reason of r.reasons || []) {
    for (const match of String(reason.text).matchAll(/\bclause ([A-Za-z0-9][\w-]*(?:\.[\w-]+)+)/g)) read.add(match[1]);
  }
  return { ask, read: [...read] };
}

function printRfi() {
  document.body.classList.add("printing-rfi");
  window.print();
  document.body.classList.remove("printing-rfi");
}

// The "next step" panel of a determination that a person must finish (REFUSE, REVIEW, HALT).
function nextStepPanel(r, request) {
  if (r.gate === "DETERMINE") return null;
  const { ask, read } = nextStepOf(r);
  const lead = {
    REFUSE: "No determination yet: ask the provider for what is missing, then send the request again.",
    REVIEW: "A handler must review before anything goes out: read the clauses below and sign or change the outcome.",
    HALT: "The request cannot be assessed as sent: correct the fields named below and send it again.",
  }[r.gate];
  const facts = ask.length
    ? h("ul", { "data-testid": "ask-for" }, ask.map((a) => h("li", { "data-testid": "ask-item" }, a.text,
      a.clause ? [" — ", clauseLink(a.clause)] : "")))
    : h("p", { class: "empty" }, r.gate === "HALT" ? "no facts: the request itself needs correcting" : "no missing facts");
  const clauses = read.length
    ? h("ul", { "data-testid": "read-clauses" }, read.map((id) => h("li", {}, clauseLink(id))))
    : h("p", { class: "empty" }, "none");
  const fields = r.gate === "HALT"
    ? h("ul", {}, r.reasons.map((x) => h("li", { "data-testid": "fix-field" }, x.text))) : null;
  const rfi = h("div", { class: "rfi", "data-testid": "rfi" },
    h("h3", {}, "Request for information"),
    h("p", {}, `Regarding ${request.payer_id || "—"} / ${request.plan_id || "—"}, procedure ${
      (request.procedure_codes || []).join(", ") || "—"}, date of service ${request.as_of_date || "—"}; `
      + `reference ${r.assertion_id}.`),
    h("p", {}, ask.length ? "Please provide documentation of:" : "Please review:"),
    ask.length ? h("ol", {}, ask.map((a) => h("li", {}, a.text, a.clause ? ` (required by ${a.clause})` : ""))) : null,
    read.length ? h("p", {}, `Policy clauses concerned: ${read.join(", ")}.`) : null);
  return panel("Next step", { class: "next-step", testid: "next-step" },
    h("p", { class: "lead" }, lead), fields,
    h("h3", {}, "Facts to ask for"), facts,
    h("h3", {}, "Clauses to read"), clauses,
    rfi,
    h("button", { type: "button", class: "print", "data-testid": "print-rfi", onclick: printRfi },
      "Print the request for information"));
}

// The next step of a search a person must finish (refused, or a part left unsettled).
function searchNextStep(r, request) {
  if (r.status === "answered" && r.action === "none") return null;
  // First the clauses the answer names without settling them (a cap "fixed elsewhere"), then the
  // passages below the threshold.
  const sources = new Set(r.sources.filter((x) => x.settles !== false).map((x) => x.clause_id));
  const named = [...String(r.answer).matchAll(/(?<=; )([A-Za-z0-9][\w-]*(?:\.[\w-]+)+)(?=\))/g)].map((m) => m[1]);
  const read = [...new Set([...named.filter((id) => !sources.has(id)), ...r.below_threshold.map((b) => b.clause_id)])];
  return panel("Next step", { class: "next-step", testid: "next-step" },
    h("p", { class: "lead" }, r.status === "refused"
      ? "Nothing in the governing terms answers this question: a handler answers it, or asks for the document that would."
      : "Part of the question is not settled by the governing terms: a handler settles it."),
    r.unsettled.length ? [h("h3", {}, "Parts to settle"),
      h("ul", { "data-testid": "ask-for" }, r.unsettled.map((u) => h("li", { "data-testid": "ask-item" }, u)))] : null,
    h("h3", {}, "Clauses to read"),
    read.length ? h("ul", { "data-testid": "read-clauses" }, read.map((id) => h("li", {}, clauseLink(id))))
      : h("p", { class: "empty" }, "none"),
    h("div", { class: "rfi", "data-testid": "rfi" }, h("h3", {}, "Request for information"),
      h("p", {}, `Question: ${request.question || ""}; terms of ${r.contract_id || `${r.payer_id} / ${r.plan_id}`}, `
        + `effective ${r.effective_date || "—"}; reference ${r.trace_id}.`),
      r.unsettled.length ? h("p", {}, `Not settled by the terms: ${r.unsettled.join("; ")}.`) : null),
    h("button", { type: "button", class: "print", "data-testid": "print-rfi", onclick: printRfi },
      "Print the request for information"));
}
