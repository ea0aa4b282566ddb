// What the Graph stand-in remembers: SharePoint sites with their drives and items, sharing
// permissions, directory users and guest invitations. Plain data the tests can read to assert what
// was stored, and granted to whom.
import { randomUUID } from 'node:crypto';

export interface StandInItem {
  id: string;
  driveId: string;
  /** Decoded path from the drive root: `/folder/file.docx`; the root is `/`. */
  path: string;
  folder: boolean;
  bytes: Buffer;
  version: number;
  lastModified: Date;
  /** Secret part of the item's pre-authenticated download URL. */
  downloadToken: string;
}

export interface StandInSite {
  id: string;
  hostname: string;
  /** Server-relative path, decoded: `/sites/tessera-acme`. */
  path: string;
  driveId?: string;
}

export interface StandInPermission {
  id: string;
  itemId: string;
  itemPath: string;
  roles: string[];
  /** An anonymous sharing link, or a grant to one person. */
  link?: { type: string; scope: string; webUrl: string };
  email?: string;
  requireSignIn?: boolean;
  sendInvitation?: boolean;
}

export interface StandInUser {
  id: string;
  email: string;
  userType: 'Member' | 'Guest';
  /** Directory look-ups still to come before the user can be resolved (guest propagation). */
  hiddenForLookups: number;
}

export interface StandInInvitation {
  id: string;
  invitedUserEmailAddress: string;
  sendInvitationMessage: unknown;
  inviteRedirectUrl: unknown;
  invitedUserId: string;
}

const MIME_BY_EXTENSION: Record<string, string> = {
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  pdf: 'application/pdf',
  txt: 'text/plain',
};

export class StandInState {
  readonly sites: StandInSite[] = [];
  readonly items = new Map<string, StandInItem>();
  readonly permissions: StandInPermission[] = [];
  readonly users: StandInUser[] = [];
  readonly invitations: StandInInvitation[] = [];

  constructor(private readonly baseUrl: string) {}

  addSite(hostname: string, path: string, withDrive: boolean): StandInSite {
    const site: StandInSite = { id: `${hostname},${randomUUID()},${randomUUID()}`, hostname, path };
    this.sites.push(site);
    if (withDrive) this.addDrive(site);
    return site;
  }

  addDrive(site: StandInSite): void {
    site.driveId = `b!${randomUUID().replaceAll('-', '')}`;
    this.putItem(site.driveId, '/', { folder: true });
  }

  itemAt(driveId: string, path: string): StandInItem | undefined {
    return [...this.items.values()].find((item) => item.driveId === driveId && item.path === path);
  }

  /** Stores a file or folder at a path, creating missing parent folders as Graph does on upload. */
  putItem(driveId: string, path: string, content: { folder: true } | { bytes: Buffer }): { item: StandInItem; created: boolean } {
    if (path !== '/') {
      const parent = path.slice(0, path.lastIndexOf('/')) || '/';
      if (this.itemAt(driveId, parent) === undefined) this.putItem(driveId, parent, { folder: true });
    }
    const existing = this.itemAt(driveId, path);
    if (existing !== undefined) {
      if ('bytes' in content) {
        existing.bytes = content.bytes;
        existing.version += 1;
        existing.lastModified = new Date();
      }
      return { item: existing, created: false };
    }
    const item: StandInItem = {
      id: randomUUID().toUpperCase(),
      driveId,
      path,
      folder: 'folder' in content,
      bytes: 'bytes' in content ? content.bytes : Buffer.alloc(0),
      version: 1,
      lastModified: new Date(),
      downloadToken: randomUUID(),
    };
    this.items.set(item.id, item);
    return { item, created: true };
  }

  removeItem(item: StandInItem): void {
    for (const other of [...this.items.values()]) {
      if (other.driveId === item.driveId && (other.path === item.path || other.path.startsWith(`${item.path}/`)))
        this.items.delete(other.id);
    }
  }

  siteOfDrive(driveId: string): StandInSite | undefined {
    return this.sites.find((site) => site.driveId === driveId);
  }

  webUrlOf(item: StandInItem): string {
    const site = this.siteOfDrive(item.driveId);
    const encoded = item.path.split('/').map(encodeURIComponent).join('/');
    return `${this.baseUrl}${site?.path ?? ''}/Shared%20Documents${encoded === '/' ? '' : encoded}`;
  }

  /** The item as Graph represents it. */
  representation(item: StandInItem): Record<string, unknown> {
    const name = item.path === '/' ? 'root' : item.path.slice(item.path.lastIndexOf('/') + 1);
    const extension = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
    return {
      id: item.id,
      name,
      eTag: `"{${item.id}},${item.version}"`,
      cTag: `"c:{${item.id}},${item.version}"`,
      size: item.folder ? 0 : item.bytes.length,
      lastModifiedDateTime: item.lastModified.toISOString(),
      webUrl: this.webUrlOf(item),
      parentReference: { driveId: item.driveId },
      ...(item.folder
        ? {
            folder: {
              childCount: [...this.items.values()].filter(
                (other) => other.driveId === item.driveId && other.path.startsWith(`${item.path}/`),
              ).length,
            },
          }
        : {
            file: { mimeType: MIME_BY_EXTENSION[extension] ?? 'application/octet-stream' },
            '@microsoft.graph.downloadUrl': `${this.baseUrl}/download/${item.id}?token=${item.downloadToken}`,
          }),
    };
  }

  /** A directory user the tenant knows (a member, or a guest invited earlier). */
  addUser(email: string, userType: 'Member' | 'Guest' = 'Member', hiddenForLookups = 0): StandInUser {
    const user: StandInUser = { id: randomUUID(), email, userType, hiddenForLookups };
    this.users.push(user);
    return user;
  }

  /** Looking a user up is what makes a propagating guest appear, one look-up at a time. */
  lookUp(email: string): StandInUser | undefined {
    const user = this.users.find((candidate) => candidate.email.toLowerCase() === email.toLowerCase());
    if (user === undefined) return undefined;
    if (user.hiddenForLookups > 0) {
      user.hiddenForLookups -= 1;
      return undefined;
    }
    return user;
  }

  /** Whether SharePoint could resolve this person for a grant now (no propagation side effect). */
  resolvable(email: string): boolean {
    return this.users.some((user) => user.email.toLowerCase() === email.toLowerCase() && user.hiddenForLookups === 0);
  }

  grant(item: StandInItem, email: string, roles: string[], requireSignIn: boolean, sendInvitation: boolean): StandInPermission {
    const existing = this.permissions.find((permission) => permission.itemId === item.id && permission.email === email);
    if (existing !== undefined) {
      existing.roles = [...new Set([...existing.roles, ...roles])];
      return existing;
    }
    const permission: StandInPermission = {
      id: randomUUID(),
      itemId: item.id,
      itemPath: item.path,
      roles,
      email,
      requireSignIn,
      sendInvitation,
    };
    this.permissions.push(permission);
    return permission;
  }

  /** The app's sharing link of this type and scope: the existing one when there is one. */
  link(item: StandInItem, type: string, scope: string): { permission: StandInPermission; created: boolean } {
    const existing = this.permissions.find(
      (permission) => permission.itemId === item.id && permission.link?.type === type && permission.link.scope === scope,
    );
    if (existing !== undefined) return { permission: existing, created: false };
    const permission: StandInPermission = {
      id: randomUUID(),
      itemId: item.id,
      itemPath: item.path,
      roles: [type === 'edit' ? 'write' : 'read'],
      link: { type, scope, webUrl: `${this.baseUrl}/:w:/s/anonymous/${randomUUID()}` },
    };
    this.permissions.push(permission);
    return { permission, created: true };
  }
}
