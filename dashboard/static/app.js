// Taasky dashboard: enhancements only. Every page works without this file.
(function () {
  'use strict';

  // Time zone: the browser's. A person without an account whose page asks
  // for it tells it once (a form posted in the background; the server keeps
  // it in an HttpOnly cookie) and sees the page again in it. A signed-in
  // user still shown UTC is offered it; the settings' picker can take it.
  var zone = '';
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (e) { zone = ''; }
  if (zone) {
    var tell = document.querySelector('[data-zone-tell]');
    if (tell && window.fetch && zone !== document.body.dataset.zone) {
      tell.elements.time_zone.value = zone;
      fetch(tell.action, { method: 'POST', body: new FormData(tell), credentials: 'same-origin' })
        .then(function (r) { if (r.ok) location.reload(); });
    }
    var offer = document.querySelector('[data-zone-offer]');
    if (offer && zone !== 'UTC') {
      offer.elements.time_zone.value = zone;
      offer.elements.next.value = location.pathname + location.search;
      offer.querySelector('[data-zone-name]').textContent = zone;
      offer.hidden = false;
    }
    var hint = document.querySelector('[data-zone-hint]');
    var select = document.querySelector('[data-zone-select]#tz');
    if (hint && select && select.value !== zone) {
      hint.querySelector('[data-zone-name]').textContent = zone;
      hint.hidden = false;
      hint.querySelector('[data-zone-use]').addEventListener('click', function () { select.value = zone; select.focus(); });
    }
  }

  // The time-zone picker's search: typing a zone's name (any part of it,
  // from the list) selects it in the <select>, which works without this.
  var filter = document.querySelector('[data-zone-filter]');
  if (filter) {
    var picker = document.getElementById('tz');
    filter.hidden = false;
    filter.addEventListener('input', function () {
      var q = filter.value.trim().toLowerCase();
      if (!q) return;
      for (var i = 0; i < picker.options.length; i++) {
        if (picker.options[i].value.toLowerCase() === q || picker.options[i].value.toLowerCase().indexOf(q) >= 0) {
          picker.selectedIndex = i;
          return;
        }
      }
    });
  }

  // Countdowns to deadlines, kept current, in the page's words.
  var left = {};
  try { left = JSON.parse(document.body.dataset.left || '{}'); } catch (e) { left = {}; }
  function countdowns() {
    if (!left.minutes) return;
    var now = Date.now();
    document.querySelectorAll('[data-countdown]').forEach(function (el) {
      var ms = Date.parse(el.getAttribute('data-countdown')) - now;
      var text;
      if (!(ms > 0)) text = left.passed;
      else if (ms < 3600e3) text = left.minutes.replace('909', String(Math.floor(ms / 60e3) + 1));
      else if (ms < 48 * 3600e3) {
        var m = Math.floor(ms / 60e3);
        text = left.hours.replace('909', String(Math.floor(m / 60))).replace('808', String(m % 60).padStart(2, '0'));
      } else {
        var d = Math.floor(ms / 86400e3);
        text = d === 1 ? left.day : left.days.replace('909', String(d));
      }
      el.textContent = text;
    });
  }
  setInterval(countdowns, 30e3);

  // The page's polite live region says what changed or was done; a
  // screen reader reads it when the person pauses, and the focus stays
  // where it is.
  var sayBox = document.querySelector('[data-live-say]');
  function say(what) {
    if (!sayBox || !what) return;
    var words = sayBox.getAttribute('data-' + what) || '';
    sayBox.textContent = sayBox.textContent === words ? words + '\u00a0' : words; // said again when it changes again
  }

  // Copy buttons: shown only where the browser lets a page copy (a
  // script and the clipboard: over http it has none), else the text to
  // copy stands alone and no button does nothing.
  if (navigator.clipboard) {
    document.querySelectorAll('[data-copy]').forEach(function (btn) { btn.hidden = false; });
  }
  document.addEventListener('click', function (ev) {
    var btn = ev.target.closest && ev.target.closest('[data-copy]');
    if (!btn || !navigator.clipboard) return;
    var src = document.getElementById(btn.getAttribute('data-copy'));
    navigator.clipboard.writeText(src.textContent.trim()).then(function () {
      var was = btn.textContent;
      btn.textContent = document.body.dataset.copied || was;
      say('copied'); // a button named by aria-label does not read its new text
      setTimeout(function () { btn.textContent = was; }, 2000);
    });
  });

  // Web Push (settings): only a script can subscribe a browser, so this is
  // the one setting that needs JavaScript. The browser's subscription is
  // posted as a form (with the page's CSRF token); the server keeps it.
  var pushBox = document.querySelector('[data-push]');
  if (pushBox) setupPush(pushBox);

  function setupPush(box) {
    var state = box.querySelector('[data-push-state]');
    var say = box.dataset; // the page's words: data-w-*
    if (!('serviceWorker' in navigator) || !('PushManager' in window) || !window.fetch || !window.isSecureContext) {
      state.textContent = window.isSecureContext ? say.wUnsupported : say.wNeedsHttps;
      return;
    }
    var key = box.getAttribute('data-push-key');
    var csrf = box.querySelector('[data-push-form] input[name="_csrf"]').value;
    var on = box.querySelector('[data-push-subscribe]'), off = box.querySelector('[data-push-unsubscribe]');
    var known = {};
    document.querySelectorAll('[data-endpoint]').forEach(function (li) { known[li.getAttribute('data-endpoint')] = li; });

    function post(path, fields) {
      var body = new URLSearchParams(fields);
      body.set('_csrf', csrf);
      return fetch(path, { method: 'POST', body: body, credentials: 'same-origin' }).then(function (r) {
        if (r.ok && r.redirected) { location.assign(r.url); return; }
        return r.text().then(function (html) {
          var err = new DOMParser().parseFromString(html, 'text/html').querySelector('.error');
          throw new Error(err ? err.textContent : say.wServer.replace('{status}', r.status));
        });
      });
    }
    function show(sub) {
      var mine = sub && known[sub.endpoint];
      box.querySelector('[data-push-controls]').hidden = false;
      on.hidden = !!mine;
      off.hidden = !mine;
      if (mine) state.textContent = say.wOn;
      else if (Notification.permission === 'denied') state.textContent = say.wBlocked;
      else state.textContent = say.wOff;
      Object.keys(known).forEach(function (ep) {
        var mark = known[ep].querySelector('[data-this-device]');
        if (mark) mark.hidden = !(mine && ep === sub.endpoint);
      });
    }
    function fail(err) { state.textContent = say.wFailed + ' ' + ((err && err.message) || err); }
    function keyBytes() {
      var s = key.replace(/-/g, '+').replace(/_/g, '/');
      while (s.length % 4) s += '=';
      var raw = atob(s), out = new Uint8Array(raw.length);
      for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
      return out;
    }
    function subscribe(reg) {
      var opts = { userVisibleOnly: true, applicationServerKey: keyBytes() };
      return reg.pushManager.subscribe(opts).catch(function () {
        // Subscribed before with another server key: start again.
        return reg.pushManager.getSubscription().then(function (old) {
          return (old ? old.unsubscribe() : Promise.resolve()).then(function () { return reg.pushManager.subscribe(opts); });
        });
      });
    }
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(function (reg) {
      return reg.pushManager.getSubscription().then(function (sub) {
        show(sub);
        on.addEventListener('click', function () {
          on.disabled = true;
          Notification.requestPermission().then(function (p) {
            if (p !== 'granted') throw new Error(say.wNotAllowed);
            return subscribe(reg);
          }).then(function (sub) {
            var j = sub.toJSON();
            return post('/settings/push', { endpoint: j.endpoint, p256dh: j.keys.p256dh, auth: j.keys.auth, device: deviceName(say) });
          }).catch(fail).then(function () { on.disabled = false; });
        });
        off.addEventListener('click', function () {
          off.disabled = true;
          reg.pushManager.getSubscription().then(function (sub) {
            if (!sub) return show(null);
            var endpoint = sub.endpoint;
            return sub.unsubscribe().then(function () { return post('/settings/push/remove', { endpoint: endpoint }); });
          }).catch(fail).then(function () { off.disabled = false; });
        });
      });
    }).catch(fail);
  }

  // deviceName names this browser in the page's words (say: its data-w-*),
  // as Settings lists it: "Firefox on Android"; "" when nothing is known
  // (the list says "A browser" in its reader's words).
  function deviceName(say) {
    var ua = navigator.userAgent;
    var b = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /Chrom(e|ium)\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : '';
    var os = /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /Mac OS X/.test(ua) ? 'macOS' :
      /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : '';
    if (!os) return b;
    return say.wDevice.replace('{browser}', b || say.wABrowser).replace('{os}', os);
  }

  // Live pages: the server says "change" (PostgreSQL NOTIFY, through any
  // server process); the page fetches itself and swaps its live parts.
  var live = document.body.getAttribute('data-live');
  // A page that answers a form (a refusal at a POST-only path) names its
  // own address: shown in the address bar, it is what the live updates
  // fetch and what a reload shows (the form is not sent again).
  var livePage = document.body.getAttribute('data-live-page');
  if (live && livePage && window.history && history.replaceState) history.replaceState(null, '', livePage);
  if (!live || !window.EventSource || !window.fetch || !window.DOMParser) return;
  var pending = null, opened = false, gone = false;
  // A part holds a person's work when a field differs from the page's.
  function edited(part) {
    if (part.querySelector('form[data-typed]')) return true; // values sent and refused, with their errors
    var fields = part.querySelectorAll('input, textarea, select');
    for (var i = 0; i < fields.length; i++) {
      var f = fields[i];
      if (f.type === 'hidden') continue;
      if (f.type === 'checkbox' || f.type === 'radio') { if (f.checked !== f.defaultChecked) return true; continue; }
      if (f.tagName === 'SELECT') {
        for (var j = 0; j < f.options.length; j++) if (f.options[j].selected !== f.options[j].defaultSelected) return true;
        continue;
      }
      if (f.value !== f.defaultValue) return true;
    }
    return false;
  }
  // One fetch at a time: a change heard while one is on its way fetches
  // again once it is in, so an older page never lands after a newer one.
  var inflight = false, again = false;
  function refresh() {
    if (gone) return;
    if (inflight) { again = true; document.documentElement.dataset.liveAgain = '1'; return; }
    if (pending) return;
    pending = setTimeout(function () {
      pending = null;
      inflight = true;
      fetch(location.href, { credentials: 'same-origin', headers: { 'X-Taasky-Live': '1' } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (!html || gone) return;
          var doc = new DOMParser().parseFromString(html, 'text/html');
          var swapped = false, kept = false;
          document.querySelectorAll('[data-live-part]').forEach(function (el) {
            var fresh = doc.getElementById(el.id);
            if (!fresh || fresh.innerHTML === el.innerHTML) return;
            // Never take the focus or what a person typed: such a part
            // stays, and the person is told the page changed.
            if (el.contains(document.activeElement) || edited(el)) { kept = true; return; }
            el.replaceWith(fresh);
            swapped = true;
          });
          say(kept ? 'kept' : swapped ? 'updated' : '');
          // A refusal's "Error:" title goes with its error, once swapped.
          if (swapped && !kept && doc.title) document.title = doc.title;
          var freshNav = doc.querySelector('.top nav a'), nav = document.querySelector('.top nav a');
          // The link's count only: the link itself stays, with the focus if it has it.
          if (freshNav && nav && nav.innerHTML !== freshNav.innerHTML) nav.innerHTML = freshNav.innerHTML;
          countdowns();
          document.body.setAttribute('data-refreshed', String(Date.now()));
        })
        .catch(function () {})
        .then(function () {
          inflight = false;
          if (again) { again = false; refresh(); }
        });
    }, 100);
  }
  // A stream the server refused (a person, or a personal link, may hold 20 at once, 429; or
  // signed out) is closed for good by EventSource: the page stays as it
  // is, without live updates, and asks again after a minute, then less
  // often (at most every 10 minutes). It refreshes itself when heard again.
  var wait = 60e3;
  // Started after "load": a stream opened before it keeps the page loading.
  function listen() {
    var es = new EventSource(live);
    es.addEventListener('open', function () {
      if (opened) refresh();
      opened = true;
      wait = 60e3;
      document.documentElement.dataset.live = 'open'; // the stream is heard from now on
    });
    es.addEventListener('change', refresh);
    // The person lost what the page shows (removed, signed out: the
    // server's words, in their language): the page says so and what to
    // do, hides what it showed, and listens no more.
    es.addEventListener('gone', function (ev) {
      es.close();
      var why;
      try { why = JSON.parse(ev.data); } catch (e) { return; }
      gone = true;
      document.documentElement.dataset.live = 'gone';
      document.querySelectorAll('[data-live-part]').forEach(function (el) { el.hidden = true; });
      var box = document.createElement('p');
      box.className = 'error';
      box.setAttribute('role', 'alert');
      box.setAttribute('data-live-gone', why.why);
      box.textContent = why.say + ' ';
      var link = document.createElement('a');
      link.href = why.link;
      link.textContent = why.label;
      box.appendChild(link);
      var main = document.querySelector('main') || document.body;
      main.insertBefore(box, main.firstChild);
    });
    function later() {
      opened = true; // what changed meanwhile is fetched once heard again
      document.documentElement.dataset.live = 'closed';
      setTimeout(listen, wait);
      wait = Math.min(wait * 2, 600e3);
    }
    es.addEventListener('error', function () {
      if (es.readyState !== EventSource.CLOSED) return; // EventSource reconnects by itself
      later();
    });
    // A newer page of the same person (or personal link), past the 20
    // streams they may hold, took this one's place: the stream ends, and
    // the page is not heard until it asks again, in a minute.
    es.addEventListener('evicted', function () {
      es.close();
      later();
    });
  }
  if (document.readyState === 'complete') listen();
  else window.addEventListener('load', function () { setTimeout(listen, 0); });
})();
