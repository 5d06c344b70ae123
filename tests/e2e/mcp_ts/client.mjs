// The official TypeScript MCP SDK's client against a server: `node client.mjs http URL` or
// `node client.mjs stdio COMMAND [ARGS...]`. Prints one JSON object with what the server answered.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [mode, target, ...args] = process.argv.slice(2);
const transport = mode === "http"
  ? new StreamableHTTPClientTransport(new URL(target))
  : new StdioClientTransport({ command: target, args });
const client = new Client({ name: "slipstream-ts-interop", version: "1.0.0" });
await client.connect(transport);

const out = {};
out.server = client.getServerVersion();
out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
out.add = await client.callTool({ name: "add", arguments: { a: 1.5, b: 2 } });
out.invalid = await client.callTool({ name: "add", arguments: { a: "x", b: 2 } });
const progress = [];
out.slow = await client.callTool({ name: "slow", arguments: { ms: 30, steps: 3 } }, undefined, {
  onprogress: (p) => progress.push(p.progress),
});
out.progress = progress;
out.resources = (await client.listResources()).resources.map((r) => r.uri);
out.greeting = await client.readResource({ uri: "greeting://Ada" });
out.prompt = await client.getPrompt({ name: "review", arguments: { code: "x = 1" } });
await client.close();
console.log(JSON.stringify(out));
