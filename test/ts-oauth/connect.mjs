// The official TypeScript MCP SDK connecting to Taasky with only its URL:
// its client OAuth (an OAuthClientProvider, Dynamic Client Registration,
// PKCE, the resource indicator) against a running Taasky. It prints the
// authorization URL ("AUTHORIZE <url>"); the Go test signs the person in
// and consents in Chromium and writes the code the redirect carried on
// stdin; then it calls a tool and prints what it saw. Given a Client ID
// Metadata Document's URL, the client uses it as its client_id (where the
// server's metadata says it may) instead of registering.
//
//   node connect.mjs <MCP URL> <redirect URL> [client metadata URL]
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [mcpURL, redirectURL, clientMetadataURL] = process.argv.slice(2);
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

const client = await connect();
const { tools } = await client.listTools();
console.log("TOOLS " + tools.length);
const res = await client.callTool({ name: "negotiation_list", arguments: {} });
if (res.isError) throw new Error("negotiation_list: " + JSON.stringify(res.content));
console.log("CALLED negotiation_list");
console.log("REFRESH " + (kept.tokens?.refresh_token ? "yes" : "no"));
await client.close();
process.exit(0);
