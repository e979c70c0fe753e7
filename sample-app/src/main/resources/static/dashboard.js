// The sample's dashboard: plain JavaScript, no build step. Polls /actuator/pools (and the ETL
// job's /etl/progress) every second, keeps the last five minutes of every pool the endpoint lists
// and charts them with uPlot (from its WebJar). Writes (tune, purge, load, ETL) ride on the
// browser's login (the form at /login, kept in the session) and carry the CSRF token.
// Addresses are relative to the page (/dashboard or /), so the page works under a servlet
// context path; where the actuator is comes from /me (management.endpoints.web.base-path).
'use strict';

const POLL_MS = 1000;
const WINDOW = 300; // samples kept per pool: five minutes at one per second
const SERIES = [ // the lines of every chart; rejected is a rate, on its own axis at the right
  { key: 'capacity', label: 'capacity', stroke: '#111827', dash: [5, 4] },
  { key: 'running', label: 'running', stroke: '#2563eb' },
  { key: 'idle', label: 'idle', stroke: '#16a34a' },
  { key: 'waiting', label: 'waiting', stroke: '#d97706' },
  { key: 'queued', label: 'queued', stroke: '#9333ea' },
  { key: 'rejected', label: 'rejected / s', stroke: '#dc2626', scale: 'rate' },
];
const CHART_HEIGHT = 170;
const POLL_TIMEOUT_MS = 10000; // a poll that takes longer is abandoned, so polling goes on
const charts = new Map(); // pool name -> { plot, data: [seconds[], capacity[], ..., rejected[]] }
const lastRejected = new Map();

const $ = (sel, root = document) => root.querySelector(sel);

/** The actuator's base path, relative to the page: "actuator/" until /me says otherwise. */
let actuator = 'actuator/';

// ---- login and CSRF ------------------------------------------------------------------------

/** The CSRF header for a write: the XSRF-TOKEN cookie's value (Spring Security's csrf.spa()). */
function csrfHeaders() {
  const cookie = document.cookie.split('; ').find((c) => c.startsWith('XSRF-TOKEN='));
  return cookie ? { 'X-XSRF-TOKEN': decodeURIComponent(cookie.substring('XSRF-TOKEN='.length)) } : {};
}

/**
 * POSTs as the logged-in browser: the session cookie, the CSRF token, and X-Requested-With so
 * that a missing login is a bare 401 rather than the browser's own login dialog. Other scripts
 * on the page use it as workerpoolDashboard.post.
 */
function post(url, { body, headers } = {}) {
  return fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'X-Requested-With': 'XMLHttpRequest', ...csrfHeaders(), ...(headers || {}) },
    body,
  });
}

async function describeFailure(response) {
  let detail = '';
  try {
    const body = await response.json();
    detail = body.message || body.error || JSON.stringify(body);
  } catch (e) { /* not JSON */ }
  if (response.status === 401) return '401: log in first (Log in, top right)';
  if (response.status === 403 && /CSRF/.test(detail)) return '403: ' + detail;
  if (response.status === 403) return '403: this user lacks the OPS role';
  if (response.status === 404 && !detail) return '404: not found (no pool of that name any more?)';
  return response.status + ': ' + (detail || response.statusText);
}

/** Asks who is logged in; the answer also leaves a fresh CSRF token in the XSRF-TOKEN cookie. */
async function whoAmI() {
  try {
    const response = await fetch('me', { headers: { Accept: 'application/json' } });
    const me = await response.json();
    if (typeof me.actuator === 'string') actuator = me.actuator;
    $('#who').textContent = me.name ? `logged in as ${me.name}` + (me.ops ? ' (ops: tune, purge)' : ' (no ops role)')
      : 'not logged in: reads only';
    $('#log-in').hidden = !!me.name;
    $('#log-out').hidden = !me.name;
  } catch (e) {
    $('#who').textContent = 'cannot read me: ' + e.message;
  }
}

async function logOut() {
  await post('logout');
  location.reload();
}

// ---- pools ---------------------------------------------------------------------------------

/** A tooltip that follows the cursor over a chart: the time and every shown line's value. */
function tooltipPlugin() {
  let tip;
  return {
    hooks: {
      init(u) {
        tip = document.createElement('div');
        tip.className = 'chart-tooltip';
        tip.hidden = true;
        u.over.appendChild(tip);
        u.over.addEventListener('mouseleave', () => { tip.hidden = true; });
      },
      setCursor(u) {
        const i = u.cursor.idx;
        if (i == null || u.cursor.left < 0) {
          tip.hidden = true;
          return;
        }
        tip.replaceChildren();
        const time = document.createElement('div');
        time.className = 'time';
        time.textContent = clock(u.data[0][i]);
        tip.appendChild(time);
        SERIES.forEach((s, k) => {
          if (!u.series[k + 1].show) return;
          const row = document.createElement('div');
          const swatch = document.createElement('i');
          swatch.style.background = s.stroke;
          const value = u.data[k + 1][i];
          row.append(swatch, `${s.label} `, Object.assign(document.createElement('b'),
            { textContent: value == null ? '–' : String(value) }));
          tip.appendChild(row);
        });
        tip.hidden = false;
        // Right of the cursor, or left of it near the right edge.
        const left = u.cursor.left + 12;
        tip.style.left = (left + tip.offsetWidth > u.over.clientWidth ? u.cursor.left - 12 - tip.offsetWidth : left) + 'px';
        tip.style.top = Math.max(0, Math.min(u.cursor.top + 12, u.over.clientHeight - tip.offsetHeight)) + 'px';
      },
    },
  };
}

/** A time of day, 24-hour, to the second: the time axis's labels and the tooltip's heading. */
function clock(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString([], { hour12: false });
}

const INTEGER_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6];

function newChart(container) {
  const options = {
    width: Math.max(300, container.clientWidth),
    height: CHART_HEIGHT,
    plugins: [tooltipPlugin()],
    cursor: { drag: { x: false, y: false } },
    legend: { live: false }, // the tooltip shows the values; the legend is the key, and toggles lines
    scales: {
      // At least the last minute, growing to five as samples come in.
      x: { time: true, range: (u, min, max) => [Math.min(min, max - 60), max] },
      y: { range: (u, min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] },
      rate: { range: (u, min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] },
    },
    axes: [
      { space: 70, values: (u, splits) => splits.map((t) => clock(t)) },
      { scale: 'y', incrs: INTEGER_STEPS, size: 45 },
      { scale: 'rate', side: 1, incrs: INTEGER_STEPS, grid: { show: false }, stroke: '#dc2626', size: 45 },
    ],
    series: [
      { label: 'time', value: (u, v) => (v == null ? '' : clock(v)) },
      ...SERIES.map((s) => ({ label: s.label, stroke: s.stroke, dash: s.dash, width: 1.5, scale: s.scale || 'y',
        points: { show: false } })),
    ],
  };
  const data = [[], ...SERIES.map(() => [])];
  const plot = new uPlot(options, data, container);
  new ResizeObserver(() => plot.setSize({ width: Math.max(300, container.clientWidth), height: CHART_HEIGHT }))
    .observe(container);
  return { plot, data };
}

function card(name) {
  let el = document.querySelector(`.pool[data-pool="${CSS.escape(name)}"]`);
  if (el) return el;
  el = $('#pool-card').content.firstElementChild.cloneNode(true);
  el.dataset.pool = name;
  $('[data-field="name"]', el).textContent = name;
  $('[data-action="tune"]', el).addEventListener('click', () => tune(name, el));
  $('[data-action="purge"]', el).addEventListener('click', () => purge(name, el));
  $('#pools').appendChild(el);
  charts.set(name, newChart($('.chart', el)));
  return el;
}

function show(el, pool) {
  for (const field of ['capacity', 'running', 'idle', 'waiting', 'queued', 'rejected', 'completed']) {
    $(`[data-field="${field}"]`, el).textContent = pool[field];
  }
  // Every poll: a tune or a refresh changes these live.
  const cfg = pool.config || {};
  const kind = [];
  if (cfg.virtualThreads) kind.push('virtual threads');
  if (cfg.nonblocking) kind.push('nonblocking');
  if (pool.queueCapacity > 0) kind.push('queue ' + pool.queueCapacity);
  $('[data-field="kind"]', el).textContent = kind.join(', ');
}

function record(name, pool, seconds) {
  const chart = charts.get(name);
  // Per second of the time since the last sample: polls are late in a background tab, or fail.
  const previous = lastRejected.get(name);
  lastRejected.set(name, { rejected: pool.rejected, seconds });
  const elapsed = previous ? seconds - previous.seconds : 0;
  const rate = elapsed > 0 ? Math.max(0, pool.rejected - previous.rejected) / elapsed : 0;
  const sample = { ...pool, rejected: Math.round(rate * 10) / 10 };
  // An unbounded pool reports capacity -1: a gap, not a line at -1.
  if (sample.capacity < 0) sample.capacity = null;
  chart.data[0].push(seconds);
  SERIES.forEach((s, k) => chart.data[k + 1].push(sample[s.key]));
  for (const column of chart.data) {
    while (column.length > WINDOW) column.shift();
  }
  chart.plot.setData(chart.data);
}

/** Shows one answer of /actuator/pools, read at `seconds`. */
function render(body, seconds) {
  const unreadable = body.unreadable || {};
  for (const [name, pool] of Object.entries(body.pools)) {
    const el = card(name);
    el.classList.remove('gone');
    if (el.classList.contains('unreadable')) {
      el.classList.remove('unreadable');
      message(el, '');
    }
    show(el, pool);
    record(name, pool, seconds);
  }
  // A pool whose figures cannot be read (a refresh-scoped bean that could not be rebuilt) is
  // still there: said, with the error, not greyed out as gone.
  for (const [name, error] of Object.entries(unreadable)) {
    const el = card(name);
    el.classList.remove('gone');
    el.classList.add('unreadable');
    // Its last figures are not the pool's now: none shown, until it can be read again.
    for (const field of el.querySelectorAll('.numbers [data-field]')) field.textContent = '-';
    message(el, 'cannot be read: ' + error, true);
  }
  // A pool that went away (closed and removed) keeps its card, greyed out.
  for (const el of document.querySelectorAll('.pool[data-pool]')) {
    if (!(el.dataset.pool in body.pools) && !(el.dataset.pool in unreadable)) el.classList.add('gone');
  }
}

async function pollPools() {
  try {
    // Each poll gives up after a while: the next one waits for it (see every()).
    const response = await fetch(actuator + 'pools', { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(POLL_TIMEOUT_MS) });
    if (!response.ok) throw new Error(await describeFailure(response));
    const now = Date.now();
    render(await response.json(), now / 1000);
    $('#status').textContent = 'live · ' + new Date(now).toLocaleTimeString();
    $('#status').classList.remove('down');
  } catch (e) {
    $('#status').textContent = `cannot read ${actuator}pools: ` + e.message;
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
  let response;
  try {
    response = await post(`${actuator}pools/${encodeURIComponent(name)}/tune`, {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (e) { // the app is down or unreachable: say so, not only in the console
    message(el, 'tune failed: ' + e.message, true);
    return;
  }
  if (!response.ok) {
    message(el, 'tune failed: ' + await describeFailure(response), true);
    return;
  }
  const pool = await response.json();
  show(el, pool);
  message(el, `tuned to ${pool.capacity}`);
}

async function purge(name, el) {
  let response;
  try {
    response = await post(`${actuator}pools/${encodeURIComponent(name)}/purge`);
  } catch (e) {
    message(el, 'purge failed: ' + e.message, true);
    return;
  }
  if (!response.ok) {
    message(el, 'purge failed: ' + await describeFailure(response), true);
    return;
  }
  const result = await response.json();
  if (result.pool) show(el, result.pool);
  message(el, `purged ${result.purged} idle worker(s)`);
}

// ---- load and ETL --------------------------------------------------------------------------

async function postForText(url) {
  try {
    const response = await post(url);
    return { ok: response.ok, text: response.ok ? await response.text() : await describeFailure(response) };
  } catch (e) {
    return { ok: false, text: 'failed: ' + e.message };
  }
}

/** The last ETL poll started, and the one whose answer is shown: a button's poll runs beside the timer's. */
let etlPolls = 0;
let etlShown = 0;

async function pollEtl() {
  const poll = ++etlPolls;
  try {
    const response = await fetch('etl/progress', { signal: AbortSignal.timeout(POLL_TIMEOUT_MS) });
    // An answer to an older poll than the one shown (a Stop's poll came back first) is no news.
    if (poll < etlShown) return;
    etlShown = poll;
    if (!response.ok) {
      // Say so (a 503 while the overload demo fills the web server's pool), not a frozen panel.
      $('#etl-error').textContent = 'cannot read etl/progress: ' + (await describeFailure(response));
      return;
    }
    const p = await response.json();
    $('#etl-state').textContent = p.state;
    $('#etl-restart').disabled = p.state === 'RUNNING' || p.state === 'STOPPING'; // the server would refuse it
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
  $('#log-out').addEventListener('click', logOut);
  for (const button of document.querySelectorAll('[data-load]')) {
    button.addEventListener('click', async () => {
      $('#load-result').textContent = 'POST ' + button.dataset.load + ' …';
      $('#load-result').textContent = 'POST ' + button.dataset.load + '\n' + (await postForText(button.dataset.load)).text;
    });
  }
  // Once a run is DONE, "Start / resume" answers that it is done; this one starts over.
  for (const [id, url] of [['#etl-start', 'etl/start'], ['#etl-stop', 'etl/stop'],
      ['#etl-restart', 'etl/start?restart=true']]) {
    $(id).addEventListener('click', async () => {
      if (id === '#etl-restart' && !window.confirm('Forget the checkpoint and the results, and run from the first review?')) {
        return;
      }
      const result = await postForText(url);
      $('#etl-message').textContent = result.ok ? '' : result.text;
      pollEtl();
    });
  }
  // The first poll of the pools waits for /me, which says where the actuator is.
  whoAmI().then(() => every(POLL_MS, pollPools));
  every(POLL_MS, pollEtl);
}

/**
 * Runs the poll now and again `ms` after each one ends: a slow server never has polls piling up
 * on the browser's few connections to it (which the buttons' POSTs need too).
 */
function every(ms, poll) {
  const next = async () => {
    try {
      await poll();
    } finally {
      setTimeout(next, ms);
    }
  };
  next();
}

// For other scripts on the page: the charts by pool name, and a POST that carries the login and the CSRF token.
window.workerpoolDashboard = { charts, post };

init();
