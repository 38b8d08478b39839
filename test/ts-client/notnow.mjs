// What the official TypeScript MCP SDK gives its caller (the model) when
// Taasky does not take a call now: run by mcpserver/notnow_test.go. It
// connects with MCP_URL and KEY, prints {"connected": true}, waits for a
// line (meanwhile the test uses up the agent's rate limit or cuts the
// database), calls negotiation_list once and prints what came back: the
// tool result ({"isError", "texts", "meta"}) or what was thrown ({"thrown"}).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import readline from "node:readline";

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");

const client = new Client({ name: "ts-agent-notnow", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.KEY}` } },
}));
say({ connected: true });
await lines.next();
try {
  const res = await client.callTool({ name: "negotiation_list", arguments: {} });
  say({ isError: !!res.isError, texts: (res.content ?? []).map((c) => c.text), meta: res._meta });
} catch (e) {
  say({ thrown: String(e.message) });
}
process.exit(0);
