// middy's handler signal, as patched (patches/@middy+core+*.patch): made only when the handler asks
// for it, since no handler here does and an AbortController with its signal cost every request as
// much as the rest of middy's own work. A handler that asks gets a signal that aborts when the
// function's time runs out, before or after it asked.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const RealAbortController = globalThis.AbortController;
let made = 0;

class CountedAbortController extends RealAbortController {
  constructor() {
    super();
    made += 1;
  }
}

/** A Lambda context with `remainingMs` left, as the dev server's lambdaContext gives one. */
function contextWith(remainingMs: number): Context {
  const deadline = Date.now() + remainingMs;
  return { getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('the signal middy hands a handler', () => {
  beforeEach(() => {
    made = 0;
    globalThis.AbortController = CountedAbortController;
  });
  afterEach(() => {
    globalThis.AbortController = RealAbortController;
  });

  it('is not made for a handler that never asks for it', async () => {
    // Prepare
    const handler = middy(async () => 'answered', { timeoutEarlyInMillis: 500, timeoutEarlyResponse: () => 'out of time' });
    // Act
    const answers = [await handler({}, contextWith(10_000)), await handler({}, contextWith(10_000))];
    // Assess
    expect(answers).toEqual(['answered', 'answered']);
    expect(made).toBe(0);
  });

  it('is a live signal for a handler that asks, left alone when the handler finishes in time', async () => {
    // Prepare
    let seen: AbortSignal | undefined;
    const handler = middy(
      async (_event: unknown, _context: Context, { signal }: { signal: AbortSignal }) => {
        seen = signal;
        return 'answered';
      },
      { timeoutEarlyInMillis: 500, timeoutEarlyResponse: () => 'out of time' },
    );
    // Act
    const answer = await handler({}, contextWith(10_000));
    // Assess
    expect(answer).toBe('answered');
    expect(made).toBe(1);
    expect(seen).toBeInstanceOf(AbortSignal);
    expect(seen!.aborted).toBe(false);
  });

  it('aborts when the time runs out, whether the handler asked before or after', async () => {
    // Prepare: 600 ms left and 500 kept for the answer, so the time is up after about 100 ms
    const signals: { asked: string; signal: AbortSignal }[] = [];
    const slow = (askFirst: boolean) =>
      middy(
        async (_event: unknown, _context: Context, options: { signal: AbortSignal }) => {
          if (askFirst) signals.push({ asked: 'before', signal: options.signal });
          await wait(300);
          if (!askFirst) signals.push({ asked: 'after', signal: options.signal });
          return 'answered';
        },
        { timeoutEarlyInMillis: 500, timeoutEarlyResponse: () => 'out of time' },
      );
    // Act
    const answers = [await slow(true)({}, contextWith(600)), await slow(false)({}, contextWith(600))];
    await wait(350); // the second handler asks only once its wait is over
    // Assess
    expect(answers).toEqual(['out of time', 'out of time']);
    expect(signals.map(({ asked, signal }) => [asked, signal.aborted])).toEqual([
      ['before', true],
      ['after', true],
    ]);
  });
});
