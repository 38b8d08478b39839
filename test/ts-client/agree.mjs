// An independent client: the official TypeScript MCP SDK calls every tool
// of a Taasky server, and validates every structured result against the
// tool's output schema (callTool does, and throws on a mismatch). The Go
// test that runs it (mcpserver/tsclient_test.go) plays both humans:
// whenever this script prints {"confirm": ...} it answers the confirmation
// and writes a line.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import readline from "node:readline";

const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");

async function connect(url, key, name) {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  }));
  return client;
}

const called = new Set();
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) throw new Error(`${name}: ${res.content[0].text}`);
  if (!res.structuredContent) throw new Error(`${name}: no structured content`);
  called.add(name);
  return res.structuredContent;
}

async function confirmedByHuman(side, roomToken, res) {
  if (res.status !== "waiting_for_your_human") throw new Error(`status ${res.status}`);
  const c = res.room.pending_confirmation;
  say({ confirm: side, room_token: roomToken, id: c.id, subject_hash: c.subject_hash ?? "" });
  await lines.next();
}

const a = await connect(process.env.MCP_URL_A, process.env.KEY_A, "ts-agent-a");
const b = await connect(process.env.MCP_URL_B, process.env.KEY_B, "ts-agent-b");
const tools = await a.listTools();
if (tools.tools.length !== 7) throw new Error(`${tools.tools.length} tools`);
// Each client validates results only against the schemas it listed.
await b.listTools();

const schema = { meeting_time: { type: "timerange", label: "Meeting time" }, place: { type: "enum", label: "Where", values: ["office", "video"] } };
const open = await call(a, "negotiation_open", { subject_schema: schema, title: "Kick-off" });
const join = await call(b, "negotiation_join", { invite: open.invite_url, subject_schema: schema });
await call(a, "negotiation_propose", {
  room_token: open.room_token, verdict: "offer",
  subject: { meeting_time: { start: "2026-12-03T10:00:00+01:00", end: "2026-12-03T10:30:00+01:00" }, place: "video" },
});
const readB = (await call(b, "negotiation_read", { room_token: join.room_token, wait_seconds: 5 })).room;
const hash = readB.terms_on_table.options[0].subject_hash;
await confirmedByHuman("b", join.room_token, await call(b, "negotiation_respond", { room_token: join.room_token, verdict: "approve", subject_hash: hash }));
await confirmedByHuman("a", open.room_token, await call(a, "negotiation_respond", { room_token: open.room_token, verdict: "approve", subject_hash: hash }));
const end = (await call(a, "negotiation_read", { room_token: open.room_token, history: true })).room;
await call(a, "negotiation_list", {});
await call(b, "negotiation_list", { room_tokens: [join.room_token] });
// A second room, withdrawn: cancel.
const other = await call(a, "negotiation_open", { slots: [{ start: "2026-12-04T10:00:00Z", end: "2026-12-04T11:00:00Z" }, { start: "2026-12-05T10:00:00Z", end: "2026-12-05T11:00:00Z" }] });
await confirmedByHuman("a", other.room_token, await call(a, "negotiation_cancel", { room_token: other.room_token }));
const every = tools.tools.map((t) => t.name).filter((n) => !called.has(n));
if (every.length > 0) throw new Error(`not called: ${every}`);
say({ state: end.state, subject_hash: end.approvals.you });
await a.close();
await b.close();
process.exit(0);
