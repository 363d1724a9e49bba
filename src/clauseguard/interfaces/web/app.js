// clauseguard handler page: sends the request to the HTTP API and renders its JSON. Decides nothing:
// every gate, outcome, citation and exclusion shown here is read from the API's answer.
"use strict";

const KEY_STORAGE = "clauseguard.apiKey";
const clauseCache = new Map();
const versionCache = new Map();
const notEligible = new Map();  // clause id -> why it may not be used, for the answer on screen
let catalog = null;

// ------------------------------------------------------------------ small DOM helpers (no innerHTML)

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const $ = (selector, root = document) => root.querySelector(selector);
const fmtScore = (s) => (typeof s === "number" ? s.toFixed(2) : "");
const norm = (s) => String(s || "").split(/\s+/).filter(Boolean).join(" ");

// ------------------------------------------------------------------ the API

function apiKey() {
  return $("#api-key").value.trim();
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const key = apiKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  const init = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) {
    // 422: FastAPI's validation shape, a list of {loc, msg}; other errors: {detail: "sentence"}
    const detail = data && data.detail;
    const entries = Array.isArray(detail) ? detail : [];
    const message = entries.length ? entries.map((e) => e.msg).join("; ") : detail;
    const error = new Error(message || `${response.status} ${response.statusText}`);
    error.status = response.status;
    const loc = entries.length ? entries[0].loc.filter((p) => !["body", "query", "path"].includes(p)) : [];
    error.field = loc.length ? String(loc[0]) : null;
    throw error;
  }
  return data;
}

function getClause(id) {
  if (!clauseCache.has(id)) {
    const pending = api("GET", `/v1/clauses/${encodeURIComponent(id)}`);
    pending.catch(() => clauseCache.delete(id));
    clauseCache.set(id, pending);
  }
  return clauseCache.get(id);
}

function getVersions(documentId) {
  if (!versionCache.has(documentId)) {
    const pending = api("GET", `/v1/documents/${encodeURIComponent(documentId)}/versions`);
    pending.catch(() => versionCache.delete(documentId));
    versionCache.set(documentId, pending);
  }
  return versionCache.get(documentId);
}

// ------------------------------------------------------------------ panels

function panel(title, attrs, ...children) {
  return h("section", { class: `panel ${attrs.class || ""}`, "data-testid": attrs.testid, "aria-label": title },
    h("h2", {}, title), children);
}

function passagesTable(rows, { testid, reason = false, read = false }) {
  if (!rows.length) return h("p", { class: "empty" }, "none");
  return h("div", { class: "table-wrap" }, h("table", {},
    h("thead", {}, h("tr", {}, h("th", {}, "clause"), h("th", {}, "version"), h("th", {}, "article / page"),
      h("th", {}, "score"), reason ? h("th", {}, "reason") : null, read ? h("th", {}, "in effect") : null)),
    h("tbody", {}, rows.map((r) => h("tr", { "data-testid": testid, "data-clause-id": r.clause_id },
      h("td", {}, clauseLink(r.clause_id)), h("td", {}, r.version || ""),
      h("td", {}, [r.article, pageText(r) || null].filter(Boolean).join(", ")),
      h("td", { class: "num" }, fmtScore(r.score)),
      reason ? h("td", {}, r.reason || "") : null, read ? h("td", {}, r.in_effect ? "yes" : "no") : null)))));
}

// A clause card: its metadata, and its full text (read from the store) with the cited span highlighted.
function clauseCard(id, { testid, quote, extra = [], header = [] }) {
  const text = h("p", { class: "clause-text empty" }, "loading the clause…");
  const meta = h("span", { class: "meta" });
  const card = h("article", { class: "card", id: `clause-${id}`, tabindex: "-1", "data-testid": testid, "data-clause-id": id },
    h("header", {}, h("span", { class: "cid" }, id), header, meta), extra, text);
  const loaded = getClause(id).then((clause) => {
    meta.textContent = clauseMeta(clause);
    text.replaceWith(highlighted(clause.text, quote));
    return clause;
  }).catch((error) => { text.textContent = error.message; return null; });
  return { card, loaded };
}

function verdict(tone, badge, badgeTestid, main, facts) {
  return h("section", { class: `panel verdict tone-${tone}`, "aria-label": "verdict", "data-testid": "verdict" },
    h("span", { class: "badge", "data-testid": badgeTestid }, badge), main,
    h("div", { class: "facts" }, facts));
}

function fact(label, value, testid) {
  if (value === null || value === undefined || value === "") return null;
  return h("div", {}, `${label}: `, h("b", { "data-testid": testid }, value));
}

function jsonPanel(data) {
  return h("details", { class: "panel" }, h("summary", {}, "Response JSON"),
    h("pre", { style: "white-space: pre-wrap; font-size: .8rem" }, JSON.stringify(data, null, 2)));
}

async function timelinesPanel(documentIds, options) {
  const ids = [...new Set(documentIds)].slice(0, 4);
  if (!ids.length) return null;
  const timelines = await Promise.all(ids.map((id) => renderTimeline(id, options(id))));
  return panel("Version timeline", { testid: "timelines" }, timelines);
}

// ------------------------------------------------------------------ renderers, one per request kind

async function renderSearch(r, request = {}) {
  const tone = r.status === "refused" ? "refused" : r.action === "none" ? "ok" : "escalate";
  const target = r.contract_id ? `contract ${r.contract_id}` : `${r.payer_id} / ${r.plan_id}`;
  const head = verdict(tone, r.status.toUpperCase(), "status",
    h("div", { class: "outcome" }, "action: ", h("span", { "data-testid": "action" }, r.action)),
    [fact("terms of", target), fact("effective", r.effective_date, "effective-date"),
      fact("requested", r.requested_date), fact("applicable version", r.applicable_version || "none", "applicable-version"),
      advancedOpen() ? fact("threshold", r.threshold) : null]);
  notEligible.clear();
  for (const e of r.excluded) notEligible.set(e.clause_id, e.reason);
  const ids = [...r.sources, ...r.below_threshold, ...r.excluded].map((s) => s.clause_id);
  const answer = panel("Answer", { testid: "answer" }, h("p", { class: "answer-text" }, linkified(r.answer, ids)),
    r.unsettled.length ? h("div", {}, h("h3", {}, "Not settled"),
      h("ul", { class: "unsettled" }, r.unsettled.map((u) => h("li", { "data-testid": "unsettled" }, u)))) : null);
  const cards = r.sources.map((s) => clauseCard(s.clause_id, {
    testid: "source", quote: s.excerpt,
    header: [h("span", { class: "meta" }, `score ${fmtScore(s.score)}`),
      s.settles === false ? h("span", { class: "meta unsettling", "data-testid": "settles-nothing" },
        "settles nothing: see the parts not settled") : null],
  }));
  const sources = panel(`Sources above the threshold (${r.sources.length})`, { testid: "sources" },
    cards.length ? h("div", { class: "cards" }, cards.map((c) => c.card)) : h("p", { class: "empty" }, "none: nothing cleared the threshold"));
  const passages = h("div", { class: "passages" },
    panel(`Excluded — not eligible (${r.excluded.length})`, { class: "excluded", testid: "excluded" },
      passagesTable(r.excluded, { testid: "excluded-row", reason: true })),
    panel(`Below the threshold ${r.threshold} (${r.below_threshold.length})`, { class: "below", testid: "below-threshold" },
      passagesTable(r.below_threshold, { testid: "below-row" })));
  const versions = r.applicable_versions || {};
  const docs = [...r.sources, ...r.excluded, ...r.below_threshold].map((s) => s.document_id);
  const contract = r.contract_id && catalog ? catalog.contracts.find((c) => c.id === r.contract_id) : null;
  const [timelines] = await Promise.all([
    timelinesPanel(docs, (doc) => ({
      marks: versions[doc] ? { [versions[doc]]: "governs" } : {},
      others: new Set(r.excluded.filter((e) => e.document_id === doc).map((e) => e.version)),
      date: r.effective_date,
      why: (data) => whyGoverns(versions[doc], data.versions.find((v) => v.version === versions[doc]),
        { answer: r, contract, document: data }),
    })),
    ...cards.map((c) => c.loaded),
  ]);
  return [head, searchNextStep(r, request), answer, sources, passages, timelines, jsonPanel(r)];
}

async function renderDetermination(r, request = {}) {
  const head = verdict(r.gate, r.gate, "gate",
    h("div", { class: "outcome", "data-testid": "outcome" }, r.outcome),
    [fact("assertion", r.assertion_id, "assertion-id"),
      r.policy ? fact("gate policy", r.policy.applied ? `${r.policy.name} (held for a person's signature)`
        : r.policy.name, "gate-policy") : null,
      r.assertion_id ? h("div", {}, h("button", { type: "button", onclick: () => showAudit(r.assertion_id) }, "audit record")) : null]);
  const answer = panel("Answer", { testid: "answer" },
    h("p", { class: "answer-text" }, linkified(r.answer, r.citations.map((c) => c.clause_id))),
    r.reasons.length ? h("ul", { class: "reasons" }, r.reasons.map((x) =>
      h("li", { "data-testid": "reason", "data-code": x.code }, x.text, " ", h("span", { class: "code" }, `(${x.code})`)))) : null,
    r.missing_facts.length ? h("div", {}, h("h3", {}, "Missing facts"),
      h("ul", {}, r.missing_facts.map((m) => h("li", { "data-testid": "missing-fact" }, typeof m === "string" ? m : JSON.stringify(m))))) : null);
  const cards = r.citations.map((c) => clauseCard(c.clause_id, {
    testid: "citation", quote: c.quote,
    extra: [h("p", { class: "statement" }, c.statement), c.read_by ? readByLine(c.read_by) : null,
      h("ul", { class: "checks", "aria-label": "verification checks" }, Object.entries(c.checks || {}).map(([name, ok]) =>
        h("li", { class: ok ? "ok" : "fail", "data-check": name }, `${ok ? "✓" : "✗"} ${name}`)))],
  }));
  const citations = panel(`Citations (${r.citations.length})`, { testid: "citations" },
    cards.length ? h("div", { class: "cards" }, cards.map((c) => c.card)) : h("p", { class: "empty" }, "none"));
  const criteria = r.criteria.length ? panel("Criteria, each mapped to a fact", { testid: "criteria" }, h("table", {},
    h("thead", {}, h("tr", {}, ["clause", "criterion", "clause span", "result", "fact or missing"].map((t) => h("th", {}, t)))),
    h("tbody", {}, r.criteria.map((c) => h("tr", { "data-testid": "criterion" },
      h("td", {}, clauseLink(c.clause_id)), h("td", {}, c.criterion), h("td", {}, `“${c.clause_span}”`),
      h("td", { class: `result-${c.result}` }, c.result + (c.waived ? " (waived)" : "")),
      h("td", {}, c.narrative_span ? `“${c.narrative_span}”` : c.fact || c.missing || "")))))) : null;
  const conflicts = (r.conflicts.length || (r.flags || []).length) ? panel("Conflicts and flags", { testid: "conflicts" },
    h("ul", {}, r.conflicts.map((c) => h("li", {}, c.description || JSON.stringify(c), c.precedence ? ` (${c.precedence})` : "")),
      (r.flags || []).map((f) => h("li", {}, `flag (${f.kind}): ${f.text}`)))) : null;
  const passages = h("div", { class: "passages" },
    panel(`Excluded — not eligible (${r.excluded.length})`, { class: "excluded", testid: "excluded" },
      passagesTable(r.excluded, { testid: "excluded-row", reason: true })),
    panel(`Clauses read (${(r.retrieved || []).length})`, { class: "below", testid: "retrieved" },
      passagesTable(r.retrieved || [], { testid: "retrieved-row", read: true })));
  notEligible.clear();
  for (const e of r.excluded) notEligible.set(e.clause_id, e.reason);
  const clauses = await Promise.all(cards.map((c) => c.loaded));
  const governing = {};
  for (const clause of clauses.filter(Boolean)) governing[clause.document_id] = clause.version;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(request.as_of_date || "") ? request.as_of_date : null;
  const timelines = await timelinesPanel(Object.keys(governing), (doc) => ({
    marks: { [governing[doc]]: "cited" },
    others: new Set(r.excluded.filter((e) => e.document_id === doc).map((e) => e.version)),
    date: day,
    why: (data) => whyGoverns(governing[doc], data.versions.find((v) => v.version === governing[doc]),
      { answer: { ...r, plan_id: request.plan_id, as_of_date: day }, document: data }),
  }));
  return [head, nextStepPanel(r, request), answer, citations, criteria, conflicts, passages, timelines, jsonPanel(r)];
}

function compareSide(name, side) {
  const tone = side.status === "refused" ? "refused" : side.action === "none" ? "ok" : "escalate";
  const ids = [...side.sources, ...side.below_threshold, ...side.excluded].map((s) => s.clause_id);
  return h("section", { class: `panel verdict-side tone-${tone}`, "data-testid": `side-${name}`, "aria-label": `side ${name}` },
    h("h2", {}, `${name.toUpperCase()}: ${side.target}`),
    h("p", {}, h("span", { class: "badge-inline", "data-testid": "status" }, side.status), " · action: ", side.action,
      " · as of ", side.as_of_date || "—"),
    h("p", { class: "meta" }, "versions: ", Object.entries(side.applicable_versions || {}).map(([d, v]) => `${d} ${v}`).join(", ") || "none"),
    h("p", { class: "answer-text" }, linkified(side.answer, ids)),
    h("h3", {}, `Sources (${side.sources.length})`),
    side.sources.length ? h("ul", {}, side.sources.map((s) => h("li", { "data-testid": "side-source", "data-clause-id": s.clause_id },
      clauseLink(s.clause_id), ` (${fmtScore(s.score)}) `, h("q", {}, s.excerpt)))) : h("p", { class: "empty" }, "none"));
}

function diffCell(side) {
  if (!side) return h("td", { class: "side" }, h("span", { class: "empty" }, "—"));
  return h("td", { class: "side" }, clauseLink(side.clause_id), h("br"),
    side.value !== undefined ? h("span", { class: "value" }, side.value) : h("span", {}, side.text || ""));
}

async function renderCompare(r) {
  const head = panel("Compare", { testid: "compare-head" }, h("p", { class: "answer-text" }, r.question),
    h("p", { class: "meta" }, `A: ${r.a.target}   ·   B: ${r.b.target}`));
  const sides = h("div", { class: "two-col" }, compareSide("a", r.a), compareSide("b", r.b));
  const differences = panel(`Differences (${r.differences.length})`, { testid: "differences" },
    r.differences.length ? h("table", { class: "diff" },
      h("thead", {}, h("tr", {}, h("th", {}, "aspect"), h("th", {}, `A — ${r.a.target}`), h("th", {}, `B — ${r.b.target}`), h("th", {}, "summary"))),
      h("tbody", {}, r.differences.map((d) => h("tr", { "data-testid": "difference", "data-aspect": d.aspect },
        h("td", {}, d.aspect), diffCell(d.a), diffCell(d.b), h("td", {}, d.summary))))) : h("p", { class: "empty" }, "no differences found"),
    r.not_compared.length ? h("p", {}, "Not compared (no counterpart): ", r.not_compared.map((id, i) => [i ? ", " : "", clauseLink(id)])) : null);
  const marks = {};
  for (const [name, side] of [["A", r.a], ["B", r.b]]) {
    for (const [doc, version] of Object.entries(side.applicable_versions || {})) {
      marks[doc] = marks[doc] || {};
      marks[doc][version] = marks[doc][version] ? `${marks[doc][version]} and ${name}` : name;
    }
  }
  const docs = [...r.a.sources, ...r.b.sources].map((s) => s.document_id);
  const sideNames = { A: r.a, B: r.b };
  const readBy = (sides) => sides.split(" and ").map((n) => `${n}: ${sideNames[n].target} as of ${sideNames[n].as_of_date}`);
  const timelines = await timelinesPanel(docs, (doc) => ({
    marks: marks[doc] || {},
    why: () => {
      const parts = Object.entries(marks[doc] || {}).map(([version, sides]) =>
        `${version} is what ${sides} read (${readBy(sides).join("; ")})`);
      return parts.length ? `${parts.join("; ")}.` : null;
    },
  }));
  return [head, differences, sides, timelines, jsonPanel(r)];
}

async function showAudit(assertionId) {
  const dialog = $("#clause-dialog");
  $("#clause-dialog-title").textContent = `Audit record ${assertionId}`;
  const body = $("#clause-dialog-body");
  body.replaceChildren(h("p", { class: "empty" }, "loading…"));
  if (!dialog.open) dialog.showModal();
  try {
    const record = await api("GET", `/v1/audit/${encodeURIComponent(assertionId)}`);
    body.replaceChildren(h("p", {}, `recorded ${record.recorded_at} on corpus ${record.corpus_fingerprint}`),
      h("pre", { style: "white-space: pre-wrap; font-size: .8rem" }, JSON.stringify(record.request, null, 2)));
  } catch (error) {
    body.replaceChildren(h("p", {}, error.message));
  }
}

// ------------------------------------------------------------------ forms

function splitCodes(text) {
  return String(text || "").split(/[\s,;]+/).map((c) => c.trim()).filter(Boolean);
}

function requestOf(form) {
  const value = (name) => form.elements[name].value.trim();
  switch (form.dataset.kind) {
    case "search": {
      const body = { question: value("question") };
      if (form.elements["search-target"].value === "contract") body.contract_id = value("contract_id");
      else { body.payer_id = value("payer_id"); body.plan_id = value("plan_id"); }
      if (value("as_of_date")) body.as_of_date = value("as_of_date");
      if (advancedOpen()) {  // handler mode leaves the server's defaults (threshold 0.62, k 3)
        if (value("threshold")) body.threshold = Number(value("threshold"));
        if (value("k")) body.k = Number.parseInt(value("k"), 10);
      }
      return ["/v1/search", body, renderSearch];
    }
    case "determination":
      return ["/v1/determinations", {
        payer_id: value("payer_id"), plan_id: value("plan_id"), procedure_codes: splitCodes(value("procedure_codes")),
        diagnosis_codes: splitCodes(value("diagnosis_codes")), as_of_date: value("as_of_date"),
        narrative: form.elements.narrative.value, question: value("question"),
      }, renderDetermination];
    default: {
      const body = { question: value("question"), a: value("a"), b: value("b") };
      if (value("as_of_date")) body.as_of_date = value("as_of_date");
      return ["/v1/compare", body, renderCompare];
    }
  }
}

async function submit(form) {
  const results = $("#results");
  const [path, body, render] = requestOf(form);
  results.setAttribute("aria-busy", "true");
  results.dataset.state = "loading";
  form.querySelectorAll("[aria-invalid]").forEach((el) => el.removeAttribute("aria-invalid"));
  try {
    const response = await api("POST", path, body);
    const parts = await render(response, body);
    results.replaceChildren(...parts.filter(Boolean));
    results.dataset.kind = form.dataset.kind;
    results.dataset.state = "done";
  } catch (error) {
    const named = error.field && form.querySelector(`[name="${error.field}"]`);
    if (named) named.setAttribute("aria-invalid", "true");
    results.replaceChildren(h("section", { class: "panel error", role: "alert", "data-testid": "error" },
      h("h2", {}, error.status ? `The request was not answered (HTTP ${error.status})` : "The request failed"),
      h("p", {}, error.message)));
    results.dataset.state = "error";
    if (error.status === 401) $(".api-key").open = true;
  } finally {
    results.setAttribute("aria-busy", "false");
    results.focus({ preventScroll: true });
    results.scrollIntoView({ block: "start" });
  }
}

// ------------------------------------------------------------------ the catalog: what can be picked

function advancedOpen() {
  return $("#s-advanced").open;
}

function option(value, label) {
  return h("option", { value }, label || value);
}

function fillPlans() {
  const payer = $("#s-payer").value;
  $("#s-plan").replaceChildren(...catalog.plans.filter((p) => p.payer === payer).map((p) => option(p.id, `${p.id} — ${p.name}`)));
}

async function loadCatalog() {
  try {
    catalog = await api("GET", "/v1/corpus");
  } catch (error) {
    $("#corpus-description").textContent = error.status === 401
      ? "this server needs an API key (top right)" : `corpus not loaded: ${error.message}`;
    if (error.status === 401) $(".api-key").open = true;
    return;
  }
  $("#corpus-description").textContent = `corpus ${catalog.fingerprint.replace("sha256:", "").slice(0, 12)} · `
    + `${catalog.documents.length} documents, ${catalog.plans.length} plans, ${catalog.contracts.length} contracts`;
  $("#s-contract").replaceChildren(...catalog.contracts.map((c) =>
    option(c.id, `${c.id} — ${c.holder || c.plan} (${c.plan}, from ${c.effective_date}, terms by ${c.terms_anchor.replace("_", " ")})`)));
  $("#s-payer").replaceChildren(...catalog.payers.map((p) => option(p.id, `${p.id} — ${p.name}`)));
  fillPlans();
  $("#payer-ids").replaceChildren(...catalog.payers.map((p) => option(p.id, p.name)));
  $("#plan-ids").replaceChildren(...catalog.plans.map((p) => option(p.id, `${p.name} (${p.payer})`)));
  $("#code-ids").replaceChildren(...catalog.codes.map((c) => option(c.code, `${c.system}: ${c.descriptor}`)));
  const targets = [];
  for (const d of catalog.documents) {
    targets.push(option(`${d.kind === "rider" ? "rider" : "document"}:${d.id}`, d.title));
    for (const v of d.versions) targets.push(option(`document:${d.id}@${v}`, `${d.title}, version ${v}`));
  }
  for (const p of catalog.plans) targets.push(option(`plan:${p.id}`, p.name));
  for (const c of catalog.contracts) targets.push(option(`contract:${c.id}`, c.holder));
  $("#compare-targets").replaceChildren(...targets);
}

// ------------------------------------------------------------------ tabs (arrow keys move between them)

function selectTab(tab) {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  for (const t of tabs) {
    const selected = t === tab;
    t.setAttribute("aria-selected", String(selected));
    t.tabIndex = selected ? 0 : -1;
    document.getElementById(t.getAttribute("aria-controls")).hidden = !selected;
  }
  tab.focus();
}

function init() {
  const key = $("#api-key");
  key.value = sessionStorage.getItem(KEY_STORAGE) || "";
  $("#key-form").addEventListener("submit", (event) => { event.preventDefault(); key.dispatchEvent(new Event("change")); });
  key.addEventListener("change", () => { sessionStorage.setItem(KEY_STORAGE, key.value.trim()); loadCatalog(); });

  const tabs = [...document.querySelectorAll('[role="tab"]')];
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", () => selectTab(tab));
    tab.addEventListener("keydown", (event) => {
      const move = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (move) selectTab(tabs[(i + move + tabs.length) % tabs.length]);
      else if (event.key === "Home") selectTab(tabs[0]);
      else if (event.key === "End") selectTab(tabs[tabs.length - 1]);
      else return;
      event.preventDefault();
    });
  });

  for (const radio of document.querySelectorAll('input[name="search-target"]')) {
    radio.addEventListener("change", () => {
      const contract = radio.value === "contract" && radio.checked;
      $(".when-contract").hidden = !contract;
      $(".when-plan").hidden = contract;
    });
  }
  $("#s-payer").addEventListener("change", fillPlans);

  for (const form of document.querySelectorAll("form.request")) {
    form.addEventListener("submit", (event) => { event.preventDefault(); submit(form); });
    form.addEventListener("keydown", (event) => {  // Ctrl+Enter submits from a text area too
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); submit(form); }
    });
  }
  loadCatalog();
}

document.addEventListener("DOMContentLoaded", init);
