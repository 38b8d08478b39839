// receipt.mjs FILE JWKS ISSUER
//
// Verifies an agreement's signed receipt as docs/security.md tells a
// stranger to ("a JWS (RFC 7515, compact, alg EdDSA over Ed25519, header
// typ taasky-receipt+jws, kid)", keys at {BASE_URL}/.well-known/jwks.json),
// with panva's jose and its defaults: the receipt file as downloaded (not
// trimmed), the key set fetched over HTTP with createRemoteJWKSet when
// JWKS is a URL, else read from a JWK Set file (an account's export holds
// one) with createLocalJWKSet, the JWS checked with compactVerify, and again with
// jwtVerify (the payload's iss and typ are JWT claim names) expecting the
// issuer and the header's typ. A copy with one payload byte changed, and
// one with a signature bit flipped, must be refused. Prints
// {"header": ..., "payload": ...} on success; exits non-zero otherwise.
import { readFileSync } from 'node:fs';
import { createRemoteJWKSet, createLocalJWKSet, compactVerify, jwtVerify, decodeProtectedHeader, errors } from 'jose';

const [file, jwks, issuer] = process.argv.slice(2);
const jws = readFileSync(file, 'utf8');
const keys = /^https?:/.test(jwks) ? createRemoteJWKSet(new URL(jwks)) : createLocalJWKSet(JSON.parse(readFileSync(jwks, 'utf8')));

const { payload, protectedHeader } = await compactVerify(jws, keys);
const facts = JSON.parse(new TextDecoder().decode(payload));
const jwt = await jwtVerify(jws, keys, { issuer, typ: 'taasky-receipt+jws' });
if (JSON.stringify(jwt.payload) !== JSON.stringify(facts)) {
  throw new Error('jwtVerify and compactVerify read different payloads');
}

async function refused(name, bad) {
  try {
    await compactVerify(bad, keys);
  } catch (err) {
    if (err instanceof errors.JWSSignatureVerificationFailed) return;
    throw new Error(`${name}: refused for another reason: ${err.code} ${err.message}`);
  }
  throw new Error(`${name}: verified`);
}
const [h, p, s] = jws.split('.');
const changed = Buffer.from(JSON.stringify({ ...facts, subject_hash: 'sha256:' + '0'.repeat(64) })).toString('base64url');
await refused('payload changed', `${h}.${changed}.${s}`);
const sig = Buffer.from(s, 'base64url');
sig[0] ^= 1;
await refused('signature bit flipped', `${h}.${p}.${sig.toString('base64url')}`);

process.stdout.write(JSON.stringify({ header: protectedHeader, decoded: decodeProtectedHeader(jws), payload: facts }) + '\n');
