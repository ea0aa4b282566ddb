// Run in a fresh, plain `node` (no tsx, no vitest) as the Lambda runtime would: imports a built
// bundle's index.mjs, calls its `handler` with each API Gateway event of a JSON file in turn, and
// prints one JSON line: how long the import took and each answer with its time (wall and CPU). Plain JavaScript, so
// nothing but Node itself is loaded before the bundle.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [bundleDir, eventsFile] = process.argv.slice(2);
if (bundleDir === undefined || eventsFile === undefined) throw new Error('usage: node bundle-invoke.mjs <bundle folder> <events.json>');
const events = JSON.parse(await readFile(eventsFile, 'utf8'));

/** Milliseconds of CPU this process used (user and system) since `since`: less at the mercy of a busy machine than wall time. */
function cpuMsSince(since) {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

const startedAt = performance.now();
const cpuAtStart = process.cpuUsage();
const { handler } = await import(pathToFileURL(path.join(bundleDir, 'index.mjs')).href);
const importMs = performance.now() - startedAt;
const importCpuMs = cpuMsSince(cpuAtStart);

function lambdaContext() {
  const deadline = Date.now() + 29_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'bundle-invoke',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:bundle-invoke',
    memoryLimitInMB: '1024',
    awsRequestId: crypto.randomUUID(),
    logGroupName: '/aws/lambda/bundle-invoke',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done() {},
    fail() {},
    succeed() {},
  };
}

const results = [];
for (const event of events) {
  const callStartedAt = performance.now();
  const cpuAtCall = process.cpuUsage();
  const result = await handler(event, lambdaContext());
  results.push({
    statusCode: result.statusCode,
    body: result.body,
    isBase64Encoded: result.isBase64Encoded === true,
    ms: performance.now() - callStartedAt,
    cpuMs: cpuMsSince(cpuAtCall),
  });
}
// The handler's logs go to stdout too; the caller reads the last line. A write to a pipe finishes
// later: exiting before it does would cut a large answer (the OpenAPI document) short.
// A Lambda container is frozen, not ended; the pool would keep this process alive, hence the exit.
// When traced, the X-Ray SDK sends the handler's segment over UDP as the call ends: a frozen
// container sends it on thaw, an ended process never, so the exit waits a moment for it.
const settleMs = process.env.AWS_XRAY_DAEMON_ADDRESS === undefined ? 0 : 250;
process.stdout.write(`\n${JSON.stringify({ importMs, importCpuMs, results })}\n`, () => setTimeout(() => process.exit(0), settleMs));
