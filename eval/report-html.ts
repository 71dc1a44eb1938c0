/**
 * report.html: one self-contained file (no network: Chart.js 4.6.1's UMD build is inlined from
 * node_modules when the report is written). Chart.js was chosen over uPlot (no grouped or stacked bars
 * without plugins) and Vega-Lite (vega + vega-lite + vega-embed, several times the size): one MIT file
 * with no dependencies that draws grouped and stacked bars and lines. Every text from a scenario, an
 * answer or a trace is escaped; the data rides in a JSON script block read by the page's own script.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EvalReport, ProfileSummary, ReportTurn } from './aggregate';

// The package's exports map hides dist/: find the package root through its main entry, then the UMD file.
const CHART_JS = path.join(path.dirname(require.resolve('chart.js')), 'chart.umd.min.js');

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON that cannot close the script element it sits in. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function chartLibrary(): string {
  // The source map comment would point at a file the report does not carry.
  return fs.readFileSync(CHART_JS, 'utf8').replace(/\/\/# sourceMappingURL=\S+\s*$/, '');
}

const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)} %`);
const ms = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(v < 10 ? 1 : 0)} ms`);

function summaryRows(profiles: readonly ProfileSummary[]): string {
  return profiles.map((p) => {
    const g = p.gates;
    const ds = Object.entries(p.drug_safety).map(([k, v]) => `${escapeHtml(k)} ${v}`).join(', ') || 'n/a';
    return `<tr><th>${escapeHtml(p.profile)}</th><td>${p.turns}</td><td>${p.errors}</td>`
      + `<td>${pct(p.citations.precision)}</td><td>${pct(p.citations.recall)}</td><td>${pct(p.citations.f1)}</td>`
      + `<td>${pct(p.abstention.accuracy)}</td><td>${pct(p.facts.rate)} (${p.facts.hit}/${p.facts.total})</td><td>${p.forbidden.hits}</td>`
      + `<td>${pct(g.catch_rate)} (${g.outcomes.caught}/${g.outcomes.caught + g.outcomes.caught_other + g.outcomes.missed})</td>`
      + `<td>${pct(g.false_fail_rate)} (${g.outcomes.false_fail}/${g.outcomes.clean + g.outcomes.false_fail})</td>`
      + `<td>${ds}</td><td>${p.knowledge_safety.recall === null ? `<span title="${escapeHtml(p.knowledge_safety.note ?? '')}">n/a</span>` : pct(p.knowledge_safety.recall)}</td>`
      + `<td>${ms(p.latency.total_ms.p50)} / ${ms(p.latency.total_ms.p95)}</td><td>${p.tokens.mean_total === null ? 'n/a' : Math.round(p.tokens.mean_total)}</td></tr>`;
  }).join('\n');
}

const OUTCOME_CLASS: Record<string, string> = { clean: 'good', caught: 'good', gap_passed: 'info', gap_caught: 'info', no_gate: 'info', false_fail: 'bad', missed: 'bad', caught_other: 'warn' };

function turnRows(turns: readonly ReportTurn[]): string {
  return turns.map((t, i) => {
    const traceCell = t.trace ? `<a href="#trace-${i}">${escapeHtml(t.trace.hub_request_id.slice(0, 8))}</a>` : '<span class="muted">no trace line</span>';
    const outcome = t.gate_outcome ?? (t.status === 'error' ? 'error' : '—');
    const what = t.status === 'error' ? `<span class="bad">${escapeHtml(`${t.error?.status ?? ''} ${t.error?.code ?? ''}: ${t.error?.message ?? ''}`)}</span>` : escapeHtml((t.answer ?? '').slice(0, 400));
    const facts = t.score ? `${t.score.facts.hit}/${t.score.facts.total}` : '';
    const cites = t.score ? `P ${pct(t.score.citations.precision)} R ${pct(t.score.citations.recall)}` : '';
    const signals = (t.gate?.signals ?? []).map(escapeHtml).join(' ');
    return `<tr id="turn-${i}"><td><b>${escapeHtml(t.scenario_id)}</b><br><span class="muted">${escapeHtml(t.title)}</span></td>`
      + `<td>${escapeHtml(t.profile)}</td><td>${escapeHtml(t.variant)}${t.wrong_kind ? `<br><span class="muted">${escapeHtml(t.wrong_kind)}</span>` : ''}</td>`
      + `<td class="${OUTCOME_CLASS[outcome] ?? (outcome === 'error' ? 'bad' : '')}">${escapeHtml(outcome)}<br><span class="muted">${signals}</span></td>`
      + `<td class="answer">${what}</td><td>${cites}</td><td>${facts}</td><td>${t.score?.forbidden_hits.length ?? ''}</td>`
      + `<td>${escapeHtml(t.safety_status ?? '')}</td><td>${ms(t.latency_ms)}</td><td>${traceCell}</td></tr>`;
  }).join('\n');
}

function traceBlocks(turns: readonly ReportTurn[]): string {
  return turns.map((t, i) => (t.trace
    ? `<details id="trace-${i}"><summary>${escapeHtml(t.scenario_id)} · ${escapeHtml(t.profile)} · ${escapeHtml(t.variant)} — hub request ${escapeHtml(t.trace.hub_request_id)} (trace.jsonl line ${t.trace.line}) <a href="#turn-${i}">back</a></summary><pre>${escapeHtml(JSON.stringify(t.trace, null, 2))}</pre></details>`
    : '')).join('\n');
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d232b}h1{margin:0 0 4px}h2{margin-top:32px}
.notice{background:#fff4d6;border:1px solid #e6c35c;padding:6px 10px;display:inline-block;border-radius:4px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}td,th{border:1px solid #d5dae1;padding:4px 6px;vertical-align:top;text-align:left}
thead th{background:#eef1f5}.muted{color:#6b7480;font-size:12px}.good{background:#e3f5e6}.bad{background:#fbe0e0}.warn{background:#fdf0d5}.info{background:#eef1f5}
.answer{max-width:420px}.charts{display:grid;grid-template-columns:repeat(2,minmax(420px,1fr));gap:16px}.chart{border:1px solid #d5dae1;padding:8px;height:300px}
pre{background:#f6f8fa;padding:8px;overflow:auto;font-size:12px}details{margin:4px 0}
`;

/** Builds the page from the palette of profiles and the report's numbers (drawn by the inline script below). */
const PAGE_SCRIPT = `
(function(){
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var colors = ['#3b6fb6','#d9822b','#2e9e6b','#a34ca8','#c23b3b','#6b7480'];
  var profiles = data.profiles.map(function(p){return p.profile;});
  Chart.defaults.animation = false;
  function pctOrNull(v){return v === null ? null : Math.round(v*1000)/10;}
  var metricNames = ['citation precision','citation recall','citation F1','abstention accuracy','fact hits','gate catch rate','false-fail rate'];
  new Chart(document.getElementById('chart-metrics'), {type:'bar', data:{labels:metricNames, datasets:data.profiles.map(function(p,i){return {label:p.profile, backgroundColor:colors[i%colors.length],
    data:[p.citations.precision,p.citations.recall,p.citations.f1,p.abstention.accuracy,p.facts.rate,p.gates.catch_rate,p.gates.false_fail_rate].map(pctOrNull)};})},
    options:{maintainAspectRatio:false, plugins:{title:{display:true,text:'Per profile (%; a missing bar is n/a)'}}, scales:{y:{min:0,max:100}}}});
  var outcomeNames = ['caught','caught_other','missed','clean','false_fail','gap_passed','gap_caught','no_gate'];
  var outcomeColors = {caught:'#2e9e6b',caught_other:'#e0b040',missed:'#c23b3b',clean:'#8fd1a8',false_fail:'#ef7d7d',gap_passed:'#b8bec6',gap_caught:'#7a8fb0',no_gate:'#e4e7eb'};
  new Chart(document.getElementById('chart-gates'), {type:'bar', data:{labels:profiles, datasets:outcomeNames.map(function(o){return {label:o, backgroundColor:outcomeColors[o], data:data.profiles.map(function(p){return p.gates.outcomes[o];})};})},
    options:{maintainAspectRatio:false, plugins:{title:{display:true,text:'What the gates did with scripted replies (turns)'}}, scales:{x:{stacked:true},y:{stacked:true,beginAtZero:true}}}});
  var stages = []; data.profiles.forEach(function(p){Object.keys(p.latency.stages).forEach(function(s){if(stages.indexOf(s)<0)stages.push(s);});});
  var stageSets = []; data.profiles.forEach(function(p,i){
    stageSets.push({label:p.profile+' p50', backgroundColor:colors[i%colors.length], data:stages.map(function(s){var q=p.latency.stages[s];return q?q.p50:null;})});
    stageSets.push({label:p.profile+' p95', backgroundColor:colors[i%colors.length]+'66', data:stages.map(function(s){var q=p.latency.stages[s];return q?q.p95:null;})});});
  new Chart(document.getElementById('chart-stages'), {type:'bar', data:{labels:stages, datasets:stageSets},
    options:{maintainAspectRatio:false, plugins:{title:{display:true,text:'Stage latency p50 / p95 (ms, from the trace)'}}, scales:{y:{beginAtZero:true}}}});
  new Chart(document.getElementById('chart-latency'), {type:'scatter', data:{datasets:data.profiles.map(function(p,i){
      var v = data.turns.filter(function(t){return t.profile===p.profile && t.status==='ok';}).map(function(t){return t.latency_ms;}).sort(function(a,b){return a-b;});
      return {label:p.profile, showLine:true, borderColor:colors[i%colors.length], backgroundColor:colors[i%colors.length], pointRadius:2,
        data:v.map(function(x,k){return {x:x, y:(k+1)/v.length};})};})},
    options:{maintainAspectRatio:false, plugins:{title:{display:true,text:'Answer latency distribution (share of turns answered within x ms)'}}, scales:{x:{title:{display:true,text:'ms'}},y:{min:0,max:1}}}});
  var statuses = []; data.profiles.forEach(function(p){Object.keys(p.drug_safety).forEach(function(s){if(statuses.indexOf(s)<0)statuses.push(s);});});
  var dsColors = {checked:'#2e9e6b',limited:'#e0b040',unavailable:'#b8bec6',absent:'#e4e7eb'};
  new Chart(document.getElementById('chart-safety'), {type:'bar', data:{labels:profiles, datasets:statuses.map(function(s,i){return {label:s, backgroundColor:dsColors[s]||colors[i%colors.length], data:data.profiles.map(function(p){return p.drug_safety[s]||0;})};})},
    options:{maintainAspectRatio:false, plugins:{title:{display:true,text:'Drug-safety status (turns)'}}, scales:{x:{stacked:true},y:{stacked:true,beginAtZero:true}}}});
  var kinds = []; data.profiles.forEach(function(p){Object.keys(p.gates.by_kind).forEach(function(k){if(kinds.indexOf(k)<0)kinds.push(k);});});
  new Chart(document.getElementById('chart-kinds'), {type:'bar', data:{labels:kinds, datasets:data.profiles.map(function(p,i){return {label:p.profile, backgroundColor:colors[i%colors.length],
    data:kinds.map(function(k){var b=p.gates.by_kind[k];return b?Math.round(1000*b.caught/b.n)/10:null;})};})},
    options:{maintainAspectRatio:false, plugins:{title:{display:true,text:'Catch rate by kind of wrong reply (%)'}}, scales:{y:{min:0,max:100}}}});
  document.body.setAttribute('data-charts', 'drawn');
})();
`;

export function renderHtml(report: EvalReport): string {
  const { run } = report;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Med Agent Hub eval — ${escapeHtml(run.mode)} — ${escapeHtml(report.generated_at)}</title>
<style>${STYLE}</style></head>
<body>
<h1>Med Agent Hub evaluation</h1>
<p class="notice">${escapeHtml(report.notice)}</p>
<p>Mode <b>${escapeHtml(run.mode)}</b> · backend ${escapeHtml(run.backend)} · ${run.scenarios} scenarios from <code>${escapeHtml(run.scenarios_dir)}</code> · ${run.turns} turns · profiles ${run.profiles.map((p) => `<code>${escapeHtml(p)}</code>`).join(', ')} · ${escapeHtml(report.generated_at)}</p>
<h2>Per profile</h2>
<table><thead><tr><th>profile</th><th>turns</th><th>errors</th><th>cit. precision</th><th>cit. recall</th><th>cit. F1</th><th>abstention acc.</th><th>fact hits</th><th>forbidden hits</th><th>gate catch rate</th><th>false-fail rate</th><th>drug safety</th><th>knowledge safety recall</th><th>latency p50 / p95</th><th>tokens / turn</th></tr></thead>
<tbody>${summaryRows(report.profiles)}</tbody></table>
<p class="muted">Answer figures (citations, abstention, facts, forbidden claims) come from ${run.mode === 'scripted' ? "the hub's envelopes for the scripted right replies" : "the model's answers"}; gate figures from scripted replies only (n/a otherwise).</p>
<div class="charts">
<div class="chart"><canvas id="chart-metrics"></canvas></div>
<div class="chart"><canvas id="chart-gates"></canvas></div>
<div class="chart"><canvas id="chart-stages"></canvas></div>
<div class="chart"><canvas id="chart-latency"></canvas></div>
<div class="chart"><canvas id="chart-kinds"></canvas></div>
<div class="chart"><canvas id="chart-safety"></canvas></div>
</div>
<h2>Turns</h2>
<table><thead><tr><th>scenario</th><th>profile</th><th>reply</th><th>gate outcome / signals</th><th>answer (as the hub returned it)</th><th>citations</th><th>facts</th><th>forbidden</th><th>drug safety</th><th>latency</th><th>trace</th></tr></thead>
<tbody>${turnRows(report.turns)}</tbody></table>
<h2>Trace excerpts</h2>
<p class="muted">From <code>trace/trace.jsonl</code> in the out dir (found by each request's <code>context.request_id</code>); the full lines hold the question and answer: treat them as clinical data.</p>
${traceBlocks(report.turns)}
<script type="application/json" id="report-data">${scriptJson({ profiles: report.profiles, turns: report.turns.map((t) => ({ profile: t.profile, status: t.status, latency_ms: t.latency_ms })) })}</script>
<script>${chartLibrary()}</script>
<script>${PAGE_SCRIPT}</script>
</body></html>
`;
}
