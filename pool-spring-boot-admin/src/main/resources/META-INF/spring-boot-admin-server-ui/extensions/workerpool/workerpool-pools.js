/*
 * workerpool for Spring Boot Admin 4.1: the "Pools" view of an instance, and the fleet's (every
 * instance's pools, in SBA's top bar).
 *
 * Plain JavaScript, no build step: SBA's bundle sets globalThis.Vue (Vue 3, the runtime build, so
 * no template compiler: the view is written with render functions) and globalThis.SBA, and loads
 * every *.js under META-INF/spring-boot-admin-server-ui/extensions/ of its class path after its own
 * views are installed.
 *
 * The view is listed in an instance's sidebar only when the instance has the `pools` actuator
 * endpoint (pool-spring-boot-starter's). It reads GET actuator/pools every two seconds and sends
 * POST actuator/pools/{name}/tune and .../purge, all through SBA's proxy for that instance
 * (instance.axios: /instances/{id}/actuator/...). The proxy calls the instance with the
 * credentials SBA has for it (the instance's user.name / user.password metadata, or
 * spring.boot.admin.instance-auth.*): writes work when those belong to a user allowed to tune.
 */
(function () {
  'use strict';

  var Vue = globalThis.Vue;
  var SBA = globalThis.SBA;
  if (!Vue || !SBA || typeof SBA.use !== 'function') {
    console.error('workerpool: not loaded by a Spring Boot Admin 4 UI (no Vue or SBA.use)');
    return;
  }
  var h = Vue.h;

  var REFRESH_MS = 2000;
  /** How long the answer of a tune or purge that worked stays shown; a refusal stays until the next action. */
  var MESSAGE_MS = 10000;
  var UNBOUNDED_QUEUE = 2147483647;

  /** The figures of POOL, in the order shown. */
  var FIGURES = ['capacity', 'running', 'idle', 'free', 'waiting', 'queued', 'queueCapacity',
    'submitted', 'completed', 'failed', 'rejected', 'cancelled', 'queueTimeouts', 'runTimeouts'];

  /** Every live option of the endpoint's tune, by its config name. */
  var OPTIONS = [
    { name: 'capacity', kind: 'int', hint: '-1 = unbounded' },
    { name: 'queueCapacity', kind: 'int', hint: 'within its kind: 0, bounded, 2147483647' },
    { name: 'maxBlockingTasks', kind: 'int', hint: '0 = no limit' },
    { name: 'nonblocking', kind: 'bool' },
    { name: 'disablePurge', kind: 'bool' },
    // Never none: idle workers are kept for ever with disablePurge (the endpoint refuses "none").
    { name: 'expiry', kind: 'duration', hint: 'e.g. 30s', required: true },
    { name: 'blockingTimeout', kind: 'duration', hint: 'e.g. 2s; empty = none' },
    { name: 'queueTimeout', kind: 'duration', hint: 'e.g. 500ms; empty = none' },
    { name: 'runTimeout', kind: 'duration', hint: 'e.g. 10s; empty = none' },
    // Only for a pool that can be adaptive (POOL's adaptive object is not null); not in config.
    { name: 'adaptive', kind: 'bool', hint: 'capacity follows the tasks\' run time; off keeps the capacity it has then',
      adaptive: true },
  ];

  /** The option's value in a POOL: adaptive is POOL.adaptive.enabled, the others are in config. */
  function optionValue(pool, option) {
    if (option.adaptive) {
      return pool.adaptive ? pool.adaptive.enabled : undefined;
    }
    return (pool.config || {})[option.name];
  }

  /** Our requests show their outcome in the view, not in SBA's error toasts. */
  var QUIET = { suppressToast: true, headers: { Accept: 'application/json' } };

  /** A write: a JSON body (even an empty one; axios would send an empty one as a form, a 415). */
  var WRITE = {
    suppressToast: true,
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
  };

  function figure(name, value) {
    if (value === undefined || value === null) {
      return '-';
    }
    if ((name === 'capacity' || name === 'free') && value === -1) {
      return 'unbounded';
    }
    if (name === 'queueCapacity' && value === UNBOUNDED_QUEUE) {
      return 'unbounded';
    }
    return String(value);
  }

  /**
   * "on, gradient2 within 1-128, limit 12" or "off (gradient2 within 1-128; configured 64)"; with
   * adaptive.drop-on, its classes' simple names after the bounds ("vegas within 1-128, drop-on
   * TimeoutException"). Instances older than drop-on send no dropOn.
   */
  function adaptiveText(adaptive) {
    var bounds = adaptive.algorithm + ' within ' + adaptive.minCapacity + '-' + adaptive.maxCapacity;
    if (adaptive.dropOn && adaptive.dropOn.length > 0) {
      bounds += ', drop-on ' + adaptive.dropOn.map(function (name) {
        return name.substring(name.lastIndexOf('.') + 1);
      }).join(', ');
    }
    return adaptive.enabled ? 'on, ' + bounds + ', limit ' + adaptive.limit
      : 'off (' + bounds + '; configured ' + figure('capacity', adaptive.configuredCapacity) + ')';
  }

  /**
   * A map keyed by pool name: no prototype, so a pool named "constructor", "toString" or
   * "__proto__" is a key like any other (on a plain {}, state.busy.toString is a function, and
   * the pool's buttons stayed disabled).
   */
  function byPool() {
    return Object.create(null);
  }

  /** The option's hint in the form; for a MultiPool (pools > 1) capacity and queueCapacity are per pool. */
  function hintOf(option, pools) {
    if (pools > 1 && (option.name === 'capacity' || option.name === 'queueCapacity')) {
      return 'per pool, for each of its ' + pools + ' pools (the figures above are their sums); ' + option.hint;
    }
    return option.hint;
  }

  function shown(value) {
    if (value === undefined || value === null) {
      return 'none';
    }
    return String(value);
  }

  // Paths start with '/': axios joins them to the instance's baseURL ("instances/<id>") all the
  // same, and SBA's answer to a 401 (sending the whole UI to its login page) spares only requests
  // whose baseURL + url reads "instances/<id>/actuator/...": without the slash a 401 from the
  // instance left the view, and its hint about the instance's credentials was never shown.
  var POOLS = '/actuator/pools';

  function poolPath(name, action) {
    return POOLS + '/' + encodeURIComponent(name) + (action ? '/' + action : '');
  }

  /**
   * "400: capacity must be ..." from an axios error, with a hint for 401/403/404; {@code read}
   * for a read of the pools (the hints for writes do not apply to it).
   */
  function describe(error, read) {
    var response = error && error.response;
    if (!response) {
      return (error && error.message) || 'request failed';
    }
    var data = response.data || {};
    // A JSON error's message; else a text body as it came (a WebFlux security 403 is plain text).
    // An RFC 7807 problem (spring.mvc.problemdetails.enabled) has its words in detail.
    var reason = (typeof data === 'object' && (data.message || data.detail || data.error))
      || (typeof data === 'string' && data.trim() !== '' ? data.trim().slice(0, 300) : '')
      || response.statusText || '';
    var text = response.status + (reason ? ': ' + reason : '');
    // What a 401/403 from the instance needs, a read's or a write's: the user SBA calls it with.
    var setTheUser = 'set the instance\'s user.name and user.password metadata, or '
      + 'spring.boot.admin.instance-auth.*; if Spring Boot Admin itself ';
    if (read) {
      if (response.status === 404) {
        text += ' (the instance no longer answers /actuator/pools: is pools still in '
          + 'management.endpoints.web.exposure.include?)';
      }
      else if (response.status === 401 || response.status === 403) {
        text += ' (Spring Boot Admin reads the instance without a user it lets read the pools: ' + setTheUser
          + 'refused, log in to it again)';
      }
      return text;
    }
    // The endpoint's own 404 names the pool; any other (Spring's "No static resource ...", with
    // server.error.include-message) means the write is not mapped: writes are off.
    if ((response.status === 404 || response.status === 405) && String(reason).indexOf('No pool named') !== 0) {
      text += ' (if this was a tune or purge: the instance may not allow writes; set '
        + 'management.endpoint.pools.access=unrestricted on it)';
    }
    if (response.status === 401 || response.status === 403) {
      var credentials = 'if the instance refused it, Spring Boot Admin calls it without a user allowed to tune: '
        + setTheUser + 'did, log in to it again';
      // SBA passes the browser's Origin on, so an instance that asks browsers for a CSRF token
      // asks it of SBA's call too, which carries none; credentials are what it needs.
      text = /csrf/i.test(String(reason))
        ? response.status + ': ' + credentials + ' (the instance answered: ' + reason + ')'
        : text + ' (' + credentials + ')';
    }
    return text;
  }

  /** The form's starting values from a POOL; an option the pool cannot have is left out. */
  function formFrom(pool) {
    var form = {};
    OPTIONS.forEach(function (option) {
      var value = optionValue(pool, option);
      if (option.adaptive && value === undefined) {
        return;
      }
      if (option.kind === 'bool') {
        form[option.name] = !!value;
      }
      else {
        form[option.name] = value === undefined || value === null ? '' : String(value);
      }
    });
    return form;
  }

  /** The tune body: only the fields the user changed; an emptied duration is "none". */
  function changes(base, form) {
    var body = {};
    OPTIONS.forEach(function (option) {
      var before = base[option.name];
      var now = form[option.name];
      if (!(option.name in form)) {
        return;
      }
      if (option.kind === 'bool') {
        if (now !== before) {
          body[option.name] = now;
        }
        return;
      }
      var text = String(now).trim();
      if (text === before) {
        return;
      }
      if (option.kind === 'int') {
        // Sent as typed when it is not a whole number a JavaScript number holds exactly: the
        // endpoint's 400 names the field and shows the digits (not 1e+25).
        body[option.name] = /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text;
      }
      else {
        body[option.name] = text === '' ? 'none' : text;
      }
    });
    // A capacity alone switches adaptive sizing off (the endpoint's rule for a manual tune): with
    // the box still checked, say so, and it stays on, from the new capacity.
    if ('capacity' in body && form.adaptive === true && !('adaptive' in body)) {
      body.adaptive = true;
    }
    // Adaptive switched off alone: the endpoint would go back to the configured capacity, which
    // the form does not show. The pool keeps the capacity the form shows (an untouched field
    // follows the limit up to the Apply: see tune()).
    if (body.adaptive === false && !('capacity' in body) && /^-?\d+$/.test(String(form.capacity).trim())) {
      body.capacity = Number(String(form.capacity).trim());
    }
    return body;
  }

  /**
   * The options that changed in the pool since its form opened, by another hand (a refresh, an
   * operator, another tab); an adaptive pool's capacity moves by itself and is not counted.
   */
  function changedUnder(base, latest) {
    return OPTIONS.map(function (option) {
      return option.name;
    }).filter(function (name) {
      if (!(name in base) || !(name in latest)) {
        return false;
      }
      if (name === 'capacity' && base.adaptive === true && latest.adaptive === true) {
        return false;
      }
      return base[name] !== latest[name];
    });
  }

  /**
   * "capacity 6, blockingTimeout 2s": each field sent, numbers and switches as the pool answered
   * them (a tune may take another value: a capacity clamped to adaptive sizing's bounds), with
   * "(asked 500)" where they differ; durations as sent (a bare number is refused before sending).
   */
  function summary(body, pool) {
    return Object.keys(body).map(function (key) {
      var option = OPTIONS.filter(function (o) {
        return o.name === key;
      })[0];
      if (!pool || !option || option.kind === 'duration') {
        return key + ' ' + body[key];
      }
      // The live capacity, not the configured one; but a MultiPool's live capacity is the sum of
      // its pools', and the form sends one pool's: its configured one (helper-161).
      var perPool = pool.config && pool.config.pools > 1;
      var value = key === 'capacity' && !perPool && typeof pool.capacity === 'number' ? pool.capacity
        : optionValue(pool, option);
      if (value === undefined || value === null) {
        return key + ' ' + body[key];
      }
      return key + ' ' + figure(key, value) + (String(value) === String(body[key]) ? '' : ' (asked ' + body[key] + ')');
    }).join(', ');
  }

  /** The first duration sent as a bare number (milliseconds to the endpoint, seconds to many a reader), or null. */
  function bareDuration(body) {
    return OPTIONS.filter(function (option) {
      var value = body[option.name];
      return option.kind === 'duration' && typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)
        && Number(value) !== 0;
    }).map(function (option) {
      return option.name;
    })[0] || null;
  }

  var PoolsView = Vue.defineComponent({
    name: 'WorkerpoolPools',
    props: {
      instance: { type: Object, required: true },
      application: { type: Object, default: undefined },
    },
    setup: function (props) {
      var state = Vue.reactive({
        pools: null,
        unreadable: byPool(), // pool -> the error its figures could not be read with
        error: null,
        updated: null,
        forms: byPool(),      // pool -> { base, values } while its tune form is open
        messages: byPool(),   // pool -> { text, ok }
        busy: byPool(),       // pool -> true while a write is under way
        answered: byPool(),   // pool -> when a write's answer last gave its figures
      });
      var timer = null;
      var stopped = false;
      // SBA keeps this view when only the instance in the route changes: each instance is a new
      // generation, and an answer from an older one (a poll, a tune) is dropped.
      var generation = 0;
      // A poll that was out while a write was answered may have read the pool before the write:
      // for that pool the write's answer is kept, else the old values would come back until the
      // next poll. Writes answered so far, and the count when each pool's last one was.
      var writes = 0;
      var writtenAt = byPool();

      function current(gen) {
        return gen === generation && !stopped;
      }

      function refresh() {
        var gen = generation;
        var seen = writes;
        var startedAt = new Date();
        return props.instance.axios.get(POOLS, QUIET).then(function (response) {
          if (!current(gen)) {
            return;
          }
          // Copied into a map with no prototype, as the view's other maps (see byPool).
          var pools = Object.assign(byPool(), (response.data && response.data.pools) || {});
          Object.keys(writtenAt).forEach(function (name) {
            if (writtenAt[name] > seen && pools[name] && state.pools && state.pools[name]) {
              pools[name] = state.pools[name];
            }
          });
          state.pools = pools;
          state.unreadable = Object.assign(byPool(), (response.data && response.data.unreadable) || {});
          state.error = null;
          state.updated = new Date();
        }, function (error) {
          if (current(gen)) {
            state.error = describe(error, true);
            // A write's answer gave its pool's figures afresh only until a poll that started
            // after it fails: from then on they are as old as that answer, and dimmed.
            Object.keys(state.answered).forEach(function (name) {
              if (state.answered[name] < startedAt) {
                delete state.answered[name];
              }
            });
          }
        }).then(function () {
          if (current(gen)) {
            timer = setTimeout(refresh, REFRESH_MS);
          }
        });
      }

      Vue.onMounted(refresh);
      Vue.watch(function () {
        return props.instance.id;
      }, function () {
        generation++;
        clearTimeout(timer);
        state.pools = null;
        state.unreadable = byPool();
        state.error = null;
        state.updated = null;
        state.forms = byPool();
        state.messages = byPool();
        state.busy = byPool();
        state.answered = byPool();
        writtenAt = byPool();
        refresh();
      });
      Vue.onBeforeUnmount(function () {
        stopped = true;
        clearTimeout(timer);
      });

      function say(name, text, ok) {
        state.messages[name] = { text: text, ok: ok };
        if (ok && text) {
          // Cleared once read: left for good, "tuned: capacity 8" would still be shown after
          // another hand changed the pool. Not if another message took its place meanwhile.
          var said = state.messages[name];
          var gen = generation;
          setTimeout(function () {
            if (current(gen) && state.messages[name] === said) {
              delete state.messages[name];
            }
          }, MESSAGE_MS);
        }
      }

      function openForm(name) {
        var pool = state.pools[name];
        state.forms[name] = { base: formFrom(pool), values: formFrom(pool) };
        say(name, '', true);
      }

      function closeForm(name) {
        delete state.forms[name];
      }

      function tune(name) {
        var form = state.forms[name];
        var latest = formFrom(state.pools[name]);
        if (form.base.adaptive === true && latest.adaptive === true && form.values.capacity === form.base.capacity) {
          // Adaptive sizing has moved the capacity since the form opened: an untouched field
          // follows it, so that switching sizing off keeps the capacity the pool has now.
          form.values.capacity = latest.capacity;
          form.base.capacity = latest.capacity;
        }
        var moved = changedUnder(form.base, latest);
        if (moved.length > 0) {
          // Applied from stale values, a field put back to what the form showed would send
          // nothing, and the adaptive box would switch sizing on or off unasked: start again from
          // the pool as it is now (fields the user had not touched follow it) and let them look.
          var what = moved.map(function (key) {
            return key + ' ' + form.base[key] + ' \u2192 ' + latest[key];
          }).join(', ');
          moved.forEach(function (key) {
            if (form.values[key] === form.base[key]) {
              form.values[key] = latest[key];
            }
          });
          form.base = latest;
          say(name, 'the pool changed while the form was open (' + what + '): check the form and apply again', false);
          return;
        }
        var body = changes(form.base, form.values);
        if (Object.keys(body).length === 0) {
          say(name, 'nothing changed', true);
          return;
        }
        var emptied = OPTIONS.filter(function (option) {
          return option.required && body[option.name] === 'none';
        })[0];
        if (emptied) {
          say(name, emptied.name + ' needs a duration, such as 30s: idle workers stop after it (to keep them, '
            + 'check disablePurge)', false);
          return;
        }
        var bare = bareDuration(body);
        if (bare) {
          say(name, bare + ' ' + body[bare] + ' has no unit: write ' + body[bare] + 's, ' + body[bare] + 'ms or '
            + body[bare] + 'm (a bare number would be milliseconds)', false);
          return;
        }
        state.busy[name] = true;
        var gen = generation;
        props.instance.axios.post(poolPath(name, 'tune'), body, WRITE).then(function (response) {
          if (!current(gen)) {
            return;
          }
          writtenAt[name] = ++writes;
          state.pools[name] = response.data;
          state.answered[name] = new Date();
          // Only the form this tune came from: one cancelled and opened again meanwhile is the
          // user's next change (its Apply then shows the pool as this tune left it).
          if (state.forms[name] === form) {
            closeForm(name);
          }
          say(name, 'tuned: ' + summary(body, response.data), true);
        }, function (error) {
          if (current(gen)) {
            say(name, describe(error), false);
          }
        }).then(function () {
          if (current(gen)) {
            state.busy[name] = false;
          }
        });
      }

      function purge(name) {
        state.busy[name] = true;
        var gen = generation;
        props.instance.axios.post(poolPath(name, 'purge'), {}, WRITE).then(function (response) {
          if (!current(gen)) {
            return;
          }
          if (response.data && response.data.pool) {
            writtenAt[name] = ++writes;
            state.pools[name] = response.data.pool;
            state.answered[name] = new Date();
          }
          say(name, 'purged ' + (response.data ? response.data.purged : 0) + ' idle workers', true);
        }, function (error) {
          if (current(gen)) {
            say(name, describe(error), false);
          }
        }).then(function () {
          if (current(gen)) {
            state.busy[name] = false;
          }
        });
      }

      function renderFigures(pool) {
        return h('dl', { class: 'wp-figures' }, FIGURES.map(function (name) {
          return h('div', { class: 'wp-figure' }, [
            h('dt', name),
            h('dd', { 'data-field': name }, figure(name, pool[name])),
          ]);
        }));
      }

      function renderConfig(pool) {
        var config = pool.config || {};
        var rows = Object.keys(config).map(function (key) {
          return h('tr', [
            h('th', key),
            // capacity -1 and queueCapacity 2147483647 in words, as the figures say them.
            h('td', { 'data-config': key }, (key === 'capacity' || key === 'queueCapacity')
              ? figure(key, config[key]) : shown(config[key])),
          ]);
        });
        if (pool.adaptive) {
          rows.push(h('tr', [
            h('th', 'adaptive'),
            h('td', { 'data-config': 'adaptive' }, adaptiveText(pool.adaptive)),
          ]));
        }
        return h('table', { class: 'wp-config' }, [h('tbody', rows)]);
      }

      function renderForm(name) {
        var form = state.forms[name];
        // A MultiPool's options are each of its pools' (a capacity of 8 gives each pool 8), while
        // its figures above are their sums: the two fields say so.
        var pools = ((state.pools[name] || {}).config || {}).pools;
        var rows = OPTIONS.filter(function (option) {
          return option.name in form.values;
        }).map(function (option) {
          var input;
          if (option.kind === 'bool') {
            input = h('input', {
              type: 'checkbox',
              'data-option': option.name,
              checked: form.values[option.name],
              onChange: function (event) {
                form.values[option.name] = event.target.checked;
              },
            });
          }
          else {
            input = h('input', {
              type: 'text',
              class: 'wp-input',
              'data-option': option.name,
              value: form.values[option.name],
              placeholder: option.kind === 'duration' && !option.required ? 'none' : '',
              onInput: function (event) {
                form.values[option.name] = event.target.value;
              },
            });
          }
          return h('label', { class: 'wp-option' }, [
            h('span', { class: 'wp-option-name' }, option.name),
            input,
            hintOf(option, pools) ? h('small', { 'data-hint': option.name }, hintOf(option, pools)) : null,
          ]);
        });
        return h('form', {
          class: 'wp-form',
          onSubmit: function (event) {
            event.preventDefault();
            tune(name);
          },
        }, [
          h('div', { class: 'wp-options' }, rows),
          h('div', { class: 'wp-actions' }, [
            h('button', { type: 'submit', class: 'wp-button wp-primary', 'data-action': 'apply',
              'aria-label': 'Apply to pool ' + name, disabled: !!state.busy[name] }, 'Apply'),
            h('button', { type: 'button', class: 'wp-button', 'data-action': 'cancel',
              'aria-label': 'Cancel the tune of pool ' + name,
              onClick: function () { closeForm(name); } }, 'Cancel'),
          ]),
        ]);
      }

      function renderPool(name, stale) {
        var pool = state.pools[name];
        var message = state.messages[name];
        // A write answered since the last poll that worked gave this pool's figures afresh.
        var old = stale && !(state.answered[name] && state.answered[name] > state.updated);
        return h('section', { class: 'wp-pool' + (old ? ' wp-stale' : ''), 'data-pool': name, key: name }, [
          h('header', { class: 'wp-pool-header' }, [
            h('h3', [name, pool.closed ? h('span', { class: 'wp-closed' }, 'closed') : null]),
            h('div', { class: 'wp-actions' }, [
              h('button', { type: 'button', class: 'wp-button', 'data-action': 'tune',
                'aria-label': 'Tune pool ' + name, disabled: !!state.forms[name],
                onClick: function () { openForm(name); } }, 'Tune'),
              h('button', { type: 'button', class: 'wp-button', 'data-action': 'purge',
                'aria-label': 'Purge the idle workers of pool ' + name, disabled: !!state.busy[name],
                onClick: function () { purge(name); } }, 'Purge idle'),
            ]),
          ]),
          renderFigures(pool),
          state.forms[name] ? renderForm(name) : renderConfig(pool),
          // Announced by screen readers: the answer of a tune or purge.
          h('p', { class: 'wp-message' + (message && !message.ok ? ' wp-error' : ''), 'data-field': 'message',
            role: 'status', 'aria-live': 'polite' }, message ? message.text : ''),
        ]);
      }

      return function () {
        var status;
        // While polls fail the last figures stay, dimmed, with their age: they are not the pool's now
        // (but for a pool a tune or purge answered since).
        var stale = !!(state.error && state.updated);
        if (state.error) {
          status = 'error: ' + state.error
            + (stale ? '; the figures below are from ' + state.updated.toLocaleTimeString() : '');
        }
        else if (state.updated) {
          status = 'live, every ' + REFRESH_MS / 1000 + ' s; updated ' + state.updated.toLocaleTimeString();
        }
        else {
          status = 'loading';
        }
        var names = state.pools ? Object.keys(state.pools).sort() : [];
        // Pools the instance could not read (listed apart by the endpoint): named with their error,
        // where they would otherwise just be missing.
        var unreadable = Object.keys(state.unreadable).sort();
        return h('div', { class: 'wp-view' }, [
          h('p', { class: 'wp-status' + (state.error ? ' wp-error' : ''), 'data-field': 'status' }, status),
          unreadable.map(function (name) {
            return h('p', { class: 'wp-error', 'data-field': 'unreadable', 'data-pool': name },
              'Pool ' + name + ' could not be read: ' + state.unreadable[name]);
          }),
          state.pools && names.length === 0 && unreadable.length === 0 ? h('p', 'This instance has no pools.') : null,
          h('div', { class: 'wp-pools' }, names.map(function (name) { return renderPool(name, stale); })),
        ]);
      };
    },
  });


  /** The fleet view's columns: an instance's figures of a pool, and their sum over the instances. */
  var FLEET_FIGURES = ['capacity', 'running', 'waiting', 'queued', 'rejected', 'failed'];

  /** Past this many instances the fleet view polls less often: 100 ms per instance, 10 reads a second on average. */
  var FLEET_POLLS = 20;

  /** How often the fleet view reads its instances, in ms. */
  function fleetInterval(instances) {
    return Math.max(REFRESH_MS, instances > FLEET_POLLS ? instances * 100 : 0);
  }

  /**
   * An instance's address as its registration gives it ("127.0.0.1:8080"), else its id; its id
   * too where SBA is told to hide instances' addresses (ui.hide-instance-url, hide-url metadata).
   */
  function instanceLabel(instance) {
    if (typeof instance.showUrl === 'function' && !instance.showUrl()) {
      return instance.id;
    }
    var url = (instance.registration && (instance.registration.serviceUrl || instance.registration.managementUrl)) || '';
    var match = /^[a-z]+:\/\/([^/]+)/i.exec(url);
    return match ? match[1] : instance.id;
  }

  /** Whether SBA lists the pools endpoint for an instance. */
  function hasPools(instance) {
    return typeof instance.hasEndpoint === 'function' && instance.hasEndpoint('pools');
  }

  /** The sum of a figure over some pools; unbounded (-1) if any capacity is. */
  function total(name, pools) {
    var sum = 0;
    for (var i = 0; i < pools.length; i++) {
      var value = pools[i][name];
      if (name === 'capacity' && value === -1) {
        return -1;
      }
      sum += typeof value === 'number' ? value : 0;
    }
    return sum;
  }

  /** Whether a pool runs at its capacity (callers wait only then): what a row of the fleet view is marked for. */
  function full(pool) {
    return pool.capacity > 0 && pool.running >= pool.capacity;
  }

  /**
   * The Pools entry of SBA's top bar: every instance's pools, one table per application, a row
   * for each pool of each instance under a row of their sums, so that the replica at its capacity
   * stands out. Read-only: an instance's link opens its own Pools view, where its pools are tuned
   * and purged. Each instance with the pools endpoint is read every two seconds through SBA's
   * proxy (less often past FLEET_POLLS instances), each on its own: one that answers slowly (SBA
   * waits 10 s for it by default) holds up no other, and its figures are dimmed once they are
   * older than two rounds.
   */
  var FleetView = Vue.defineComponent({
    name: 'WorkerpoolFleet',
    props: {
      applications: { type: Array, default: function () { return []; } },
    },
    setup: function (props) {
      // Instance id -> { pools, error, updated }; kept apart from SBA's instance objects, which
      // SBA replaces on every event about them. updated: when the last round started.
      var state = Vue.reactive({ reads: Object.create(null), updated: null, interval: REFRESH_MS });
      var timer = null;
      var stopped = false;
      // Instance id -> true while a read of it is out: the next round skips it.
      var reading = Object.create(null);

      function instances() {
        var list = [];
        (props.applications || []).forEach(function (application) {
          list.push.apply(list, (application.instances || []).filter(hasPools));
        });
        return list;
      }

      function read(instance) {
        var startedAt = new Date();
        reading[instance.id] = true;
        instance.axios.get(POOLS, QUIET).then(function (response) {
          if (stopped) {
            return;
          }
          state.reads[instance.id] = {
            pools: Object.assign(Object.create(null), (response.data && response.data.pools) || {}),
            unreadable: Object.assign(Object.create(null), (response.data && response.data.unreadable) || {}),
            error: null,
            updated: startedAt,
          };
        }, function (error) {
          if (stopped) {
            return;
          }
          var last = state.reads[instance.id];
          state.reads[instance.id] = { pools: last ? last.pools : null, unreadable: last ? last.unreadable : null,
            error: describe(error, true), updated: last ? last.updated : null };
        }).then(function () {
          delete reading[instance.id];
        });
      }

      function refresh() {
        var now = instances();
        var ids = Object.create(null);
        now.forEach(function (instance) {
          ids[instance.id] = true;
        });
        Object.keys(state.reads).forEach(function (id) {
          if (!ids[id]) {
            delete state.reads[id]; // deregistered
          }
        });
        now.forEach(function (instance) {
          if (!reading[instance.id]) {
            read(instance);
          }
        });
        state.updated = new Date();
        state.interval = fleetInterval(now.length);
        timer = setTimeout(refresh, state.interval);
      }

      /** Whether an instance's figures are not its pools' now: its last read failed, or is long overdue. */
      function stale(read) {
        return !!read.error || !read.updated || state.updated - read.updated > 2 * state.interval;
      }

      Vue.onMounted(refresh);
      Vue.onBeforeUnmount(function () {
        stopped = true;
        clearTimeout(timer);
      });

      function cells(pool, stale) {
        return FLEET_FIGURES.map(function (name) {
          return h('td', { class: 'wp-number' + (stale ? ' wp-stale' : ''), 'data-field': name },
            figure(name, pool[name]));
        });
      }

      function renderApplication(application) {
        var members = (application.instances || []).filter(hasPools).sort(function (a, b) {
          return instanceLabel(a) < instanceLabel(b) ? -1 : instanceLabel(a) > instanceLabel(b) ? 1 : 0;
        });
        if (members.length === 0) {
          return null;
        }
        var names = Object.create(null);
        members.forEach(function (instance) {
          var read = state.reads[instance.id];
          Object.keys((read && read.pools) || {}).forEach(function (name) {
            names[name] = true;
          });
        });
        var read = members.filter(function (instance) {
          return state.reads[instance.id] && state.reads[instance.id].pools;
        }).length;
        var rows = [];
        Object.keys(names).sort().forEach(function (name) {
          var pools = [];
          var instanceRows = [];
          var anyStale = false;
          members.forEach(function (instance) {
            var read = state.reads[instance.id];
            var pool = read && read.pools && read.pools[name];
            if (!pool) {
              return;
            }
            pools.push(pool);
            var old = stale(read);
            anyStale = anyStale || old;
            instanceRows.push(h('tr', { class: 'wp-instance-row' + (full(pool) ? ' wp-full' : ''),
              'data-pool': name, 'data-instance': instance.id, key: name + '/' + instance.id }, [
              h('td'),
              h('td', [h('a', { href: 'instances/' + encodeURIComponent(instance.id) + '/pools',
                title: read.error ? 'last read failed: ' + read.error : 'open this instance\'s Pools view' },
              instanceLabel(instance)), old ? h('span', { class: 'wp-error' }, ' (stale)') : null]),
            ].concat(cells(pool, old))));
          });
          rows.push(h('tr', { class: 'wp-total', 'data-pool': name, 'data-total': 'true', key: name }, [
            h('th', { scope: 'row' }, name),
            // Of the instances read so far (one never read is listed under the table).
            h('td', pools.length === read ? 'all ' + pools.length : pools.length + ' of ' + read),
          ].concat(FLEET_FIGURES.map(function (figureName) {
            // Dimmed too when a stale figure is in the sum.
            return h('td', { class: 'wp-number' + (anyStale ? ' wp-stale' : ''), 'data-field': figureName },
              figure(figureName, total(figureName, pools)));
          }))));
          rows.push.apply(rows, instanceRows);
        });
        // Instances not read yet or whose reads fail, by name: a replica that is down shows here.
        // One whose last good read had no pools is listed too when it fails now (helper-143: it
        // had no row to mark, so it only added to the count of failing ones).
        var unread = members.filter(function (instance) {
          var read = state.reads[instance.id];
          return !read || !read.pools || (read.error && Object.keys(read.pools).length === 0);
        });
        // Pools an instance listed as unreadable (their figures threw): named, not just missing.
        var unreadablePools = [];
        members.forEach(function (instance) {
          var read = state.reads[instance.id];
          Object.keys((read && read.unreadable) || {}).sort().forEach(function (name) {
            unreadablePools.push(h('li', { class: 'wp-error', 'data-instance': instance.id, 'data-pool': name,
              'data-field': 'unreadable', key: name + '/' + instance.id },
              instanceLabel(instance) + ': pool ' + name + ' could not be read: ' + read.unreadable[name]));
          });
        });
        return h('section', { class: 'wp-application', 'data-application': application.name,
          key: application.name }, [
          h('h3', application.name),
          h('table', { class: 'wp-fleet' }, [
            h('thead', [h('tr', [h('th', 'pool'), h('th', 'instance')].concat(FLEET_FIGURES.map(function (name) {
              return h('th', { class: 'wp-number' }, name);
            })))]),
            h('tbody', rows),
          ]),
          unread.length === 0 ? null : h('ul', { class: 'wp-unread' }, unread.map(function (instance) {
            var read = state.reads[instance.id];
            return h('li', { 'data-instance': instance.id, class: read && read.error ? 'wp-error' : '' },
              instanceLabel(instance) + ': ' + (read && read.error ? read.error : 'loading'));
          })),
          unreadablePools.length === 0 ? null : h('ul', { class: 'wp-unreadable' }, unreadablePools),
        ]);
      }

      return function () {
        var count = instances().length;
        var apps = (props.applications || []).slice().sort(function (a, b) {
          return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
        });
        var status;
        if (count === 0) {
          status = 'No registered instance has the pools endpoint (pool-spring-boot-starter, exposed in '
            + 'management.endpoints.web.exposure.include).';
        }
        else if (!state.updated) {
          status = 'loading';
        }
        else {
          var failing = Object.keys(state.reads).filter(function (id) {
            return state.reads[id].error;
          }).length;
          status = count + ' instance' + (count === 1 ? '' : 's') + ', read every '
            + state.interval / 1000 + ' s; updated '
            + state.updated.toLocaleTimeString()
            + (failing > 0 ? '; ' + failing + ' failing (their last figures are dimmed)' : '');
        }
        return h('div', { class: 'wp-view' }, [
          h('p', { class: 'wp-status', 'data-field': 'status' }, status),
          h('div', { class: 'wp-applications' }, apps.map(renderApplication)),
        ]);
      };
    },
  });

  SBA.use({
    install: function (context) {
      context.viewRegistry.addView({
        name: 'instances/pools',
        parent: 'instances',
        path: 'pools',
        label: 'instances.pools.label',
        group: 'jvm',
        order: 1000,
        component: PoolsView,
        isEnabled: function (scope) {
          return scope.instance.hasEndpoint('pools');
        },
      });
      // The whole fleet's pools, in SBA's top bar.
      context.viewRegistry.addView({
        name: 'workerpool-fleet',
        path: '/pools',
        label: 'workerpool.fleet.label',
        order: 1000,
        component: FleetView,
      });
      if (context.i18n) {
        context.i18n.mergeLocaleMessage('en', { instances: { pools: { label: 'Pools' } },
          workerpool: { fleet: { label: 'Pools' } } });
        context.i18n.mergeLocaleMessage('de', { instances: { pools: { label: 'Pools' } },
          workerpool: { fleet: { label: 'Pools' } } });
        context.i18n.mergeLocaleMessage('zh-CN', { instances: { pools: { label: '线程池' } },
          workerpool: { fleet: { label: '线程池' } } });
      }
    },
  });
})();
