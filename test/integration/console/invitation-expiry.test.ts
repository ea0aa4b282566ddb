// Invitation expiry is a rule of the invitation service over its clock port: these tests give the
// service a fake clock set around an invitation's expiry instead of editing rows with SQL. The
// invitation itself is made through the API, on the real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptInvitation, type InvitationServicePorts } from '#functions/console/organizations/invitation-service.ts';
import { effectiveStatus } from '#functions/console/organizations/invitation-representation.ts';
import { ConflictError } from '#shared/errors.ts';
import { startTestApp, type TestApp } from '#test/support/test-app.ts';

describe('invitation expiry on the service clock', () => {
  let app: TestApp;
  let owner: string;
  const invitations = '/api/cloud/organizations/clockwork/invitations/';

  /** The service's ports as the routes build them, with the clock stopped at `instant`. */
  function portsAt(instant: Date): InvitationServicePorts {
    const { config, db, email } = app.runtime;
    return {
      db,
      email,
      now: () => instant,
      consoleUrl: config.consoleUrl,
      ttlDays: config.invitationTtlDays,
      passwordCost: config.passwordScryptCost,
    };
  }

  async function invite(address: string): Promise<{ token: string; expiresAt: Date }> {
    const answer = await app.request('POST', invitations, { token: owner, body: { invitee_identifier: address } });
    expect(answer.status).toBe(201);
    return { token: answer.body.uuid, expiresAt: new Date(answer.body.expires_at) };
  }

  beforeAll(async () => {
    app = await startTestApp();
    await app.createUser('clock-owner');
    owner = await app.tokenOf('clock-owner');
    expect((await app.request('POST', '/api/cloud/organizations/', { token: owner, body: { name: 'Clockwork' } })).status).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses to accept an invitation one second after it expired, naming it expired', async () => {
    const { token, expiresAt } = await invite('late-by-a-second@example.com');

    const accepting = acceptInvitation(portsAt(new Date(expiresAt.getTime() + 1000)), undefined, token, {
      username: 'late-by-a-second',
      password: 'a-long-enough-passphrase-42',
    });

    await expect(accepting).rejects.toBeInstanceOf(ConflictError);
    await expect(accepting).rejects.toMatchObject({ status: 409, extras: { invitation_status: 'expired' } });
  });

  it('accepts an invitation one second before it expires', async () => {
    const { token, expiresAt } = await invite('just-in-time@example.com');

    const accepted = await acceptInvitation(portsAt(new Date(expiresAt.getTime() - 1000)), undefined, token, {
      username: 'just-in-time',
      password: 'a-long-enough-passphrase-42',
    });

    expect(accepted.view.invitation.status).toBe('accepted');
    expect((await app.login('just-in-time', 'a-long-enough-passphrase-42')).access).toEqual(expect.any(String));
  });

  it('reads a pending invitation as expired from the instant of its expiry on', () => {
    const expiresAt = new Date('2026-12-01T12:00:00.000Z');
    const view = { invitation: { status: 'pending', expiresAt } } as Parameters<typeof effectiveStatus>[0];

    expect(effectiveStatus(view, new Date(expiresAt.getTime() - 1))).toBe('pending');
    expect(effectiveStatus(view, expiresAt)).toBe('expired');
    expect(effectiveStatus({ invitation: { ...view.invitation, status: 'cancelled' } } as typeof view, expiresAt)).toBe('cancelled');
  });
});
