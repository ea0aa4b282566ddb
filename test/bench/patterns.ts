// Time per value of Table Schema patterns (XML Schema's dialect) on the linear-time engine
// (shared/text/user-patterns.ts) for the patterns of issue 12 and a Unicode-class one at growing value lengths, matching values and near misses, beside V8's
// backtracking RegExp on short values (measured in the same run, stopped before it runs away).
// Linear means the time per character stays flat as the value grows; V8's doubles per character.
import { compileUserPattern } from '#shared/text/user-patterns.ts';
import { fixed, heading, median, note, table } from './report.ts';

interface Case {
  pattern: string;
  matching: (length: number) => string;
  nearMiss: (length: number) => string;
}

const CASES: Case[] = [
  { pattern: '(a+)+$', matching: (n) => 'a'.repeat(n), nearMiss: (n) => `${'a'.repeat(n - 1)}!` },
  { pattern: '(a|aa)+$', matching: (n) => 'a'.repeat(n), nearMiss: (n) => `${'a'.repeat(n - 1)}!` },
  { pattern: '(.*a){20}', matching: (n) => 'a'.repeat(n), nearMiss: (n) => `${'a'.repeat(n - 1)}!` },
  // Unicode classes as XML Schema reads them: \w and \s become category and range classes.
  { pattern: '(\\w+\\s?)+', matching: (n) => 'é'.repeat(n), nearMiss: (n) => `${'é'.repeat(n - 1)}!` },
];
const LENGTHS = [100, 1_000, 10_000, 100_000];
const V8_LENGTHS = [16, 20, 24];
/** Repeat a measurement until this much time has passed, for a stable per-value figure. */
const SAMPLE_MS = 150;

/** Median microseconds per call of `test(value)` over a few samples of repeated calls. */
function microsPerValue(test: (value: string) => boolean, value: string): { micros: number; verdict: boolean } {
  const verdict = test(value);
  const samples: number[] = [];
  for (let sample = 0; sample < 3; sample += 1) {
    let calls = 0;
    const started = performance.now();
    let elapsed = 0;
    do {
      test(value);
      calls += 1;
      elapsed = performance.now() - started;
    } while (elapsed < SAMPLE_MS / 3 && calls < 100_000);
    samples.push((elapsed * 1000) / calls);
  }
  return { micros: median(samples), verdict };
}

export async function benchPatterns(): Promise<void> {
  heading('patterns: time per value of Table Schema patterns (whole-value match) on RE2 (re2js)');
  const rows: string[][] = [];
  for (const c of CASES) {
    const compiled = compileUserPattern(c.pattern, { match: 'whole', dialect: 'xsd' });
    for (const length of LENGTHS) {
      for (const [kind, make] of [
        ['match', c.matching],
        ['near miss', c.nearMiss],
      ] as const) {
        const { micros, verdict } = microsPerValue((value) => compiled.test(value), make(length));
        rows.push([c.pattern, String(length), kind, String(verdict), fixed(micros, 1), fixed((micros * 1000) / length, 1)]);
      }
    }
  }
  table(['pattern', 'chars', 'value', 'matches', 'µs/value', 'ns/char'], rows);

  heading('baseline: V8 RegExp (backtracking) on the same patterns, near misses only, short values');
  const baseline: string[][] = [];
  for (const c of CASES) {
    const regexp = new RegExp(`^(?:${c.pattern})$`, 'u');
    for (const length of V8_LENGTHS) {
      const value = c.nearMiss(length);
      const started = performance.now();
      const verdict = regexp.test(value);
      const ms = performance.now() - started;
      const linear = compileUserPattern(c.pattern, { match: 'whole', dialect: 'xsd' });
      const { micros } = microsPerValue((v) => linear.test(v), value);
      baseline.push([c.pattern, String(length), String(verdict), fixed(ms * 1000, 0), fixed(micros, 1), fixed((ms * 1000) / micros, 0)]);
      // Each step of four characters costs V8 16 times more: stop before a step takes seconds.
      if (ms > 100) break;
    }
  }
  table(['pattern', 'chars', 'matches', 'V8 µs', 'RE2 µs', 'V8 / RE2'], baseline);
  note('V8 doubles per character on these near misses (issue 12: 1.1–1.7 s at 29 characters); RE2 stays linear.');
}
