// clinqa web page: ask, show the answer with clickable citations, open a cited passage in its
// section with the quoted text highlighted, send feedback and read it back. An empty page offers
// example questions (GET /examples) and says what the store holds (GET /stats, GET /documents);
// ?q= (with optional since, until, source) asks on load, and every question asked is put in the URL.
// Every question asked from the main box starts a conversation (POST /ask with conversation: true); the
// follow-up box under the answer continues it (conversation_id), the earlier turns stay above as a thread
// (the question as typed, "Answering: <standalone question>" when it was read otherwise, the answer and its
// sources), and "New conversation" starts over.
// Every piece of server text is inserted with textContent / text nodes, never innerHTML.
"use strict";

(function () {
  const KEY_STORE = "clinqa.apiKey";
  const SCORE_NAMES = { "1": "Excellent", "0.6": "Acceptable", "0.2": "Very poor" };
  const $ = (id) => document.getElementById(id);
  const state = { answer: null, queryId: null, score: null, pending: false, asked: false, examples: [],
                  docsLoaded: false, conversationId: null, conversationBody: null, thread: [] };
  const MAX_LISTED_DOCUMENTS = 500;
  const URL_FILTERS = [["since", "since"], ["until", "until"], ["source", "source"]];  // never the patient

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = v;
      else if (k === "dataset") Object.assign(node.dataset, v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) {
      if (c !== null && c !== undefined) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function apiKey() {
    return $("api-key").value.trim();
  }

  function headers(json) {
    const h = { "X-Clinqa-Client": "web", "Accept": "application/json" };
    if (json) h["Content-Type"] = "application/json";
    const key = apiKey();
    if (key) h["X-API-Key"] = key;
    return h;
  }

  function errorText(status, body) {
    let detail = body && body.detail;
    if (Array.isArray(detail)) {
      detail = detail.map((d) => (d.loc ? d.loc.filter((x) => x !== "body").join(".") + ": " : "") + d.msg).join("; ");
    }
    const what = { 401: "API key missing or not accepted", 403: "Not allowed", 404: "Not found",
                   409: "Not available", 413: "Request too large", 422: "Invalid input" }[status] || "Error";
    return `${what} (${status})${detail ? ": " + detail : ""}`;
  }

  async function call(method, path, body) {
    const resp = await fetch(path, {
      method, headers: headers(body !== undefined), body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    if (!resp.ok) throw new Error(errorText(resp.status, data));
    return data;
  }

  function setStatus(text, isError) {
    const s = $("status");
    s.textContent = text || "";
    s.classList.toggle("error", !!isError);
  }

  // -- API key and patient scope ------------------------------------------------------------
  async function checkKey() {
    const status = $("key-status");
    const hint = $("patient-hint");
    const list = $("patient-list");
    clear(list);
    try {
      const me = await call("GET", "/whoami");
      const patient = $("patient");
      if (me.patients === "*") {
        patient.disabled = false;
        hint.textContent = "This key may read every patient's notes.";
      } else if (me.patients.length) {
        patient.disabled = false;
        me.patients.forEach((p) => list.append(el("option", { value: p })));
        hint.textContent = "This key may read the notes of: " + me.patients.join(", ") + ".";
      } else {
        patient.value = "";
        patient.disabled = true;
        hint.textContent = "Patient notes are not available with " + (me.name ? "this key." : "anonymous access.");
      }
      status.textContent = me.name ? `Key accepted: ${me.name}.` : (me.keys_required ? "" : "No key needed.");
      status.classList.remove("error");
      loadStore();
      if (state.pending) {
        state.pending = false;
        $("ask-form").requestSubmit();
      }
    } catch (e) {
      status.textContent = e.message;
      status.classList.add("error");
      hint.textContent = "";
      if (state.pending) setStatus("Enter an API key that is accepted (above) to ask this question.", true);
    }
  }

  function saveKey() {
    try {
      if (apiKey()) localStorage.setItem(KEY_STORE, apiKey());
      else localStorage.removeItem(KEY_STORE);
    } catch (e) { /* storage disabled: the key lives in the field only */ }
    checkKey();
  }

  // -- answer ----------------------------------------------------------------------------------
  // `turn`: the index in state.thread of an earlier turn's answer; undefined for the latest answer
  function citationButton(c, turn) {
    const dataset = { n: String(c.n) };
    if (turn !== undefined) dataset.turn = String(turn);
    return el("button", {
      type: "button", class: "cite", text: `[${c.n}]`, "data-testid": `cite-${c.n}`,
      "aria-label": `Open source ${c.n}: ${c.title}`, dataset,
    });
  }

  function renderAnswerText(container, text, byN, turn) {
    clear(container);
    for (const line of text.split("\n")) {
      const p = el("p");
      let last = 0;
      const re = /\[(\d+)\]/g;
      let m;
      while ((m = re.exec(line)) !== null) {
        const c = byN.get(Number(m[1]));
        if (!c) continue;
        p.append(document.createTextNode(line.slice(last, m.index)));
        p.append(citationButton(c, turn));
        last = m.index + m[0].length;
      }
      p.append(document.createTextNode(line.slice(last)));
      container.append(p);
    }
  }

  function safeUrl(u) {
    return /^https?:\/\//i.test(u || "") ? u : null;
  }

  // "p. 4", "pp. 4-5", or "" when the source has no pages (as the CLI prints them)
  function pagesLabel(start, end) {
    if (start === null || start === undefined) return "";
    return end === null || end === undefined || end === start ? `p. ${start}` : `pp. ${start}-${end}`;
  }

  function pages(c) {
    if (c.page_start === null || c.page_start === undefined) return "";
    const p = (c.page_end !== null && c.page_end !== undefined && c.page_end !== c.page_start)
      ? `pp. ${c.page_start}\u2013${c.page_end}` : `p. ${c.page_start}`;
    return c.section ? ", " + p : p;
  }

  // What a refusal says: the answer text when it starts with the reason (the reason sentence plus
  // any clause the pipeline added), else the reason alone (older answers also listed the topics in
  // the text; they are shown once, below). Same rule as the command line (clinqa.cli.render.refusal_sentence).
  function refusalSentence(a) {
    const reason = (a.reason || "").trim();
    const text = (a.answer || "").trim();
    if (!reason) return text;
    return text.startsWith(reason.replace(/\.$/, "")) ? text : reason;
  }

  // Related topics as [{title, section, chunk_id}], each once: from `related`, else parsed from the
  // "Title > A > B" strings of `related_topics` (no passage to open then).
  function relatedItems(a) {
    let items = (a.related || []).map((r) => ({ title: r.title || "", section: r.section || "",
                                                chunk_id: r.chunk_id || null }));
    if (!items.length) {
      items = (a.related_topics || []).map((t) => {
        const parts = String(t).split(" > ").map((x) => x.trim());
        return { title: parts[0], section: parts.length > 1 ? parts[parts.length - 1] : "", chunk_id: null };
      });
    }
    const seen = new Set();
    return items.filter((r) => {
      const key = r.title + "\u0000" + r.section;
      if (seen.has(key) || !(r.title || r.section)) return false;
      seen.add(key);
      return true;
    });
  }

  function gateText(g) {
    if (!g || g.signal === null || g.signal === undefined) return "No passage matched the question.";
    const kind = g.kind === "rerank" ? "reranker score" : "similarity of the closest passage";
    let t = `The ${kind} was ${Number(g.signal).toFixed(3)}`;
    if (g.threshold !== null && g.threshold !== undefined) {
      t += `; answers need at least ${Number(g.threshold).toFixed(3)}`;
    }
    if (g.calibration) t += ` (threshold: ${g.calibration})`;
    return t + ".";
  }

  function renderRefusal(a) {
    const container = $("answer");
    clear(container);
    container.append(el("p", { "data-testid": "refusal-reason", text: refusalSentence(a) }));
    const topics = $("topics");
    clear(topics);
    const items = relatedItems(a);
    $("topics-box").hidden = !items.length;
    for (const r of items) {
      const label = r.section ? `${r.title} \u2014 ${r.section}` : r.title;
      let node;
      if (r.chunk_id) {
        // an inline link (not a button) wraps like text, so the bullet stays on its first line
        node = el("a", { href: "#passage", text: label, "data-testid": "related-topic",
                         dataset: { chunkId: r.chunk_id } });
        node.addEventListener("click", (e) => { e.preventDefault(); openChunk(r.chunk_id, "", r.title); });
      } else {
        node = el("span", { text: label, "data-testid": "related-topic" });
      }
      topics.append(el("li", {}, node));
    }
    $("gate-box").open = false;
    $("gate-text").textContent = gateText(a.gate);
  }

  // Citations grouped so each source is listed once (two passages of one section: "[2] [3] Title"),
  // in the order of their first number; same key as the command line (clinqa.cli.render.source_groups).
  function sourceGroups(citations) {
    const groups = new Map();
    for (const c of citations) {
      const key = JSON.stringify([c.title, c.year, c.section, c.page_start, c.page_end, c.url || c.source,
                                  c.note_date, c.also_in || []]);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(c);
    }
    return [...groups.values()];
  }

  function renderSources(citations) {
    const list = $("sources");
    clear(list);
    $("sources-title").hidden = !citations.length;
    for (const group of sourceGroups(citations)) {
      const c = group[0];
      const year = c.year ? ` (${c.year})` : "";
      const li = el("li", { "data-testid": `source-${c.n}` });
      for (const x of group) li.append(citationButton(x), " ");
      li.append(el("strong", { text: c.title + year }));
      const bits = [];
      if (c.section || c.page_start) bits.push((c.section || "") + pages(c));
      if (c.note_date) bits.push("note of " + c.note_date);
      if (c.source) bits.push(c.source);
      if (bits.length) li.append(el("div", { class: "hint", text: bits.join(" · ") }));
      const url = safeUrl(c.url);
      if (url) li.append(el("a", { href: url, rel: "noopener noreferrer", target: "_blank", text: c.url }));
      if (c.also_in && c.also_in.length) {
        li.append(el("div", { class: "hint", text: "Same text also in: " + c.also_in.join("; ") }));
      }
      list.append(li);
    }
  }

  // The pipeline's warnings are written for the command line: "(see 'sentences' in --json)" points
  // at the JSON output. On the page the sentences are listed under "Generated sentences and their
  // checks", so point there instead and drop any other "--json" hint.
  function webWarning(text) {
    return String(text)
      .replace(/\s*\(see 'sentences' in --json\)/g, " (listed under \u201cGenerated sentences and their checks\u201d)")
      .replace(/\s*\(see '[^']*' in --json\)/g, "");
  }

  function renderGenerated(a) {
    const box = $("sentences-box");
    const ol = $("sentences");
    clear(ol);
    box.hidden = !(a.sentences && a.sentences.length);
    if (!box.hidden) {
      const dropped = a.sentences.filter((s) => !s.supported).length;
      $("sentences-summary").textContent =
        `Generated sentences and their checks: ${a.sentences.length - dropped} supported, ${dropped} not supported`;
      for (const s of a.sentences) {
        const li = el("li", { class: s.supported ? "supported" : "unsupported",
                              "data-testid": s.supported ? "sentence-supported" : "sentence-unsupported" },
                      el("span", { class: "badge", text: s.supported ? "supported" : "not supported" }), " ",
                      s.text);
        const reasons = s.reasons || [];
        if (reasons.length) li.append(el("div", { class: "hint", text: reasons.join("; ") }));
        ol.append(li);
      }
      if (dropped) box.open = true;
    }
    const u = a.llm || {};
    const usage = $("usage");
    usage.hidden = true;
    if (u.error) {
      usage.textContent = `Language model (${u.backend}) failed: ${u.error}`;
      usage.hidden = false;
    } else if (u.prompt_tokens !== undefined) {
      const cost = (u.cost_usd === null || u.cost_usd === undefined) ? "cost unknown"
        : "$" + Number(u.cost_usd).toFixed(6);
      const secs = u.latency_ms !== undefined ? `, ${(u.latency_ms / 1000).toFixed(1)} s` : "";
      usage.textContent = `Model: ${u.backend} ${u.model || ""}: ${u.prompt_tokens} prompt + ` +
        `${u.completion_tokens} completion tokens${u.token_source ? " (" + u.token_source + ")" : ""}, ${cost}${secs}`;
      usage.hidden = false;
    }
  }

  // What a turn was asked as ("and 8 weeks?") and, when the follow-up was read otherwise, what it answered.
  function answeringText(a) {
    const standalone = (a.standalone_question || "").trim();
    return standalone && standalone !== (a.question || "").trim() ? "Answering: " + standalone : "";
  }

  // An earlier turn of the conversation: its question, "Answering: ...", the answer with its citations (they
  // open in the passage panel as the latest answer's do) or the refusal, and its sources, one line each.
  function threadItem(a, turn) {
    const li = el("li", { "data-testid": "turn" });
    li.append(el("p", { class: "asked", "data-testid": "turn-question", text: a.question }));
    const answering = answeringText(a);
    if (answering) li.append(el("p", { class: "answering", "data-testid": "turn-answering", text: answering }));
    const body = el("div", { class: "answer" + (a.refused ? " refused" : ""), "data-testid": "turn-answer" });
    if (a.refused) body.append(el("p", { text: refusalSentence(a) }));
    else renderAnswerText(body, a.answer, new Map((a.citations || []).map((c) => [c.n, c])), turn);
    li.append(body);
    const sources = el("ul", { class: "turn-sources", "data-testid": "turn-sources" });
    for (const group of sourceGroups(a.citations || [])) {
      const c = group[0];
      const item = el("li", {});
      for (const x of group) item.append(citationButton(x, turn), " ");
      item.append(c.title + (c.year ? ` (${c.year})` : "") + (c.section ? ` \u2014 ${c.section}` : ""));
      sources.append(item);
    }
    if (sources.firstChild) li.append(sources);
    return li;
  }

  function renderThread() {
    const list = $("thread-list");
    clear(list);
    state.thread.forEach((a, i) => list.append(threadItem(a, i)));
    $("thread").hidden = !state.thread.length;
  }

  function renderAnswer(a) {
    state.answer = a;
    state.queryId = a.query_id;
    const byN = new Map((a.citations || []).map((c) => [c.n, c]));
    $("result").hidden = false;
    $("passage").hidden = true;
    $("asked").textContent = a.question || "";
    const answering = answeringText(a);
    $("answering").textContent = answering;
    $("answering").hidden = !answering;
    $("mode").textContent = {
      extractive: "Answer quoted from the sources:",
      generated: "Answer written by the language model; each sentence checked against the passages it cites:",
      refusal: "No answer from the ingested documents.",
    }[a.mode] || a.mode;
    const applied = [];
    const f = a.filters || {};
    if (f.patient_id) applied.push("patient " + f.patient_id);
    if (f.year_min || f.year_max) applied.push(`years ${f.year_min || "…"}–${f.year_max || "…"}`);
    if (f.sources && f.sources.length) applied.push("source " + f.sources.join(", "));
    let appliedText = applied.length ? "Filters: " + applied.join("; ") + "." : "";
    if (a.time_filter) appliedText += ` Time filter read from the question: ${a.time_filter}.`;
    if (a.cache_hit) appliedText += " (from the answer cache)";
    $("applied").textContent = appliedText.trim();
    const w = $("warnings");
    clear(w);
    for (const text of a.warnings || []) w.append(el("li", { text: webWarning(text) }));
    const missing = a.refused ? [] : (a.missing_terms || []);
    if (missing.length && !missing.every((t) => (a.warnings || []).some((x) => x.includes(`'${t}'`)))) {
      w.append(el("li", { text: "No quoted passage mentions " + missing.map((t) => `'${t}'`).join(", ") +
                                 ": check that the sources answer the question" }));
    }
    const redacted = (a.identifiers || []).filter((i) => i.redacted);
    if (redacted.length) {
      w.append(el("li", { text: `${redacted.length} identifier(s) redacted: ` +
                                 [...new Set(redacted.map((i) => i.type))].join(", ") }));
    }
    const refusal = $("refusal");
    refusal.hidden = !a.refused;
    if (a.refused) renderRefusal(a);
    else renderAnswerText($("answer"), a.answer, byN);
    $("answer").classList.toggle("refused", !!a.refused);
    renderGenerated(a);
    renderSources(a.citations || []);
    resetFeedback();
  }

  // The filters of the form, as the body of POST /ask (without the question).
  function filterBody() {
    const body = {};
    const since = $("since").value.trim();
    const until = $("until").value.trim();
    const source = $("source").value.trim();
    const patient = $("patient").disabled ? "" : $("patient").value.trim();
    if (since) body.since = Number(since);
    if (until) body.until = Number(until);
    if (source) body.sources = [source];
    if (patient) body.patient_id = patient;
    return body;
  }

  // A question from the main box: a new conversation, with the filters of the form (kept for its follow-ups:
  // the patient scope of a conversation never changes).
  async function ask(ev) {
    ev.preventDefault();
    const question = $("question").value.trim();
    if (!question) return;
    const filters = filterBody();
    shareableUrl(question);
    state.asked = true;
    $("examples").hidden = true;
    const button = $("ask-button");
    button.disabled = true;
    setStatus("Searching the documents…");
    try {
      const a = await call("POST", "/ask", { question, ...filters, conversation: true });
      setStatus("");
      state.conversationId = a.conversation_id || null;
      state.conversationBody = filters;
      state.thread = [];
      renderThread();
      renderAnswer(a);
      showFollowup();
    } catch (e) {
      setStatus(e.message, true);
    } finally {
      button.disabled = false;
    }
  }

  function showFollowup() {
    const form = $("followup-form");
    form.hidden = !state.conversationId;
    $("followup").value = "";
  }

  // A follow-up: the next turn of the conversation; the answer so far moves up into the thread.
  async function askFollowup(ev) {
    ev.preventDefault();
    const question = $("followup").value.trim();
    if (!question || !state.conversationId) return;
    const button = $("followup-button");
    button.disabled = true;
    setStatus("Searching the documents…");
    try {
      const a = await call("POST", "/ask", { question, ...state.conversationBody,
                                             conversation_id: state.conversationId });
      setStatus("");
      if (state.answer) state.thread.push(state.answer);
      renderThread();
      renderAnswer(a);
      showFollowup();
      shareableUrl(a.standalone_question || question);  // a link asks the question as it was answered
      $("result").scrollIntoView({ block: "start", behavior: "smooth" });
    } catch (e) {
      const gone = /\(404\)/.test(e.message);
      setStatus(gone ? "This conversation is no longer available (expired, or started with another key): " +
                       "start a new conversation." : e.message, true);
    } finally {
      button.disabled = false;
    }
  }

  // Start over: no thread, no answer, an empty question box (the filters stay), the examples back.
  function newConversation() {
    state.conversationId = null;
    state.conversationBody = null;
    state.thread = [];
    state.answer = null;
    state.queryId = null;
    state.asked = false;
    renderThread();
    for (const id of ["result", "followup-form", "passage", "feedback"]) $(id).hidden = true;
    $("question").value = "";
    $("followup").value = "";
    setStatus("");
    try {
      history.replaceState(null, "", location.pathname);
    } catch (e) { /* the URL stays */ }
    $("examples").hidden = !state.examples.length;
    $("question").focus();
  }

  // -- the question in the URL ---------------------------------------------------------------------
  // ?q=<question> (and since, until, source when set; never the patient: no patient id in a link) so an
  // answer can be linked; replaceState, so Back leaves the page as before.
  function shareableUrl(question) {
    const params = new URLSearchParams({ q: question });
    for (const [name, id] of URL_FILTERS) {
      const v = $(id).value.trim();
      if (v) params.set(name, v);
    }
    try {
      history.replaceState(null, "", location.pathname + "?" + params.toString());
    } catch (e) { /* a page opened from a file or a sandbox: the URL stays */ }
  }

  // The question (and filters) of ?q=: filled in; true when there is one to ask.
  function questionFromUrl() {
    const params = new URLSearchParams(location.search);
    const q = (params.get("q") || "").trim();
    if (!q) return false;
    $("question").value = q;
    for (const [name, id] of URL_FILTERS) {
      const v = (params.get(name) || "").trim();
      if (v) {
        $(id).value = v;
        $("filters").open = true;
      }
    }
    return true;
  }

  // -- what the store holds, example questions ---------------------------------------------------------
  function plural(n, one, many) {
    return `${n} ${n === 1 ? one : many}`;
  }

  function storeSummary(s) {
    if (!s.documents) return "Nothing has been ingested yet: run “clinqa ingest PATH” first.";
    const sources = Object.entries(s.sources || {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    let text = plural(s.documents, "document", "documents");
    if (sources.length) {
      text += ` from ${plural(sources.length, "source", "sources")} (` +
        sources.map(([name, n]) => `${name || "no source"}: ${n}`).join(", ") + ")";
    }
    const years = Object.keys(s.years || {}).map(Number).filter((y) => y > 0).sort((a, b) => a - b);
    if (years.length) {
      const first = years[0];
      const last = years[years.length - 1];
      text += first === last ? `, dated ${first}` : `, dated ${first}–${last}`;
    }
    if (s.patients) text += `; notes of ${plural(s.patients, "patient", "patients")} this key may read`;
    return text + ".";
  }

  function renderStore(s) {
    $("store-summary").textContent = storeSummary(s);
    $("doc-box").hidden = !s.documents;
    $("store").hidden = false;
  }

  function renderExamples(examples) {
    state.examples = examples;
    const list = $("example-list");
    clear(list);
    for (const ex of examples) {
      const b = el("button", { type: "button", class: "example", text: ex.question, "data-testid": "example",
                               title: `From “${ex.title}”, section “${ex.section}”` });
      b.addEventListener("click", () => {
        $("question").value = ex.question;
        $("ask-form").requestSubmit();
      });
      list.append(el("li", {}, b));
    }
    $("examples").hidden = !examples.length || state.asked;
  }

  // The summary and the examples for the key in the field (its scope decides what /stats counts).
  function loadStore() {
    state.docsLoaded = false;
    $("doc-box").open = false;
    clear($("doc-list"));
    $("doc-note").textContent = "";
    call("GET", "/stats").then(renderStore, () => { $("store").hidden = true; });
    call("GET", "/examples").then((d) => renderExamples(d.examples || []), () => renderExamples([]));
  }

  // GET /documents (what this key may see), listed when the list is first opened.
  async function loadDocuments() {
    if (state.docsLoaded || !$("doc-box").open) return;
    state.docsLoaded = true;
    const list = $("doc-list");
    const note = $("doc-note");
    note.textContent = "Loading…";
    try {
      const d = await call("GET", "/documents");
      clear(list);
      for (const doc of d.documents.slice(0, MAX_LISTED_DOCUMENTS)) {
        const meta = [doc.year, doc.source].filter((x) => x !== null && x !== undefined && x !== "").join(", ");
        list.append(el("li", { "data-testid": "document" }, doc.title || doc.doc_id, meta ? ` (${meta})` : ""));
      }
      note.textContent = d.count > MAX_LISTED_DOCUMENTS
        ? `The first ${MAX_LISTED_DOCUMENTS} of ${d.count} documents (by id); GET /documents lists them all.` : "";
    } catch (e) {
      state.docsLoaded = false;
      note.textContent = e.message;
    }
  }

  // -- cited passage -----------------------------------------------------------------------------
  // The passage with every highlight span in a <mark>. The server's offsets count code points (Python
  // strings), JavaScript strings count UTF-16 units: the body is sliced as an array of code points, so a
  // character outside the BMP before a quote does not shift its highlight.
  function highlighted(body, spans) {
    const frag = el("div", { class: "passage-text", "data-testid": "passage-cited" });
    const chars = Array.from(body);
    const text = (a, b) => chars.slice(a, b).join("");
    let pos = 0;
    for (const [start, end] of [...spans].sort((x, y) => x[0] - y[0])) {
      const s = Math.max(start, pos);
      if (end <= s) continue;
      frag.append(document.createTextNode(text(pos, s)));
      frag.append(el("mark", { "data-testid": "highlight", text: text(s, end) }));
      pos = end;
    }
    frag.append(document.createTextNode(text(pos)));
    return frag;
  }

  // Citation n of the latest answer, or of the earlier turn `turn` (an index in state.thread).
  async function openPassage(n, turn) {
    const a = turn === undefined ? state.answer : state.thread[Number(turn)];
    const c = a && (a.citations || []).find((x) => x.n === n);
    if (!c) return;
    await openChunk(c.chunk_id, c.quote || "", "source " + n, `[${n}] `);
  }

  // Show a chunk in the passage panel (GET /chunks/{id}), `quote` highlighted; `what` names it in
  // the status line, `prefix` starts the title ("[2] " for a citation).
  async function openChunk(chunkId, quote, what, prefix) {
    const panel = $("passage");
    setStatus("Opening " + what + "…");
    try {
      const q = new URLSearchParams({ highlight: quote, context: "2" });
      const chunk = await call("GET", "/chunks/" + encodeURIComponent(chunkId) + "?" + q.toString());
      setStatus("");
      $("passage-title").textContent = `${prefix || ""}${chunk.title}${chunk.year ? " (" + chunk.year + ")" : ""}`;
      const meta = [];
      if (chunk.note_date) meta.push(`${chunk.note_type || "note"} of ${chunk.note_date}`);
      if (chunk.source) meta.push(chunk.source);
      const pages = pagesLabel(chunk.page_start, chunk.page_end);
      if (pages) meta.push(pages + (chunk.ocr ? " (text read by OCR)" : ""));
      meta.push(chunk.doc_id);
      $("passage-meta").textContent = meta.join(" · ");
      $("passage-section").textContent = chunk.section || "Overview";
      const body = $("passage-body");
      clear(body);
      for (const p of chunk.previous) body.append(el("div", { class: "context", text: p.body }));
      body.append(highlighted(chunk.body, chunk.highlights || []));
      for (const p of chunk.next) body.append(el("div", { class: "context", text: p.body }));
      const note = $("passage-note");
      note.hidden = !!(chunk.highlights || []).length || !quote;
      note.textContent = note.hidden ? "" : "The quoted text was reformatted (a table row or list item with its " +
        "label): it is in the passage above, not word for word. Quoted: " + quote;
      panel.hidden = false;
      panel.focus();
      const mark = panel.querySelector("mark");
      (mark || panel).scrollIntoView({ block: "center", behavior: "smooth" });
    } catch (e) {
      setStatus(e.message, true);
    }
  }

  // -- feedback ----------------------------------------------------------------------------------
  function resetFeedback() {
    state.score = null;
    document.querySelectorAll("#feedback .score").forEach((b) => b.setAttribute("aria-pressed", "false"));
    $("fb-comment").value = "";
    $("fb-category").value = "";
    $("fb-submit").disabled = true;
    $("fb-confirm").textContent = "";
    $("feedback").hidden = !state.queryId;
  }

  function scoreName(score) {
    return SCORE_NAMES[String(Number(score))] || String(score);
  }

  async function sendFeedback() {
    if (!state.queryId || state.score === null) return;
    const category = $("fb-category").value || null;
    const confirm = $("fb-confirm");
    $("fb-submit").disabled = true;
    try {
      await call("POST", "/feedback", { query_id: state.queryId, score: state.score,
                                       comment: $("fb-comment").value.trim(), category });
      const rec = await call("GET", "/queries/" + encodeURIComponent(state.queryId));
      const items = rec.feedback || [];
      const last = items[items.length - 1] || {};
      const parts = [`${scoreName(last.score)} (${last.score})`];
      if (last.category) parts.push("category: " + String(last.category).replace(/_/g, " "));
      if (last.comment) parts.push(`comment: “${last.comment}”`);
      confirm.textContent = `Thank you. Recorded for this answer: ${parts.join(", ")}` +
        (items.length > 1 ? ` (${items.length} grades so far).` : ".");
      confirm.classList.remove("error");
    } catch (e) {
      confirm.textContent = e.message;
      confirm.classList.add("error");
      $("fb-submit").disabled = false;
    }
  }

  // -- wiring ------------------------------------------------------------------------------------
  document.addEventListener("DOMContentLoaded", () => {
    try {
      const saved = localStorage.getItem(KEY_STORE);
      if (saved) $("api-key").value = saved;
    } catch (e) { /* no storage */ }
    $("save-key").addEventListener("click", saveKey);
    $("api-key").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); saveKey(); } });
    $("ask-form").addEventListener("submit", ask);
    $("followup-form").addEventListener("submit", askFollowup);
    $("followup").addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("followup-form").requestSubmit();
    });
    $("new-conversation").addEventListener("click", newConversation);
    $("question").addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("ask-form").requestSubmit();
    });
    document.body.addEventListener("click", (e) => {
      const b = e.target.closest("button.cite");
      if (b) openPassage(Number(b.dataset.n), b.dataset.turn);
    });
    $("passage-close").addEventListener("click", () => { $("passage").hidden = true; });
    document.querySelectorAll("#feedback .score").forEach((b) => b.addEventListener("click", () => {
      state.score = Number(b.dataset.score);
      document.querySelectorAll("#feedback .score").forEach((x) => x.setAttribute("aria-pressed", String(x === b)));
      $("fb-submit").disabled = false;
    }));
    $("fb-submit").addEventListener("click", sendFeedback);
    $("doc-box").addEventListener("toggle", loadDocuments);
    state.pending = questionFromUrl();
    if (document.body.dataset.keysRequired !== "true" || apiKey()) checkKey();
    else if (state.pending) setStatus("Enter your API key above (Save on this device) to ask this question.");
  });
})();
