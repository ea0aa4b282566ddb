// Sequential GET client for the latency benchmarks, run in its own process (plain node, no loader)
// so it never shares an event loop with the servers it measures. Argument: JSON options
// {url, headers, warmup, requests, maxSeconds}. Prints a JSON array of latencies in ms; exits 1 on
// any answer that is not 2xx.
const options = JSON.parse(process.argv[2]);

async function once() {
  const started = performance.now();
  const response = await fetch(options.url, { headers: options.headers });
  await response.arrayBuffer();
  const elapsed = performance.now() - started;
  if (response.status < 200 || response.status > 299) throw new Error(`status ${response.status}`);
  return elapsed;
}

for (let index = 0; index < options.warmup; index += 1) await once();
const latencies = [];
const deadline = performance.now() + options.maxSeconds * 1000;
while (latencies.length < options.requests && performance.now() < deadline) latencies.push(await once());
process.stdout.write(JSON.stringify(latencies));
