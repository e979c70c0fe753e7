// The web server's own pool under load: one button that sends more requests at once than the
// pool "http" admits (POST /demo/http/overload; the server sends them to itself over loopback,
// since a browser opens only a few connections per host), then shows how they ended: 200s served
// on http-N threads, 503s with Retry-After. Self-contained: it adds its own panel to the page.
(() => {
  const REQUESTS = 80;
  const MS = 1000;

  const panel = document.createElement('section');
  panel.className = 'panel';
  panel.id = 'http-overload';
  panel.innerHTML = `
    <h2>Web server on the pool http <span class="sub">pools.web-server.pool: 503 + Retry-After when full</span></h2>
    <div class="buttons">
      <button id="overload-start">Overload the web server: ${REQUESTS} requests × ${MS / 1000} s at once</button>
      <span id="overload-state" class="message"></span>
    </div>
    <pre id="overload-result" class="result"></pre>`;
  const anchor = document.getElementById('load');
  if (anchor) anchor.after(panel); else document.querySelector('main').prepend(panel);

  const state = panel.querySelector('#overload-state');
  const result = panel.querySelector('#overload-result');

  function headers() {
    const h = { 'X-Requested-With': 'XMLHttpRequest' };
    const token = document.cookie.split('; ').find((c) => c.startsWith('XSRF-TOKEN='));
    if (token) h['X-XSRF-TOKEN'] = decodeURIComponent(token.substring('XSRF-TOKEN='.length));
    return h;
  }

  function render(run) {
    const outcomes = Object.entries(run.outcomes)
      .map(([outcome, count]) => `${count} × ${/^\d+$/.test(outcome) ? 'HTTP ' + outcome : outcome}`).join(', ');
    const threads = run.threads.length ? `\n200s served on ${run.threads.length} thread(s): ${run.threads.join(' ')}` : '';
    const retry = run.retryAfter.length ? `\n503s said Retry-After: ${run.retryAfter.join(', ')} s` : '';
    result.textContent = `${run.answered} / ${run.requests} answered` + (run.done ? ` in ${run.elapsedMillis} ms` : ' …')
      + (outcomes ? `: ${outcomes}` : '') + threads + retry;
  }

  // One poll at a time: each click (a 409 too) started another loop, each a request every 500 ms
  // through the very pool the burst fills.
  let polling = false;

  async function poll() {
    if (polling) return;
    polling = true;
    try {
      await pollUntilDone();
    } finally {
      polling = false;
    }
  }

  async function pollUntilDone() {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      try {
        const response = await fetch('demo/http/overload', { headers: headers() });
        if (response.status === 503) {
          state.textContent = 'this page\'s own poll got a 503 too: the server is full';
          continue;
        }
        if (!response.ok) { state.textContent = 'poll failed: HTTP ' + response.status; return; }
        const run = await response.json();
        render(run);
        if (run.done) { state.textContent = 'done: see the pool "http" card below'; return; }
        state.textContent = 'running…';
      } catch (e) {
        state.textContent = 'poll failed: ' + e;
        return;
      }
    }
  }

  panel.querySelector('#overload-start').addEventListener('click', async () => {
    state.textContent = 'starting…';
    result.textContent = '';
    let response;
    try {
      response = await fetch(`demo/http/overload?requests=${REQUESTS}&ms=${MS}`,
        { method: 'POST', headers: headers() });
    } catch (e) { // the app is down or unreachable
      state.textContent = 'could not start: ' + e.message;
      return;
    }
    if (response.status !== 202 && response.status !== 409) {
      state.textContent = `could not start: HTTP ${response.status} ${await response.text()}`;
      return;
    }
    if (response.status === 409) state.textContent = 'a burst is already running';
    render(await response.json());
    poll();
  });
})();
