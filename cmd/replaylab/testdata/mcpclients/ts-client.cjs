// ts-client.cjs drives `replaylab mcp` over stdio with the official
// TypeScript SDK's Client, the way agent hosts embed it: tools/list first
// (the SDK then checks every structuredContent against the tool's output
// schema), then the calls of a plan, one JSON object per line on stdout.
//
//   node ts-client.cjs PLAN.json -- COMMAND ARGS...
//
// The SDK is loaded from $REPLAYLAB_NPM/node_modules (installed outside
// the Go module by .ci/run). Each call prints
// {"step":N,"tool":...,"isError":bool,"code":"…","structured":bool,
// "jsonText":bool} or
// {"step":N,"tool":...,"thrown":"…"} when the SDK threw (a schema check
// or a timeout): what the model would get.
const path = require('path');
const fs = require('fs');
const npm = process.env.REPLAYLAB_NPM;
const sdk = (p) => require(path.join(npm, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'cjs', p));
const { Client } = sdk('client/index.js');
const { StdioClientTransport } = sdk('client/stdio.js');

async function main() {
  const argv = process.argv.slice(2);
  const sep = argv.indexOf('--');
  const plan = JSON.parse(fs.readFileSync(argv[0], 'utf8'));
  const [command, ...args] = argv.slice(sep + 1);
  const transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: 'inherit' });
  const client = new Client({ name: 'replaylab-ts-test', version: '0' });
  await client.connect(transport);
  const tools = await client.listTools();
  console.log(JSON.stringify({ tools: tools.tools.map((t) => t.name) }));
  const vars = {};
  let step = 0;
  for (const call of plan) {
    step++;
    let text = JSON.stringify(call.arguments || {});
    for (const [k, v] of Object.entries(vars)) text = text.split('$' + k).join(v);
    const params = { name: call.tool, arguments: JSON.parse(text) };
    const options = {};
    let progress = 0;
    if (call.timeoutMs) options.timeout = call.timeoutMs;
    if (call.resetTimeoutOnProgress) options.resetTimeoutOnProgress = true;
    if (call.progress) options.onprogress = () => { progress++; };
    const out = { step, tool: call.tool };
    try {
      const res = await client.callTool(params, undefined, options);
      out.isError = !!res.isError;
      out.structured = res.structuredContent !== undefined;
      const body = res.content && res.content[0] && res.content[0].text;
      try { out.jsonText = typeof JSON.parse(body) === 'object'; } catch (e) { out.jsonText = false; }
      if (res.isError) {
        try { out.code = JSON.parse(body).code; } catch (e) { out.code = 'UNREADABLE: ' + body; }
      } else {
        out.code = 'ok';
        if (call.keep) {
          for (const [name, field] of Object.entries(call.keep)) vars[name] = String(res.structuredContent[field]);
        }
      }
    } catch (e) {
      out.thrown = String(e && e.message || e);
    }
    if (call.progress) out.progress = progress;
    console.log(JSON.stringify(out));
  }
  await client.close();
}

main().catch((e) => { console.error(e); process.exit(1); });
