// An independent MCP client as an agent framework uses one: the Vercel AI SDK's `@ai-sdk/mcp`,
// run from tools/mcp-conformance on the project's Node.js (test/mcp/ai-sdk-client.test.ts starts it).
// Connects over streamable HTTP with a bearer token, lists the tools, reads the example query in
// run_semantic_query's description and runs it through the AI SDK tool an agent would call, then
// prints what the test asserts on as one JSON line.
//
// Usage (after npm run build): node ai-sdk-client.mjs <path of @ai-sdk/mcp's dist/index.js> <MCP URL> <token>
import process from 'node:process';
import { URL, pathToFileURL } from 'node:url';

const [modulePath, url, token] = process.argv.slice(2);
const { createMCPClient } = await import(pathToFileURL(modulePath).href);

// The example is read out of the description by the test suite's own reader, compiled beside the
// tests (the suite runs from dist/): what an agent would copy out of the text.
const { exampleQueryOf } = await import(
  new URL('../../dist/test/support/example-query.js', import.meta.url).href
);

const client = await createMCPClient({
  transport: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } },
  clientName: 'vms-read-ai-sdk-test',
});
try {
  const { tools } = await client.listTools();
  const described = tools.find((t) => t.name === 'run_semantic_query');
  const example = exampleQueryOf(described.description);
  // The AI SDK's own tool objects, as generateText would be given them: execute runs tools/call.
  const sdkTools = await client.tools();
  const result = await sdkTools.run_semantic_query.execute(example, {
    toolCallId: 'call-1',
    messages: [],
  });
  const report = {
    tools: tools.map(({ name, title, description }) => ({ name, title, description })),
    sdkToolNames: Object.keys(sdkTools).sort(),
    example,
    result,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  await client.close();
}
