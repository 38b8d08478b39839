// The official TypeScript MCP SDK connecting to Taasky with only its URL:
// its client OAuth (an OAuthClientProvider, Dynamic Client Registration,
// PKCE, the resource indicator) against a running Taasky. It prints the
// authorization URL ("AUTHORIZE <url>"); the Go test signs the person in
// and consents in Chromium and writes the code the redirect carried on
// stdin; then it calls a tool and prints what it saw, and negotiates: it
// joins the room of the invitation it was given, where the other agent's
// offer is on the table, and approves the offer, which waits for its
// human ("RESPONDED <status> <the hash the confirmation is for>"). Given
// a Client ID Metadata Document's URL, the client uses it as its
// client_id (where the server's metadata says it may) instead of
// registering.
//
//   node connect.mjs <MCP URL> <redirect URL> <invitation URL> [client metadata URL]
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [mcpURL, redirectURL, invite, clientMetadataURL] = process.argv.slice(2);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

const kept = {};
const provider = {
  get redirectUrl() { return redirectURL; },
  clientMetadataUrl: clientMetadataURL,
  get clientMetadata() {
    return {
      client_name: "TypeScript SDK test client",
      redirect_uris: [redirectURL],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  },
  state() { return "ts-state-" + Math.random().toString(36).slice(2); },
  clientInformation() { return kept.client; },
  saveClientInformation(info) { kept.client = info; },
  tokens() { return kept.tokens; },
  saveTokens(tokens) { kept.tokens = tokens; },
  redirectToAuthorization(url) { console.log("AUTHORIZE " + url.href); },
  saveCodeVerifier(v) { kept.verifier = v; },
  codeVerifier() { return kept.verifier; },
};

async function connect() {
  const client = new Client({ name: "taasky-ts-oauth-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(mcpURL), { authProvider: provider });
  try {
    await client.connect(transport);
    return client;
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
    const { value: code } = await lines.next();
    await transport.finishAuth(code.trim());
    const again = new Client({ name: "taasky-ts-oauth-test", version: "1.0.0" });
    await again.connect(new StreamableHTTPClientTransport(new URL(mcpURL), { authProvider: provider }));
    return again;
  }
}

async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) throw new Error(name + ": " + JSON.stringify(res.content));
  return res.structuredContent;
}

const client = await connect();
const { tools } = await client.listTools();
console.log("TOOLS " + tools.length);
await call("negotiation_list", {});
console.log("CALLED negotiation_list");
console.log("REFRESH " + (kept.tokens?.refresh_token ? "yes" : "no"));
const join = await call("negotiation_join", { invite, subject_schema: { place: { type: "string", label: "Where" } } });
const hash = join.room.terms_on_table.options[0].subject_hash;
const res = await call("negotiation_respond", { room_token: join.room_token, verdict: "approve", subject_hash: hash });
console.log("RESPONDED " + res.status + " " + res.room.pending_confirmation?.subject_hash + " " + hash);
await client.close();
process.exit(0);
