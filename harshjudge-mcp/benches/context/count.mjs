// Bytes and o200k tokens (gpt-tokenizer, offline) of what task.py captured.
// usage: node count.mjs <task.json>...   prints one JSON line per file.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(process.env.TOKENIZER_FROM + '/');
const { encode } = require('gpt-tokenizer/encoding/o200k_base');
const tok = (s) => encode(s).length;
const bytes = (s) => Buffer.byteLength(s, 'utf8');
for (const file of process.argv.slice(2)) {
  const t = JSON.parse(readFileSync(file, 'utf8'));
  const start = t.initialize + t.tools_list;
  const calls = t.calls.map((c) => ({
    tool: c.tool,
    argsTokens: tok(c.args),
    resultBytes: bytes(c.result),
    resultTokens: tok(c.result),
    textTokens: tok(c.text),
  }));
  const sum = (k) => calls.reduce((a, c) => a + c[k], 0);
  const toolsList = JSON.parse(t.tools_list).tools;
  const noOutput = JSON.stringify({ tools: toolsList.map(({ outputSchema, ...rest }) => rest) });
  console.log(JSON.stringify({
    server: t.server,
    tools: t.tools,
    startBytes: bytes(start),
    startTokens: tok(start),
    toolsListNoOutputSchemaTokens: tok(noOutput),
    calls: calls.length,
    argsTokens: sum('argsTokens'),
    resultBytes: sum('resultBytes'),
    resultTokens: sum('resultTokens'),
    resultTextTokens: sum('textTokens'),
    wholeTaskTokens: tok(start) + sum('argsTokens') + sum('resultTokens'),
    perCall: calls,
  }));
}
