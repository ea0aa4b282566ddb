// Which driver failures mean "the database is away for now": they become 503 with Retry-After
// whether they come bare or wrapped (drizzle wraps the driver's error as its cause); statement
// errors of other classes keep their own mapping or stay unmapped. The real connection loss, through
// the HTTP chain, is in test/integration/faults/database-unavailable.test.ts.
import { describe, expect, it } from 'vitest';
import { mapDatabaseError } from '#shared/db/database-errors.ts';
import { AppError } from '#shared/errors.ts';

function driverError(code: string, message = `failure ${code}`): Error {
  return Object.assign(new Error(message), { code });
}

describe('database unavailable', () => {
  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'CONNECTION_CLOSED',
    'CONNECTION_ENDED',
    'CONNECTION_DESTROYED',
    'CONNECT_TIMEOUT',
    '57P01',
    '57P02',
    '57P03',
    '08006',
    '08001',
    '53300',
  ])('maps %s, bare or wrapped, to 503 with Retry-After', (code) => {
    for (const error of [driverError(code), new Error('Failed query: select 1', { cause: driverError(code) })]) {
      const mapped = mapDatabaseError(error);
      expect(mapped).toBeInstanceOf(AppError);
      expect(mapped).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '2' } });
    }
  });

  it('leaves a statement timeout a 504 and an unknown failure unmapped', () => {
    expect(mapDatabaseError(driverError('57014'))).toMatchObject({ status: 504 });
    const syntax = driverError('42601');
    expect(mapDatabaseError(syntax)).toBe(syntax);
    const unknown = driverError('EWHATEVER');
    expect(mapDatabaseError(unknown)).toBe(unknown);
  });
});
