// Taasky dashboard: enhancements only. Every page works without this file.
(function () {
  'use strict';

  // Time zone: the browser's, in a cookie for the pages of people without
  // an account, and offered to signed-in users still shown UTC.
  var zone = '';
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (e) { zone = ''; }
  if (zone) {
    var had = document.cookie.split('; ').indexOf('taasky_tz=' + encodeURIComponent(zone)) >= 0;
    document.cookie = 'taasky_tz=' + encodeURIComponent(zone) + '; path=/; max-age=31536000; SameSite=Lax' +
      (location.protocol === 'https:' ? '; Secure' : '');
    var body = document.body;
    if (!had && body.hasAttribute('data-zone-browser') && body.dataset.zone && body.dataset.zone !== zone) {
      location.reload(); // once: the page is then shown in this zone
      return;
    }
    var offer = document.querySelector('[data-zone-offer]');
    if (offer && zone !== 'UTC') {
      offer.elements.time_zone.value = zone;
      offer.elements.next.value = location.pathname + location.search;
      offer.querySelector('[data-zone-name]').textContent = zone;
      offer.hidden = false;
    }
    var hint = document.querySelector('[data-zone-hint]');
    var input = document.querySelector('[data-zone-input]');
    if (hint && input && input.value !== zone) {
      hint.querySelector('[data-zone-name]').textContent = zone;
      hint.hidden = false;
      hint.querySelector('[data-zone-use]').addEventListener('click', function () { input.value = zone; input.focus(); });
    }
  }

  // Countdowns to deadlines, kept current.
  function countdowns() {
    var now = Date.now();
    document.querySelectorAll('[data-countdown]').forEach(function (el) {
      var ms = Date.parse(el.getAttribute('data-countdown')) - now;
      var text;
      if (!(ms > 0)) text = 'passed';
      else if (ms < 3600e3) text = (Math.floor(ms / 60e3) + 1) + ' min left';
      else if (ms < 48 * 3600e3) {
        var m = Math.floor(ms / 60e3);
        text = Math.floor(m / 60) + ' h ' + String(m % 60).padStart(2, '0') + ' min left';
      } else text = Math.floor(ms / 86400e3) + ' days left';
      el.textContent = text;
    });
  }
  setInterval(countdowns, 30e3);

  // Copy buttons.
  document.addEventListener('click', function (ev) {
    var btn = ev.target.closest && ev.target.closest('[data-copy]');
    if (!btn || !navigator.clipboard) return;
    var src = document.getElementById(btn.getAttribute('data-copy'));
    navigator.clipboard.writeText(src.textContent.trim()).then(function () {
      btn.textContent = 'Copied';
      setTimeout(function () { btn.textContent = 'Copy'; }, 2000);
    });
  });

  // Live pages: the server says "change" (PostgreSQL NOTIFY, through any
  // server process); the page fetches itself and swaps its live parts.
  var live = document.body.getAttribute('data-live');
  if (!live || !window.EventSource || !window.fetch || !window.DOMParser) return;
  var pending = null, opened = false;
  function refresh() {
    if (pending) return;
    pending = setTimeout(function () {
      pending = null;
      fetch(location.href, { credentials: 'same-origin', headers: { 'X-Taasky-Live': '1' } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (!html) return;
          var doc = new DOMParser().parseFromString(html, 'text/html');
          document.querySelectorAll('[data-live-part]').forEach(function (el) {
            var fresh = doc.getElementById(el.id);
            if (fresh && !el.contains(document.activeElement)) el.replaceWith(fresh);
          });
          var freshNav = doc.querySelector('.top nav a'), nav = document.querySelector('.top nav a');
          if (freshNav && nav) nav.replaceWith(document.importNode(freshNav, true));
          countdowns();
          document.body.setAttribute('data-refreshed', String(Date.now()));
        })
        .catch(function () {});
    }, 100);
  }
  // Started after "load": a stream opened before it keeps the page loading.
  function listen() {
    var es = new EventSource(live);
    es.addEventListener('open', function () { if (opened) refresh(); opened = true; });
    es.addEventListener('change', refresh);
  }
  if (document.readyState === 'complete') listen();
  else window.addEventListener('load', function () { setTimeout(listen, 0); });
})();
