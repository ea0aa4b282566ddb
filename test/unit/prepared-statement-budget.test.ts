import { describe, expect, it } from 'vitest';
import { PreparedStatementBudget } from '#shared/db/database.ts';

describe('prepared statement budget', () => {
  it('prepares the first texts up to the limit and keeps preparing those', () => {
    const budget = new PreparedStatementBudget(2);
    expect(budget.admit('select 1')).toBe(true);
    expect(budget.admit('select 2')).toBe(true);
    expect(budget.admit('select 3')).toBe(false);
    expect(budget.admit('select 1')).toBe(true);
    expect(budget.admit('select 3')).toBe(false);
  });
});
