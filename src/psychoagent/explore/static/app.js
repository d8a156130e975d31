// The explorer's page: hash routes (#/overview, #/agents, #/agent/ID, #/memory) drawn from the JSON API only.
"use strict";
const $ = (sel, root = document) => root.querySelector(sel);
const view = () => $("#view");
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const fmt = (x, d = 3) => (x === null || x === undefined ? "–" : typeof x === "number" ? (Math.abs(x) >= 1000 ? x.toFixed(0) : +x.toFixed(d)) : esc(x));
async function api(path) {
  let r = await fetch("/api" + path);
  while (r.status === 503) {  // the run's events are being indexed (first open): say so and retry
    view().innerHTML = `<p class="muted" data-testid="indexing">${esc((await r.json()).detail)}</p>`;
    await new Promise((done) => setTimeout(done, 2000));
    r = await fetch("/api" + path);
  }
  const body = await r.json();
  if (!r.ok) throw new Error(body.detail || r.statusText);
  return body;
}
const state = { info: null, run: null, agents: null, sort: { key: "id", dir: 1 }, filters: {} };
const TRAITS = ["risk_preference", "optimism", "learning_rate", "social_tendency"];
const MACRO = [["unemployment", "Unemployment"], ["inflation", "Inflation (monthly)"], ["real_gdp", "Real GDP"], ["price_level", "Price level"], ["interest_rate", "Policy rate"], ["gini", "Gini of wealth"]];
const layout = (title, extra = {}) => ({ title: { text: title, font: { size: 13 } }, margin: { l: 50, r: 10, t: 30, b: 35 }, hovermode: "x unified", xaxis: { title: "month" }, legend: { orientation: "h", y: -0.25 }, ...extra });
const box = (parent) => { const card = document.createElement("div"); card.className = "card"; const el = document.createElement("div"); el.className = "plot"; card.append(el); parent.append(card); return el; };
const plot = (el, traces, lay) => Plotly.newPlot(el, traces, lay, { displaylogo: false, responsive: true });

function shockShapes() {
  return (state.run?.shocks || []).map((s) => ({ type: "rect", xref: "x", yref: "paper", x0: s.start, x1: s.start + (s.duration || 1), y0: 0, y1: 1, fillcolor: "#f79009", opacity: 0.15, line: { width: 0 } }));
}

async function overview() {
  const run = state.run;
  if (!run) return (view().innerHTML = "<p>No run is open: start with <code>psychoagent explore RUN_DIR</code>.</p>");
  const cfg = run.config || {};
  const shocks = run.shocks.map((s) => `<span class="tag bad">${esc(s.kind)} month ${s.start}${s.duration ? "–" + (s.start + s.duration - 1) : ""}${s.factor ? " ×" + s.factor : ""}</span>`).join(" ") || "none";
  const metrics = run.metrics ? Object.entries(run.metrics).filter(([, v]) => v && typeof v === "object").map(([g, v]) => `<tr><td>${esc(g)}</td><td>${Object.entries(v).slice(0, 6).map(([k, x]) => `${esc(k)} ${fmt(x)}`).join(", ")}</td></tr>`).join("") : "";
  view().innerHTML = `<h2 data-testid="overview-title">Economy: ${esc(cfg.scenario?.name || "run")}</h2>
  <div class="card stats"><div><span class="muted">months</span><b>${run.ticks}</b></div><div><span class="muted">households</span><b>${run.agents}</b></div>
  <div><span class="muted">policy</span><b>${esc(cfg.policy || "–")}</b></div><div><span class="muted">seed</span><b>${esc(cfg.seed)}</b></div>
  <div><span class="muted">traced decisions</span><b>${run.mind_events["mind.decision"] || 0}</b></div><div><span class="muted">memories formed</span><b>${run.mind_events["memory.formed"] || 0}</b></div>
  <div><span class="muted">shocks</span><b style="font-size:13px">${shocks}</b></div></div>
  <div class="grid" id="macro"></div><h3>Markets</h3><div class="grid" id="markets"></div>
  ${metrics ? `<h3>Metrics</h3><div class="card"><table>${metrics}</table></div>` : ""}
  <h3>Configuration</h3><details class="card"><summary>config.json</summary><pre>${esc(JSON.stringify(cfg, null, 1))}</pre></details>`;
  const m = run.macro, x = m.tick;
  for (const [key, title] of MACRO.filter(([k]) => m[k])) {
    const el = box($("#macro"));
    plot(el, [{ x, y: m[key], name: title, mode: "lines" }], layout(title, { shapes: shockShapes(), showlegend: false }));
  }
  const names = Object.keys(run.assets);
  if (names.length) {
    const el = box($("#markets"));
    const bonds = names.filter((n) => n.includes("bond")), rest = names.filter((n) => !n.includes("bond"));
    plot(el, rest.map((n) => ({ x: run.assets[n].tick, y: run.assets[n].price, name: n, mode: "lines" })), layout("Asset prices (close)", { shapes: shockShapes() }));
    if (bonds.length) {
      const b = box($("#markets"));
      plot(b, bonds.map((n) => ({ x: run.assets[n].tick, y: run.assets[n].price, name: n, mode: "lines" })), layout("Bonds", { shapes: shockShapes() }));
    }
  } else $("#markets").innerHTML = `<p class="muted">This run has no asset markets.</p>`;
}

const COLS = [["id", "id"], ["persona", "persona"], ["sector", "sector"], ["wealth", "wealth"], ["employed", "employed"], ...TRAITS.map((t) => [t, t.replace("_", " ")]), ["valence", "valence"], ["arousal", "arousal"], ["conflicts", "conflicts"], ["memories", "memories"], ["decisions", "decisions"]];
function passes(a) {
  const f = state.filters;
  if (f.id && !String(a.id).startsWith(f.id.trim())) return false;
  if (f.persona && a.persona !== f.persona) return false;
  if (f.employed && String(a.employed) !== f.employed) return false;
  for (const key of ["wealth", "valence", "conflicts", ...TRAITS]) {
    const lo = f[key + "_min"], hi = f[key + "_max"];
    if (lo !== undefined && lo !== "" && !(a[key] >= +lo)) return false;
    if (hi !== undefined && hi !== "" && !(a[key] <= +hi)) return false;
  }
  return true;
}
function drawRows() {
  const { key, dir } = state.sort;
  const rows = state.agents.filter(passes).sort((a, b) => ((a[key] ?? -Infinity) > (b[key] ?? -Infinity) ? dir : (a[key] ?? -Infinity) < (b[key] ?? -Infinity) ? -dir : 0));
  $("#count").textContent = `${rows.length} of ${state.agents.length}`;
  $("#agents tbody").innerHTML = rows.slice(0, 2000).map((a) => `<tr class="link" data-id="${a.id}">${COLS.map(([k]) => `<td>${k === "employed" ? (a[k] === null ? "–" : a[k] ? "yes" : "no") : fmt(a[k])}</td>`).join("")}</tr>`).join("");
}
async function agents() {
  state.agents = state.agents || (await api("/agents"));
  const personas = [...new Set(state.agents.map((a) => a.persona))].sort();
  const range = (k, label) => `<label>${label} ≥<input type="number" step="any" data-f="${k}_min" size="6"></label><label>≤<input type="number" step="any" data-f="${k}_max" size="6"></label>`;
  view().innerHTML = `<h2>Agents <span class="muted" id="count"></span></h2><div class="card filters">
   <label>id<input data-f="id" data-testid="search-id" placeholder="search by id" size="8"></label>
   <label>persona<select data-f="persona" data-testid="filter-persona"><option value="">any</option>${personas.map((p) => `<option>${esc(p)}</option>`).join("")}</select></label>
   <label>employed<select data-f="employed"><option value="">any</option><option value="true">yes</option><option value="false">no</option></select></label>
   ${range("wealth", "wealth")}${range("risk_preference", "risk")}${range("optimism", "optimism")}${range("valence", "valence")}${range("conflicts", "conflicts")}</div>
   <div class="card scroll" style="max-height:70vh"><table id="agents"><thead><tr>${COLS.map(([k, l]) => `<th data-k="${k}">${esc(l)}</th>`).join("")}</tr></thead><tbody></tbody></table></div>`;
  for (const el of view().querySelectorAll("[data-f]")) {
    el.value = state.filters[el.dataset.f] ?? "";
    el.addEventListener("input", () => { state.filters[el.dataset.f] = el.value; drawRows(); });
  }
  for (const th of view().querySelectorAll("th")) th.addEventListener("click", () => { const k = th.dataset.k; state.sort = { key: k, dir: state.sort.key === k ? -state.sort.dir : 1 }; drawRows(); });
  $("#agents tbody").addEventListener("click", (e) => { const tr = e.target.closest("tr"); if (tr) location.hash = `#/agent/${tr.dataset.id}`; });
  drawRows();
}

async function agent(id, month) {
  const a = await api(`/agents/${id}`);
  const months = a.decisions.map((d) => d.tick);
  view().innerHTML = `<h2 data-testid="agent-title">Household ${a.id} <span class="muted">${esc(a.persona_label)} · ${esc(a.sector)}</span></h2>
   <div class="grid"><div class="card"><div class="plot" id="persona"></div></div><div class="card"><div class="plot" id="affect"></div></div></div>
   <div class="card"><h3 style="margin-top:0">A month's decision</h3>${months.length ? `<label>month <select id="month" data-testid="month">${months.map((m) => `<option>${m}</option>`).join("")}</select></label> <span class="muted">${months.length} traced decisions; click a decision in the persona chart too</span><div id="decision"></div>` : `<p class="muted">No traced decisions for this household (rule-driven, or the run was written without mind.decision events).</p>`}</div>
   <div class="card"><h3 style="margin-top:0">Conflicts <span class="muted">(${a.conflicts.length})</span></h3><div class="scroll"><table data-testid="conflicts"><thead><tr><th>month</th><th>kind</th><th>earlier side</th><th>later side (current)</th></tr></thead><tbody>${a.conflicts.map((c) => `<tr><td>${c.tick}</td><td>${esc(c.kind)}${c.subject ? " · " + esc(c.subject) : ""}</td><td><div class="side" data-testid="side-a">${esc(c.a)}</div></td><td><div class="side current" data-testid="side-b">${esc(c.b)} <span class="tag good">current</span></div></td></tr>`).join("") || `<tr><td colspan="4" class="muted">none recorded</td></tr>`}</tbody></table></div></div>
   <div class="grid"><div class="card"><h3 style="margin-top:0">Memories formed</h3><div class="scroll"><table id="memories"><thead><tr><th>month</th><th>strongest memory</th><th>n</th><th>valence</th><th>arousal</th><th>conflict</th></tr></thead><tbody>${a.memories.map((m) => `<tr data-tick="${m.tick}"><td>${m.tick}</td><td>${esc(m.text)}${m.clash ? `<div class="muted">clash: ${esc(m.clash)}</div>` : ""}</td><td>${m.count}</td><td>${m.valence}</td><td>${m.arousal}</td><td>${m.conflict}</td></tr>`).join("")}</tbody></table></div></div>
   <div class="card"><h3 style="margin-top:0">What moved the persona</h3><div class="scroll"><table><thead><tr><th>month</th><th>event</th><th>moves</th></tr></thead><tbody>${a.moves.filter((m) => Object.keys(m.deltas).length).map((m) => `<tr><td>${m.tick}</td><td>${esc(m.why)}</td><td>${Object.entries(m.deltas).map(([k, v]) => `${esc(k)} ${v > 0 ? "+" : ""}${fmt(v)}`).join("<br>")}</td></tr>`).join("")}</tbody></table></div></div></div>`;
  const p = a.persona, moved = a.moves.filter((m) => Object.keys(m.deltas).length);
  const traces = TRAITS.filter((t) => p[t]?.length).map((t) => ({ x: p.tick, y: p[t], name: t, mode: "lines" }));
  traces.push({ x: moved.map((m) => m.tick), y: moved.map(() => 0), mode: "markers", name: "persona moved", marker: { symbol: "triangle-up", size: 9, color: "#c4320a" }, text: moved.map((m) => m.why), hoverinfo: "text" });
  plot($("#persona"), traces, layout("Persona traits", { shapes: shockShapes() }));
  const af = a.affect;
  plot($("#affect"), [["valence", "#3757d6"], ["arousal", "#f79009"], ["conflict", "#c4320a"]].map(([k, c]) => ({ x: af.map((e) => e.tick), y: af.map((e) => e[k]), name: k, mode: "lines+markers", line: { color: c, shape: "hv" }, marker: { size: 4 } })), layout("Affect of the memories formed", { shapes: shockShapes() }));
  if (!months.length) return;
  const sel = $("#month");
  sel.value = String(month && months.includes(+month) ? month : months[months.length - 1]);
  sel.addEventListener("change", () => showMonth(a.id, +sel.value));
  $("#persona").on?.("plotly_click", (ev) => { const t = ev.points[0].x; const near = months.reduce((b, m) => (Math.abs(m - t) < Math.abs(b - t) ? m : b), months[0]); sel.value = String(near); showMonth(a.id, near); });
  await showMonth(a.id, +sel.value);
}

async function showMonth(id, m) {
  const r = await api(`/agents/${id}/month/${m}`);
  const d = r.decision || {}, dec = d.decision || {};
  const list = (xs, f) => (xs && xs.length ? `<ul>${xs.map(f).join("")}</ul>` : `<span class="muted">none</span>`);
  $("#decision").innerHTML = `<div class="grid"><div><h3>Briefing recalled ${d.reused ? `<span class="tag">reused recall</span>` : ""}</h3><div class="briefing" data-testid="briefing">${esc(d.briefing || "no briefing")}</div>
    <h3>Memories that fed it <button id="feed" data-testid="fed-by">show in memories</button></h3><table><thead><tr><th>month</th><th>memory</th><th>score</th><th>val.</th><th>ar.</th><th>confl.</th></tr></thead><tbody>${(d.recalled || []).map((e) => `<tr><td>${e.tick ?? "–"}</td><td>${esc(e.text)} <span class="tag">${esc(e.kind)}</span></td><td>${fmt(e.score)}</td><td>${e.valence}</td><td>${e.arousal}</td><td>${e.conflict}</td></tr>`).join("")}</tbody></table>
    <h3>Beliefs</h3>${list(d.beliefs, (b) => `<li>${esc(b)}</li>`)}</div>
    <div><h3>Decision in month ${m}</h3><p data-testid="decision-intent"><span class="tag">${esc(dec.type || "–")}</span> ${esc(dec.intent || "")}</p><p class="muted">${esc(dec.reason || "")}</p>
    <h3>Through the guardrails</h3><div data-testid="guardrails"><div><b>adjusted</b> ${list(d.adjusted, (x) => `<li>${esc(x)}</li>`)}</div><div><b>rejected</b> ${list(d.rejected, (x) => `<li><span class="tag bad">${esc(x.rule)}</span>${esc(x.order)}: ${esc(x.reason)}</li>`)}</div><div><b>vetoed</b> ${list(d.vetoed, (x) => `<li><span class="tag bad">${esc(x.rule)}</span>${esc(x.order)}: ${esc(x.reason)}</li>`)}</div><div><b>approved</b> ${list(d.approved, (x) => `<li><span class="tag good">order</span>${esc(x)}</li>`)}</div></div>
    ${r.moves.length ? `<h3>Persona this month</h3>${list(r.moves, (x) => `<li>${esc(x.why)}</li>`)}` : ""}</div></div>`;
  $("#feed").addEventListener("click", () => {
    const ticks = new Set((d.recalled || []).map((e) => String(e.tick)));
    let first = null;
    for (const tr of document.querySelectorAll("#memories tbody tr")) { const on = ticks.has(tr.dataset.tick); tr.classList.toggle("fed", on); if (on && !first) first = tr; }
    first?.scrollIntoView({ block: "center" });
  });
}

async function memory() {
  if (!state.info.memory) return (view().innerHTML = "<p>No memory file is open: start with <code>psychoagent explore --db MEMORY_FILE</code>.</p>");
  const spaces = await api("/memory/namespaces");
  view().innerHTML = `<h2>Memory <span class="muted">${esc(state.info.memory)}</span></h2><div class="card filters">
   <label>namespace<select id="ns">${spaces.map((s) => `<option value="${esc(s.name)}">${esc(s.name)} (${s.units})</option>`).join("")}</select></label>
   <label>recall<input id="q" data-testid="memory-query" placeholder="what to recall" size="30"></label>
   <label>as it stood at<input id="at" type="datetime-local"></label><button id="go">search</button></div>
   <div class="card"><h3 style="margin-top:0">Recall hits</h3><div id="hits" class="muted">Search to see recall hits with every part of their score.</div></div>
   <div class="grid"><div class="card"><h3 style="margin-top:0">Units <span class="muted" id="total"></span></h3><div class="scroll" id="units"></div></div>
   <div class="card"><h3 style="margin-top:0">Neighbourhood <span class="muted" id="center">click a unit</span></h3><div id="graph"></div></div></div>
   <div class="card"><h3 style="margin-top:0">Conflicts</h3><div class="scroll" id="conflicts"></div></div>`;
  const ns = () => encodeURIComponent($("#ns").value), at = () => ($("#at").value ? "&at=" + encodeURIComponent($("#at").value + ":00Z") : "");
  const unitRow = (u, extra = "") => `<tr class="link" data-id="${esc(u.id)}"><td>${esc(u.text)}<div class="muted">${esc(u.id)} · ${esc(u.kind)} · ${esc(u.created_at?.slice(0, 10))}${u.invalid_at ? " · superseded " + esc(u.invalid_at.slice(0, 10)) : ""}</div></td><td>${u.valence}/${u.arousal}/${u.conflict}</td>${extra}</tr>`;
  const load = async () => {
    const page = await api(`/memory/units?namespace=${ns()}${at()}`);
    $("#total").textContent = `${page.total}`;
    $("#units").innerHTML = `<table><thead><tr><th>unit</th><th>val/ar/confl</th></tr></thead><tbody>${page.units.map((u) => unitRow(u)).join("")}</tbody></table>`;
    const cs = await api(`/memory/conflicts?namespace=${ns()}`);
    $("#conflicts").innerHTML = `<table data-testid="memory-conflicts"><thead><tr><th>kind</th><th>side a</th><th>side b</th><th>status</th></tr></thead><tbody>${cs.map((c) => `<tr><td>${esc(c.kind)} (${c.intensity})</td><td><div class="side ${c.current === "a" ? "current" : ""}">${esc(c.a.text)}</div></td><td><div class="side ${c.current === "b" ? "current" : ""}">${esc(c.b.text)}</div></td><td>${esc(c.status)}${c.current !== "both" ? ` <span class="tag good">${c.current} current</span>` : ""}</td></tr>`).join("") || `<tr><td colspan="4" class="muted">none</td></tr>`}</tbody></table>`;
  };
  const search = async () => {
    if (!$("#q").value.trim()) return load();
    const hits = await api(`/memory/search?namespace=${ns()}&q=${encodeURIComponent($("#q").value)}${at()}`);
    const parts = [...new Set(hits.flatMap((h) => Object.keys(h.parts)))];
    $("#hits").innerHTML = `<table data-testid="hits"><thead><tr><th>unit</th><th>val/ar/confl</th><th>score</th>${parts.map((p) => `<th>${esc(p)}</th>`).join("")}</tr></thead><tbody>${hits.map((h) => unitRow(h, `<td><b>${fmt(h.score)}</b></td>${parts.map((p) => `<td>${fmt(h.parts[p])}</td>`).join("")}`)).join("")}</tbody></table>`;
    await load();
  };
  $("#go").addEventListener("click", search);
  $("#q").addEventListener("keydown", (e) => e.key === "Enter" && search());
  $("#ns").addEventListener("change", search);
  view().addEventListener("click", (e) => { const tr = e.target.closest("tr.link"); if (tr?.dataset.id) graph(tr.dataset.id, $("#ns").value); });
  await load();
}

async function graph(id, ns) {
  const g = await api(`/memory/graph/${encodeURIComponent(id)}?namespace=${encodeURIComponent(ns)}`);
  $("#center").textContent = id;
  const W = 560, H = 360, pos = {}, rings = {};
  for (const n of g.nodes) (rings[n.hops] = rings[n.hops] || []).push(n);
  for (const [h, ns2] of Object.entries(rings)) ns2.forEach((n, i) => { const r = +h * 130, t = (2 * Math.PI * i) / ns2.length; pos[n.id] = [W / 2 + r * Math.cos(t), H / 2 + r * Math.sin(t)]; });
  const colour = { supersedes: "#3757d6", contradicts: "#c4320a", derived_from: "#067647" };
  const edges = g.edges.map((e, i) => { const [a, b] = [pos[e.src], pos[e.dst]]; return `<line x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}" stroke="${colour[e.type]}" stroke-width="2" marker-end="url(#arr)"><title>${e.type}</title></line><text text-anchor="middle" x="${(a[0] + b[0]) / 2}" y="${(a[1] + b[1]) / 2 - 8 - 13 * (i % 3)}" fill="${colour[e.type]}">${e.type}</text>`; }).join("");
  const nodes = g.nodes.map((n) => `<g><circle cx="${pos[n.id][0]}" cy="${pos[n.id][1]}" r="${n.hops ? 7 : 10}" fill="${n.invalid_at ? "#98a2b3" : n.hops ? "#7a8fe6" : "#3757d6"}"><title>${esc(n.text)}</title></circle><text text-anchor="middle" x="${pos[n.id][0]}" y="${pos[n.id][1] + 24}">${esc(n.text.slice(0, 38))}</text></g>`).join("");
  $("#graph").innerHTML = `<svg data-testid="graph" viewBox="0 0 ${W} ${H}" width="100%"><defs><marker id="arr" viewBox="0 0 10 10" refX="16" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z" fill="#667085"/></marker></defs>${edges}${nodes}</svg><p class="muted">${g.nodes.length} units, ${g.edges.length} links (grey: no longer valid)</p>`;
}

async function route() {
  const [, page = "", arg] = location.hash.split("/");
  const [id, query] = (arg || "").split("?");
  const m = new URLSearchParams(query || "").get("m");
  const name = page || (state.run ? "overview" : "memory");
  for (const a of document.querySelectorAll("header nav a")) a.classList.toggle("on", a.dataset.page === (name === "agent" ? "agents" : name));
  try {
    if (name === "agents") await agents();
    else if (name === "agent") await agent(id, m);
    else if (name === "memory") await memory();
    else await overview();
  } catch (err) {
    view().innerHTML = `<p class="tag bad" data-testid="error">${esc(err.message)}</p>`;
  }
}

(async () => {
  state.info = await api("/info");
  if (state.info.run) { state.agents = await api("/agents"); state.run = await api("/run"); }
  $("#source").textContent = [state.info.run, state.info.memory].filter(Boolean).join(" · ");
  window.addEventListener("hashchange", route);
  route();
})();
