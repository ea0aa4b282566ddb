import { readFileSync } from 'node:fs';
import validateAsl from 'asl-validator';
import { describe, expect, it } from 'vitest';

describe('the PRE-event state machine definition', () => {
  it('is a valid ASL document: a Map over the tasks, each a RunFunction task', () => {
    // asl-validator mutates its input: give it a copy read from the file.
    const definition = JSON.parse(readFileSync(new URL('../../infra/state-machines/pre-event.asl.json', import.meta.url), 'utf8'));
    const result = validateAsl(definition);

    expect(result.errorsText()).toBe('');
    expect(result.isValid).toBe(true);
    expect(definition.States.RunSubscribers.Type).toBe('Map');
    expect(Object.keys(definition.States.RunSubscribers.ItemProcessor.States)).toEqual(['RunFunction']);
  });
});
