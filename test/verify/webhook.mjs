// webhook.mjs < {"secrets": {"name": "whsec_…", …}, "deliveries": [{"headers": {…}, "body": "<base64>"}]}
//
// Verifies webhook deliveries as docs/webhooks.md tells a Node receiver
// to: `new Webhook(secret).verify(body, headers)` with the official
// standardwebhooks package, the body as the bytes received and the headers
// as Node's http server gives them (req.headers: lower-case names), and
// again as a Fetch API handler has them (a Request's text(), and
// Object.fromEntries(request.headers), as the doc says). Each delivery is
// tried with every secret; then, with each secret that verified it, the
// same delivery with one body byte changed, with its timestamp one second
// later, and with its timestamp ten minutes earlier, each of which must be
// refused. Prints one line per delivery: {"id", "type", "verified_by":
// [names], "fetch_verified_by": [names], "refused": {...}}.
import { readFileSync } from 'node:fs';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

const input = JSON.parse(readFileSync(0, 'utf8'));
for (const d of input.deliveries) {
  const body = Buffer.from(d.body, 'base64');
  const verifiedBy = [];
  const fetchVerifiedBy = [];
  const refused = {};
  let type = '';
  for (const [name, secret] of Object.entries(input.secrets)) {
    const wh = new Webhook(secret);
    let payload;
    try {
      payload = wh.verify(body, d.headers);
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      continue;
    }
    verifiedBy.push(name);
    const request = new Request('http://127.0.0.1/hooks', { method: 'POST', headers: d.headers, body });
    try {
      wh.verify(await request.text(), Object.fromEntries(request.headers));
      fetchVerifiedBy.push(name);
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
    }
    type = payload.type;
    const tampered = Buffer.from(body);
    tampered[tampered.indexOf('"seq":') + 6] ^= 1; // a digit becomes another
    const ts = Number(d.headers['webhook-timestamp']);
    for (const [what, b, h] of [
      ['body', tampered, d.headers],
      ['timestamp', body, { ...d.headers, 'webhook-timestamp': String(ts + 1) }],
      ['stale', body, { ...d.headers, 'webhook-timestamp': String(ts - 600) }],
    ]) {
      try {
        wh.verify(b, h);
        refused[what] = false;
      } catch (err) {
        if (!(err instanceof WebhookVerificationError)) throw err;
        refused[what] = refused[what] ?? true;
      }
    }
  }
  process.stdout.write(JSON.stringify({ id: d.headers['webhook-id'], type, verified_by: verifiedBy, fetch_verified_by: fetchVerifiedBy, refused }) + '\n');
}
