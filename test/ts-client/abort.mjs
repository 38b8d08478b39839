// An agent that gives up on a waiting read: the official TypeScript MCP
// SDK calls negotiation_read with wait_seconds, and aborts the call
// (AbortSignal) when the Go test that runs it (mcpserver/gone_test.go)
// writes a line, once it saw the read wait. It prints how the call ended.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import readline from "node:readline";

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const client = new Client({ name: "ts-agent-abort", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.env.MCP_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.KEY}` } },
}));
const abort = new AbortController();
const read = client.callTool({ name: "negotiation_read", arguments: { room_token: process.env.ROOM_TOKEN, wait_seconds: 25 } },
  undefined, { signal: abort.signal });
process.stdout.write("waiting\n");
await lines.next();
abort.abort();
try {
  await read;
  process.stdout.write("answered\n");
} catch (e) {
  process.stdout.write("aborted\n");
}
process.exit(0);
