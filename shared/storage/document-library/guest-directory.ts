// People in the library's Microsoft Entra tenant. Sharing needs the recipient to be a directory user;
// someone the tenant does not know is invited as a guest without any mail (`sendInvitationMessage:
// false`), and the call then waits, polling, until the new guest can be resolved, for at most the
// configured wait (about 8 seconds): past it, 503 `guest_invitation_propagation_timeout`, and a retry
// a little later finds the guest.
import { GuestInvitationPropagationTimeoutError } from './document-library-errors.ts';
import type { GraphClient } from './graph-client.ts';

export interface DocumentUser {
  email: string;
  displayName?: string;
}

export interface DirectorySettings {
  guestWaitMs: number;
  guestPollMs: number;
  inviteRedirectUrl: string;
}

interface DirectoryUser {
  id: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An OData string literal: single quotes doubled. */
function odataString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

export class GuestDirectory {
  constructor(
    private readonly graph: GraphClient,
    private readonly settings: DirectorySettings,
  ) {}

  /** The directory user with this address (a member by sign-in name, a guest by mail), if any. */
  async lookup(email: string): Promise<DirectoryUser | undefined> {
    const literal = odataString(email);
    const filter = `mail eq ${literal} or userPrincipalName eq ${literal}`;
    const query = new URLSearchParams({ $filter: filter, $select: 'id,mail,userPrincipalName' });
    const answer = await this.graph.json<{ value: DirectoryUser[] }>('GET', `/users?${query.toString()}`);
    return answer.value[0];
  }

  /** The user, after a silent guest invitation and the wait for it to propagate when they are new. */
  async resolve(user: DocumentUser): Promise<DirectoryUser> {
    const known = await this.lookup(user.email);
    if (known !== undefined) return known;
    await this.graph.json('POST', '/invitations', {
      json: {
        invitedUserEmailAddress: user.email,
        ...(user.displayName === undefined ? {} : { invitedUserDisplayName: user.displayName }),
        inviteRedirectUrl: this.settings.inviteRedirectUrl,
        sendInvitationMessage: false,
      },
    });
    const started = Date.now();
    while (Date.now() - started + this.settings.guestPollMs <= this.settings.guestWaitMs) {
      await sleep(this.settings.guestPollMs);
      const invited = await this.lookup(user.email);
      if (invited !== undefined) return invited;
    }
    throw new GuestInvitationPropagationTimeoutError(Math.max(1, Math.ceil(this.settings.guestWaitMs / 2000)));
  }
}
