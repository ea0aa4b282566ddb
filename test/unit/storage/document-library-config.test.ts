import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '#shared/config.ts';
import { isOfficeEditable } from '#shared/storage/document-library/office-types.ts';
import { sharePointSitePath } from '#shared/storage/document-library/library-locator.ts';

const complete = {
  GRAPH_TENANT_ID: 'contoso-tenant',
  GRAPH_CLIENT_ID: 'client',
  GRAPH_CLIENT_SECRET: 'secret',
  GRAPH_SITE_HOSTNAME: 'contoso.sharepoint.com',
};

function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n');
    throw error;
  }
  throw new Error('configuration was accepted');
}

describe('document-library configuration', () => {
  it('leaves the document library unconfigured when no Graph variable is set', () => {
    expect(loadConfig({}).documentLibrary).toBeUndefined();
  });

  it('applies the defaults and derives the token URL from the tenant id', () => {
    const config = loadConfig({ ...complete, CONSOLE_URL: 'https://console.example.test' });

    expect(config.documentLibrary).toEqual({
      apiUrl: 'https://graph.microsoft.com/v1.0',
      tokenUrl: 'https://login.microsoftonline.com/contoso-tenant/oauth2/v2.0/token',
      clientId: 'client',
      clientSecret: { value: 'secret', secretArn: undefined },
      siteHostname: 'contoso.sharepoint.com',
      sitePathTemplate: '/sites/tessera-{site}',
      guestWaitMs: 8000,
      guestPollMs: 1000,
      requestTimeoutMs: 15000,
      inviteRedirectUrl: 'https://console.example.test',
    });
  });

  it('names what is missing from a partial configuration', () => {
    const problems = problemsOf({ GRAPH_CLIENT_ID: 'client' });

    expect(problems).toContain('GRAPH_CLIENT_SECRET or GRAPH_CLIENT_SECRET_ARN');
    expect(problems).toContain('GRAPH_TENANT_ID or GRAPH_TOKEN_URL');
    expect(problems).toContain('GRAPH_SITE_HOSTNAME');
  });

  it('refuses a site path rule without the {site} placeholder', () => {
    expect(problemsOf({ ...complete, GRAPH_SITE_PATH: '/sites/shared' })).toContain('GRAPH_SITE_PATH');
  });

  it('builds the SharePoint site path of a site slug, percent-encoded', () => {
    expect(sharePointSitePath('/sites/tessera-{site}', 'acme-2')).toBe('/sites/tessera-acme-2');
    expect(sharePointSitePath('/teams/{site} docs', 'acme')).toBe('/teams/acme%20docs');
  });
});

describe('Office-editable MIME types', () => {
  it('admits word processing, spreadsheet and presentation documents, new and legacy', () => {
    const editable = [
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/msword',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.ms-excel',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      'APPLICATION/VND.MS-POWERPOINT; charset=binary',
    ];
    expect(editable.filter((type) => !isOfficeEditable(type))).toEqual([]);
  });

  it('refuses everything else', () => {
    const other = ['application/pdf', 'text/plain', 'image/png', 'application/vnd.oasis.opendocument.text', 'application/zip', ''];
    expect(other.filter((type) => isOfficeEditable(type))).toEqual([]);
  });
});
