// The sample's dashboard: plain JavaScript, no build step. Polls /actuator/pools (and the ETL
// job's /etl/progress) every second, keeps the last five minutes per pool and draws them as SVG
// lines; Tune and Purge call the actuator's write operations with the ops login typed above.
'use strict';

const POLL_MS = 1000;
const WINDOW = 300; // samples kept per pool: five minutes at one per second
const SERIES = ['capacity', 'running', 'idle', 'waiting', 'queued', 'rejected'];
const history = new Map(); // pool name -> [{t, capacity, running, ..., rejected (per second)}]
const lastRejected = new Map();

const $ = (sel, root = document) => root.querySelector(sel);

function authHeaders() {
  const user = $('#ops-user').value.trim();
  const password = $('#ops-password').value;
  sessionStorage.setItem('ops-user', user);
  sessionStorage.setItem('ops-password', password);
  // X-Requested-With makes Spring Security answer 401 without WWW-Authenticate, so the browser
  // does not pop up its own login dialog.
  const headers = { 'X-Requested-With': 'XMLHttpRequest' };
  if (user && password) {
    headers.Authorization = 'Basic ' + btoa(user + ':' + password);
  }
  return headers;
}

async function describeFailure(response) {
  let detail = '';
  try {
    const body = await response.json();
    detail = body.message || body.error || JSON.stringify(body);
  } catch (e) { /* not JSON */ }
  if (response.status === 401) return '401: log in as the ops user first' + (detail ? ' (' + detail + ')' : '');
  if (response.status === 403) return '403: this user lacks the OPS role';
  return response.status + ': ' + (detail || response.statusText);
}

// ---- pools ---------------------------------------------------------------------------------

function card(name, pool) {
  let el = document.querySelector(`.pool[data-pool="${CSS.escape(name)}"]`);
  if (el) return el;
  el = $('#pool-card').content.firstElementChild.cloneNode(true);
  el.dataset.pool = name;
  $('[data-field="name"]', el).textContent = name;
  const cfg = pool.config || {};
  const kind = [];
  if (cfg.virtualThreads) kind.push('virtual threads');
  if (cfg.nonblocking) kind.push('nonblocking');
  if (pool.queueCapacity > 0) kind.push('queue ' + pool.queueCapacity);
  $('[data-field="kind"]', el).textContent = kind.join(', ');
  $('[data-action="tune"]', el).addEventListener('click', () => tune(name, el));
  $('[data-action="purge"]', el).addEventListener('click', () => purge(name, el));
  $('#pools').appendChild(el);
  return el;
}

function show(el, pool) {
  for (const field of ['capacity', 'running', 'idle', 'waiting', 'queued', 'rejected', 'completed']) {
    $(`[data-field="${field}"]`, el).textContent = pool[field];
  }
}

function record(name, pool, t) {
  const samples = history.get(name) || [];
  const previous = lastRejected.has(name) ? lastRejected.get(name) : pool.rejected;
  lastRejected.set(name, pool.rejected);
  samples.push({ t, capacity: pool.capacity, running: pool.running, idle: pool.idle,
    waiting: pool.waiting, queued: pool.queued, rejected: Math.max(0, pool.rejected - previous) });
  while (samples.length > WINDOW) samples.shift();
  history.set(name, samples);
  return samples;
}

function draw(svg, samples) {
  const w = 600, h = 150, pad = 14;
  let max = 1;
  for (const s of samples) {
    for (const k of SERIES) if (s[k] > max) max = s[k];
  }
  const now = samples.length ? samples[samples.length - 1].t : Date.now();
  const x = (t) => w - ((now - t) / (WINDOW * POLL_MS)) * w;
  const y = (v) => h - pad - (v / max) * (h - 2 * pad);
  let out = `<text x="2" y="10">${max}</text><text x="2" y="${h - 3}">0</text>`
    + `<text x="${w - 40}" y="${h - 3}">now</text><text x="${w / 2 - 30}" y="${h - 3}">−2.5 min</text>`;
  for (const k of SERIES) {
    // An unbounded pool reports capacity -1: nothing to draw.
    const points = samples.filter((s) => s[k] >= 0).map((s) => `${x(s.t).toFixed(1)},${y(s[k]).toFixed(1)}`);
    if (points.length) out += `<polyline class="${k}" points="${points.join(' ')}"/>`;
  }
  svg.innerHTML = out;
}

async function pollPools() {
  try {
    const response = await fetch('/actuator/pools', { headers: { Accept: 'application/json' } });
    if (!response.ok) throw new Error(await describeFailure(response));
    const body = await response.json();
    const t = Date.now();
    for (const [name, pool] of Object.entries(body.pools)) {
      const el = card(name, pool);
      show(el, pool);
      draw($('svg', el), record(name, pool, t));
    }
    $('#status').textContent = 'live · ' + new Date(t).toLocaleTimeString();
    $('#status').classList.remove('down');
  } catch (e) {
    $('#status').textContent = 'cannot read /actuator/pools: ' + e.message;
    $('#status').classList.add('down');
  }
}

function message(el, text, error) {
  const m = $('[data-field="message"]', el);
  m.textContent = text;
  m.classList.toggle('error', !!error);
}

async function tune(name, el) {
  const value = $('[data-action="tune-input"]', el).value.trim();
  const capacity = Number(value);
  const body = (value === '' || !Number.isInteger(capacity)) ? { capacity: value } : { capacity };
  const response = await fetch(`/actuator/pools/${encodeURIComponent(name)}/tune`, {
    method: 'POST',
    headers: { ...authHeaders(), 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    message(el, 'tune failed: ' + await describeFailure(response), true);
    return;
  }
  const pool = await response.json();
  show(el, pool);
  message(el, `tuned to ${pool.capacity}`);
}

async function purge(name, el) {
  const response = await fetch(`/actuator/pools/${encodeURIComponent(name)}/purge`, {
    method: 'POST', headers: authHeaders(),
  });
  if (!response.ok) {
    message(el, 'purge failed: ' + await describeFailure(response), true);
    return;
  }
  const result = await response.json();
  if (result.pool) show(el, result.pool);
  message(el, `purged ${result.purged} idle worker(s)`);
}

// ---- load and ETL --------------------------------------------------------------------------

async function post(url) {
  const response = await fetch(url, { method: 'POST', headers: { 'X-Requested-With': 'XMLHttpRequest' } });
  return { ok: response.ok, text: (response.ok ? '' : response.status + ' ') + await response.text() };
}

async function pollEtl() {
  try {
    const response = await fetch('/etl/progress');
    if (!response.ok) return;
    const p = await response.json();
    $('#etl-state').textContent = p.state;
    const percent = p.totalRows > 0 ? (100 * p.rowsDone / p.totalRows) : 0;
    $('#etl-bar').style.width = percent.toFixed(1) + '%';
    $('#etl-summary').textContent = `${p.rowsDone} / ${p.totalRows} rows (${percent.toFixed(1)} %), `
      + `${p.batchesDone} batches checkpointed, checkpoint = review #${p.lastId}`
      + (p.rowsPerSecond ? `, ${Math.round(p.rowsPerSecond)} rows/s` : '');
    $('#etl-stages tbody').innerHTML = p.stages.map((s) =>
      `<tr><td>${s.name}</td><td>${s.concurrency}</td><td>${s.active}</td><td>${s.done}</td></tr>`).join('');
    $('#etl-error').textContent = p.error || '';
  } catch (e) { /* shown by the pools status line */ }
}

function init() {
  $('#ops-user').value = sessionStorage.getItem('ops-user') || 'ops';
  $('#ops-password').value = sessionStorage.getItem('ops-password') || '';
  for (const button of document.querySelectorAll('[data-load]')) {
    button.addEventListener('click', async () => {
      $('#load-result').textContent = 'POST ' + button.dataset.load + ' …';
      $('#load-result').textContent = 'POST ' + button.dataset.load + '\n' + (await post(button.dataset.load)).text;
    });
  }
  for (const [id, url] of [['#etl-start', '/etl/start'], ['#etl-stop', '/etl/stop']]) {
    $(id).addEventListener('click', async () => {
      const result = await post(url);
      $('#etl-message').textContent = result.ok ? '' : result.text;
      pollEtl();
    });
  }
  pollPools();
  pollEtl();
  setInterval(pollPools, POLL_MS);
  setInterval(pollEtl, POLL_MS);
}

init();
