// gridvec's dashboard (docs/http.md): reads the coordinator node's JSON API
// every two seconds and draws the job, its curves, nodes, shards, learners,
// tables and event log. No library: the charts are SVG drawn here. The
// token is typed once into the page, kept in this tab's sessionStorage and
// sent in an Authorization header; it never goes into a URL. Every value
// from the server goes into the page as text (textContent), never as HTML.
'use strict';

const TOKEN_KEY = 'gridvec.http-token';
const REFRESH_MS = 2000;
const TABLES_EVERY = 5; // refreshes
const SVG = 'http://www.w3.org/2000/svg';

let token = sessionStorage.getItem(TOKEN_KEY) || '';
let timer = null;
let refreshes = 0;
let lastEvent = 0;
let eventsJob = null;

class AuthError extends Error {}

const $ = (id) => document.getElementById(id);

async function api(path) {
  const headers = token ? { Authorization: 'Bearer ' + token } : {};
  const response = await fetch(path, { headers, cache: 'no-store', credentials: 'omit' });
  let body = null;
  try { body = await response.json(); } catch (e) { body = null; }
  if (response.status === 401) throw new AuthError((body && body.error) || 'token refused');
  if (!response.ok) throw new Error((body && body.error) || (response.status + ' ' + response.statusText));
  return body;
}

// --- formatting --------------------------------------------------------

function fmtCount(n) {
  if (n === null || n === undefined || !isFinite(n)) return '–';
  const a = Math.abs(n);
  if (a >= 1e9) return (n / 1e9).toPrecision(3) + ' G';
  if (a >= 1e6) return (n / 1e6).toPrecision(3) + ' M';
  if (a >= 1e4) return (n / 1e3).toPrecision(3) + ' k';
  if (a >= 100 || Number.isInteger(n)) return Math.round(n).toString();
  return n.toFixed(2);
}

function fmtBytes(n) {
  if (n === null || n === undefined || !isFinite(n) || n <= 0) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? n.toString() : n.toFixed(n >= 100 ? 0 : 1)) + ' ' + units[i];
}

function fmtDuration(s) {
  if (s === null || s === undefined || !isFinite(s) || s < 0) return '–';
  s = Math.round(s);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  if (h > 0) return h + 'h ' + String(m).padStart(2, '0') + 'm';
  if (m > 0) return m + 'm ' + String(sec).padStart(2, '0') + 's';
  return sec + 's';
}

function fmtClock(ms) {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((x) => String(x).padStart(2, '0')).join(':');
}

// --- DOM helpers -------------------------------------------------------

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function td(text, cls) { return el('td', text, cls); }

function badge(state) {
  const b = el('span', state, 'badge state-' + String(state).split(' ')[0]);
  return b;
}

function fillBody(table, rows) {
  const body = table.tBodies[0];
  body.replaceChildren(...rows);
}

function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// --- login ---------------------------------------------------------------

function showLogin(message) {
  stopRefresh();
  $('dashboard').hidden = true;
  $('logout').hidden = true;
  $('login').hidden = false;
  $('login-error').textContent = message || '';
  $('job-title').textContent = '';
  $('phase').textContent = '';
  $('updated').textContent = '';
  clearData();
  $('token').focus();
}

function showDashboard() {
  $('login').hidden = true;
  $('dashboard').hidden = false;
  $('logout').hidden = !token;
}

// Nothing of a cluster stays on the page once the token is gone.
function clearData() {
  for (const id of ['nodes', 'shards', 'learners', 'tables']) fillBody($(id), []);
  for (const id of ['job-figures', 'events', 'query-results', 'loss-chart', 'rate-chart']) $(id).replaceChildren();
  for (const id of ['job-message', 'progress-text', 'tables-note', 'query-error', 'loss-note']) $(id).textContent = '';
  $('progress-bar').style.width = '0';
  $('loss-chart').dataset.points = '0';
  $('rate-chart').dataset.points = '0';
  lastEvent = 0;
  eventsJob = null;
}

async function login(event) {
  event.preventDefault();
  const typed = $('token').value.trim();
  $('token').value = '';
  if (!typed) { $('login-error').textContent = 'type the token first'; return; }
  token = typed;
  try {
    await api('/status');
  } catch (e) {
    token = '';
    $('login-error').textContent = e instanceof AuthError ? 'the server refused this token' : e.message;
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  start();
}

function logout() {
  token = '';
  sessionStorage.removeItem(TOKEN_KEY);
  showLogin('');
}

// --- the job -------------------------------------------------------------

function renderStatus(s) {
  $('job-title').textContent = s.job ? 'job ' + s.job : 'no job yet';
  const phase = $('phase');
  phase.textContent = s.phase;
  phase.className = 'badge state-' + s.phase;
  const training = s.total_words > 0;
  const pct = Math.max(0, Math.min(1, s.progress || 0)) * 100;
  $('progress-bar').style.width = pct.toFixed(2) + '%';
  $('progress-bar').dataset.progress = String(s.progress || 0);
  $('progress-text').textContent = training || s.phase === 'done' ? pct.toFixed(1) + ' %' : '';
  const figures = [
    ['phase', s.phase],
    ['epoch', s.iterations ? s.epoch + ' of ' + s.iterations : '–'],
    ['words/s', fmtCount(s.words_per_second)],
    ['ETA', s.phase === 'training' ? fmtDuration(s.eta_seconds) : '–'],
    ['learning rate', s.alpha ? s.alpha.toFixed(5) : '–'],
    ['loss', s.loss ? s.loss.toFixed(4) : '–'],
    ['elapsed', fmtDuration(s.seconds)],
    ['words', fmtCount(s.processed_words) + ' / ' + fmtCount(s.total_words)],
    ['vocabulary', fmtCount(s.vocab_size)],
    ['shards / learners', s.shards + ' / ' + s.learners],
    ['checkpoint', s.last_checkpoint ? '#' + s.last_checkpoint : 'none'],
    ['recoveries', String(s.recoveries)],
  ];
  $('job-figures').replaceChildren(...figures.map(([k, v]) => {
    const d = el('div');
    d.append(el('dt', k), el('dd', v));
    d.lastChild.title = v;
    return d;
  }));
  $('job-message').textContent = s.message || '';
}

// --- charts ----------------------------------------------------------------

function niceStep(range, ticks) {
  const raw = range / Math.max(1, ticks);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 2.5, 5, 10]) if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

function fmtAxisTime(s) {
  if (s >= 3600) return (s / 3600).toFixed(s % 3600 === 0 ? 0 : 1) + 'h';
  if (s >= 60) return Math.floor(s / 60) + 'm' + (s % 60 ? String(Math.round(s % 60)).padStart(2, '0') : '');
  return Math.round(s) + 's';
}

// Draws one curve of the history: value(point) over seconds since the job
// started, with the paused and recovering stretches shaded and a dashed
// line at each checkpoint. The svg's data-points says how many it drew.
function drawChart(svg, history, value, cls, format) {
  const width = Math.max(300, svg.clientWidth || 800), height = Math.max(120, svg.clientHeight || 200);
  const pad = { left: 58, right: 12, top: 10, bottom: 24 };
  svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
  const points = history.points.filter((p) => value(p) !== null && isFinite(value(p)));
  svg.dataset.points = String(points.length);
  const nodes = [];
  const end = Math.max(history.seconds || 0, points.length ? points[points.length - 1].seconds : 0, 1);
  const x = (s) => pad.left + (s / end) * (width - pad.left - pad.right);
  let lo = Infinity, hi = -Infinity;
  for (const p of points) { lo = Math.min(lo, value(p)); hi = Math.max(hi, value(p)); }
  if (!points.length) { lo = 0; hi = 1; }
  if (cls === 'rate') lo = 0;
  if (hi - lo < 1e-9) { hi = hi + Math.abs(hi) * 0.1 + 1e-3; lo = Math.max(0, lo - Math.abs(lo) * 0.1); }
  const yStep = niceStep(hi - lo, 4);
  lo = Math.floor(lo / yStep) * yStep;
  hi = Math.ceil(hi / yStep) * yStep;
  const y = (v) => height - pad.bottom - ((v - lo) / (hi - lo)) * (height - pad.top - pad.bottom);

  for (const span of history.phases) {
    const kind = { paused: 'band-paused', recovering: 'band-recovering', checkpointing: 'band-checkpointing' }[span.phase];
    if (!kind) continue;
    const w = Math.max(2, x(span.to) - x(span.from));
    const r = svgEl('rect', { x: x(span.from), y: pad.top, width: w, height: height - pad.top - pad.bottom, class: kind });
    r.append(svgEl('title', {}, span.phase + ' ' + fmtDuration(span.to - span.from)));
    nodes.push(r);
  }
  for (let v = lo; v <= hi + yStep / 2; v += yStep) {
    nodes.push(svgEl('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: 'axis' }));
    nodes.push(svgEl('text', { x: pad.left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'tick' }, format(v)));
  }
  const xStep = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]
    .find((s) => end / s <= 8) || 86400;
  for (let s = 0; s <= end; s += xStep) {
    nodes.push(svgEl('text', { x: x(s), y: height - 6, 'text-anchor': 'middle', class: 'tick' }, fmtAxisTime(s)));
  }
  for (const m of history.marks) {
    const l = svgEl('line', { x1: x(m.seconds), x2: x(m.seconds), y1: pad.top, y2: height - pad.bottom, class: 'mark' });
    l.append(svgEl('title', {}, m.label + ' at ' + fmtDuration(m.seconds)));
    nodes.push(l);
  }
  if (points.length) {
    // One polyline per stretch with values: a pause (no loss) leaves a gap.
    let segment = [];
    const flush = () => {
      if (segment.length) nodes.push(svgEl('polyline', { points: segment.join(' '), class: 'line ' + cls }));
      segment = [];
    };
    for (const p of history.points) {
      const v = value(p);
      if (v === null || !isFinite(v)) { flush(); continue; }
      segment.push(x(p.seconds).toFixed(1) + ',' + y(v).toFixed(1));
    }
    flush();
    const last = points[points.length - 1];
    const dot = svgEl('circle', { cx: x(last.seconds), cy: y(value(last)), r: 3, class: 'line ' + cls });
    dot.append(svgEl('title', {}, format(value(last)) + ' at ' + fmtDuration(last.seconds)));
    nodes.push(dot);
  } else {
    nodes.push(svgEl('text', { x: width / 2, y: height / 2, 'text-anchor': 'middle', class: 'empty' },
      'no training yet'));
  }
  svg.replaceChildren(...nodes);
}

function renderHistory(h) {
  drawChart($('loss-chart'), h, (p) => p.loss, 'loss', (v) => v.toFixed(3));
  drawChart($('rate-chart'), h, (p) => p.words_per_second, 'rate', fmtCount);
  $('loss-note').textContent = h.points.length
    ? '(' + h.points.length + ' points, one per ' + fmtDuration(h.interval) + '; at most ' + h.capacity + ')'
    : '';
}

// --- nodes, shards, learners, tables ------------------------------------------

function trafficCell(kinds) {
  const cell = td();
  let total = 0;
  const list = el('ul', null, 'kinds');
  for (const [kind, t] of Object.entries(kinds)) {
    total += t.bytes;
    list.append(el('li', kind + ': ' + fmtBytes(t.bytes) + ' in ' + fmtCount(t.messages) + ' msgs'));
  }
  cell.append(el('div', total ? fmtBytes(total) : '–'));
  if (list.childElementCount) cell.append(list);
  return cell;
}

function memoryCell(n) {
  const cell = td();
  cell.append(el('div', fmtBytes(n.rss_bytes) + ' / ' + fmtBytes(n.peak_rss_bytes) + ' / ' +
    fmtBytes(n.memory_limit_bytes), 'nowrap'));
  if (n.memory_limit_bytes > 0 && n.rss_bytes > 0) {
    const bar = el('div', null, 'memory');
    const now = el('div', null, 'now');
    now.style.width = Math.min(100, (100 * n.rss_bytes) / n.memory_limit_bytes).toFixed(1) + '%';
    const peak = el('div', null, 'peak');
    peak.style.left = Math.min(100, (100 * n.peak_rss_bytes) / n.memory_limit_bytes).toFixed(1) + '%';
    bar.append(now, peak);
    bar.title = (100 * n.rss_bytes / n.memory_limit_bytes).toFixed(1) + '% of the limit';
    cell.append(bar);
  }
  return cell;
}

function renderNodes(data) {
  fillBody($('nodes'), data.nodes.map((n) => {
    const tr = el('tr');
    tr.dataset.node = n.name;
    const name = td();
    name.append(el('div', n.name), el('div', n.address, 'sub'));
    const state = td();
    state.append(badge(n.state));
    tr.append(name, td(n.roles), state, td(n.shards, 'num'), td(n.learners, 'num'), memoryCell(n),
      trafficCell(n.sent), trafficCell(n.received));
    return tr;
  }));
}

function renderShards(data) {
  fillBody($('shards'), data.shards.map((s) => {
    const tr = el('tr');
    const holds = s.row_shards
      ? 'rows w mod ' + s.row_shards + ' = ' + s.index
      : 'columns ' + s.first_column + '–' + (s.first_column + s.columns - 1);
    const state = td();
    state.append(badge(s.alive ? 'up' : 'lost'));
    tr.append(td(s.index, 'num'), td(s.node), td(holds), td(fmtCount(s.rows), 'num'), td(fmtBytes(s.bytes), 'num'),
      td(s.lanes, 'num'), td(fmtCount(s.requests_per_second), 'num'), state);
    return tr;
  }));
}

function renderLearners(data) {
  fillBody($('learners'), data.learners.map((l) => {
    const tr = el('tr');
    const parts = l.parts.map((p) => 'part ' + p.part + ' (epoch ' + (p.epoch + 1) + ', ' +
      fmtCount(p.processed) + ' words read)').join(', ');
    const state = td();
    state.append(badge(l.state));
    tr.append(td(l.id, 'num'), td(l.node), state, td(parts || '–'), td(l.in_flight, 'num'),
      td(fmtCount(l.words_per_second), 'num'));
    return tr;
  }));
}

function renderTables(data) {
  fillBody($('tables'), data.tables.map((t) => {
    const tr = el('tr');
    tr.title = t.description;
    tr.append(td(t.name), td(t.kind + (t.dense ? ' (dense)' : '')), td(t.layout), td(t.dim, 'num'),
      td(fmtCount(t.rows), 'num'), td(fmtBytes(t.memory_bytes), 'num'), td(t.optimizer + ' lr ' + t.learning_rate));
    return tr;
  }));
  const gone = data.unreachable.length
    ? 'table shard node(s) ' + data.unreachable.join(', ') + ' not answering: their slices are missing. ' : '';
  $('tables-note').textContent = gone + (data.tables.length ? '' : 'no parameter-server table');
}

function renderEvents(data) {
  if (data.job !== eventsJob) { // a new job: its own log
    eventsJob = data.job;
    lastEvent = 0;
    $('events').replaceChildren();
  }
  const list = $('events');
  for (const e of data.events) {
    const li = el('li');
    li.append(el('span', fmtClock(e.unix_ms), 'time'), el('span', e.level, 'level-' + e.level), el('span', e.text, 'text'));
    li.title = '+' + fmtDuration(e.seconds) + ' into the job';
    list.append(li);
    lastEvent = Math.max(lastEvent, e.sequence);
  }
  while (list.childElementCount > 200) list.firstElementChild.remove();
  if (data.events.length) list.scrollTop = list.scrollHeight;
}

// --- refresh ---------------------------------------------------------------

function stopRefresh() {
  if (timer) clearTimeout(timer);
  timer = null;
}

function cardError(id, error) {
  const table = $(id);
  const row = el('tr');
  const cell = td(error.message, 'error');
  cell.colSpan = table.tHead.rows[0].cells.length;
  row.append(cell);
  fillBody(table, [row]);
}

async function refresh() {
  timer = null;
  try {
    const status = await api('/status');
    renderStatus(status);
    const history = await api('/history');
    const events = await api('/events?after=' + (status.job === eventsJob ? lastEvent : 0));
    renderHistory(history);
    renderEvents(events);
    const [nodes, shards, learners] = await Promise.allSettled([api('/nodes'), api('/shards'), api('/learners')]);
    for (const r of [nodes, shards, learners]) if (r.status === 'rejected' && r.reason instanceof AuthError) throw r.reason;
    nodes.status === 'fulfilled' ? renderNodes(nodes.value) : cardError('nodes', nodes.reason);
    shards.status === 'fulfilled' ? renderShards(shards.value) : fillBody($('shards'), []);
    learners.status === 'fulfilled' ? renderLearners(learners.value) : fillBody($('learners'), []);
    if (refreshes % TABLES_EVERY === 0) {
      try { renderTables(await api('/tables')); } catch (e) {
        if (e instanceof AuthError) throw e;
        fillBody($('tables'), []);
        $('tables-note').textContent = e.message;
      }
    }
    refreshes++;
    $('updated').textContent = 'updated ' + fmtClock(Date.now());
  } catch (e) {
    if (e instanceof AuthError) { token = ''; sessionStorage.removeItem(TOKEN_KEY); showLogin(e.message); return; }
    $('updated').textContent = 'no answer: ' + e.message;
  }
  if (!$('dashboard').hidden) timer = setTimeout(refresh, REFRESH_MS);
}

function start() {
  showDashboard();
  refreshes = 0;
  stopRefresh();
  refresh();
}

// --- queries ---------------------------------------------------------------

function showResults(data) {
  $('query-error').textContent = '';
  $('query-results').replaceChildren(...data.neighbours.map((n) => {
    const li = el('li');
    li.append(el('span', n.word), el('span', n.score.toFixed(3), 'score'));
    return li;
  }));
}

async function query(path) {
  $('query-error').textContent = 'asking the shards…';
  $('query-results').replaceChildren();
  try {
    showResults(await api(path));
  } catch (e) {
    if (e instanceof AuthError) { showLogin(e.message); return; }
    $('query-error').textContent = e.message;
  }
}

function nearest(event) {
  event.preventDefault();
  const k = Math.max(1, Math.min(100, parseInt($('nearest-k').value, 10) || 10));
  query('/nearest?word=' + encodeURIComponent($('nearest-word').value.trim()) + '&k=' + k);
}

function analogy(event) {
  event.preventDefault();
  const w = (id) => encodeURIComponent($(id).value.trim());
  query('/analogy?a=' + w('analogy-a') + '&b=' + w('analogy-b') + '&c=' + w('analogy-c') + '&k=10');
}

// --- start -------------------------------------------------------------------

async function boot() {
  $('login-form').addEventListener('submit', login);
  $('logout').addEventListener('click', logout);
  $('nearest-form').addEventListener('submit', nearest);
  $('analogy-form').addEventListener('submit', analogy);
  // A cluster without a secret has no token: the API answers without one.
  try {
    await api('/status');
    start();
  } catch (e) {
    if (e instanceof AuthError) showLogin(token ? 'the server refused the stored token' : '');
    else { start(); }
  }
}

document.addEventListener('DOMContentLoaded', boot);
