import { describe, expect, it } from 'vitest';
import { jsonNestingDepth, MAX_JSON_DEPTH, parseJsonText } from '#shared/http/json-body.ts';

describe('JSON depth limit', () => {
  it('counts arrays and objects inside one another, the outermost as one', () => {
    expect(jsonNestingDepth('1')).toBe(0);
    expect(jsonNestingDepth('{}')).toBe(1);
    expect(jsonNestingDepth('{"a":[{"b":[]}],"c":{}}')).toBe(4);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(jsonNestingDepth('{"a":"[[[{{{"}')).toBe(1);
    expect(jsonNestingDepth('["\\"[[[", "\\\\", [1]]')).toBe(2);
  });

  it('stops counting once past the limit it is given', () => {
    expect(jsonNestingDepth('['.repeat(100_000), MAX_JSON_DEPTH)).toBe(MAX_JSON_DEPTH + 1);
  });

  it('parses up to the limit and refuses one level more with 400', () => {
    const at = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
    expect(() => parseJsonText(at)).not.toThrow();
    expect(() => parseJsonText(`[${at}]`)).toThrow(expect.objectContaining({ status: 400, code: 'BAD_REQUEST' }));
    expect(() => parseJsonText('{"a":')).toThrow(expect.objectContaining({ status: 400 }));
  });
});
