// What `npm start` runs (package.json's start script: node, its flags and the entry), for the tests
// and benchmarks that start the dev server in a process of their own: the same loader and heap
// settings, with node itself as the child so that a signal sent to it reaches the server.
import { readFileSync } from 'node:fs';

/** node's arguments in the start script, the entry last; paths are relative to the project root. */
export function startScriptNodeArgs(): string[] {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } };
  const [command, ...args] = scripts.start.trim().split(/\s+/);
  if (command !== 'node') throw new Error(`package.json's start script runs ${command}, not node`);
  return args;
}
