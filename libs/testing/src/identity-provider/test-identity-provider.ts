/**
 * The harness's OpenID provider: identity-provider.main.ts started as a process of its own on a
 * free port, with the clients a test registers, and its directory of accounts and groups edited
 * by the test. `signIn` walks its pages as a person with no browser would, following redirects
 * with cookies and submitting each form (a device code's confirmation, the sign-in form).
 */
import { freePort } from '@careen/devstack';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { eventually } from '../eventually';

export interface TestIdentityProvider {
  /** The issuer, as clients discover it. */
  issuer: string;
  /** Puts an account in the directory with these groups (replacing what it had). */
  setGroups(account: string, groups: string[]): Promise<void>;
  removeAccount(account: string): Promise<void>;
  /**
   * Opens `url` (an authorization URL, or a device code's verification URL) and signs in as
   * `account`, submitting every form on the way; answers the last URL reached, which is the
   * client's redirect with the code for the authorization code flow.
   */
  signIn(url: string, account: string): Promise<string>;
  close(): Promise<void>;
}

export interface TestClient {
  client_id: string;
  redirect_uris?: string[];
}

const main = resolve(__dirname, 'identity-provider.main.ts');

/** Public clients allowed the code, refresh and device grants. */
export async function startTestIdentityProvider(clients: TestClient[]): Promise<TestIdentityProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const metadata = clients.map((client) => ({
    token_endpoint_auth_method: 'none',
    // The provider wants one even for a client that only uses the device grant.
    redirect_uris: ['http://127.0.0.1:9/unused'],
    response_types: ['code'],
    grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    ...client,
  }));
  let printed = '';
  const child: ChildProcess = spawn(process.execPath, ['-r', '@swc-node/register', main], {
    cwd: resolve(__dirname, '..', '..', '..', '..'),
    env: { PATH: process.env.PATH ?? '', IDP_PORT: String(port), IDP_CLIENTS: JSON.stringify(metadata) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  try {
    await eventually(
      async () => expect((await fetch(`${issuer}/.well-known/openid-configuration`)).status).toBe(200),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`the test identity provider did not start: ${String(error)}\n${printed}`);
  }
  const directory = async (account: string, init: RequestInit) => {
    const answer = await fetch(`${issuer}/test/accounts/${encodeURIComponent(account)}`, init);
    if (answer.status !== 204) throw new Error(`the identity provider's directory answered ${answer.status}`);
  };
  return {
    issuer,
    setGroups: (account, groups) => directory(account, { method: 'PUT', body: JSON.stringify({ groups }) }),
    removeAccount: (account) => directory(account, { method: 'DELETE' }),
    signIn: (url, account) => new FormWalker(issuer).walk(url, account),
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A cookie jar and a form filler for the provider's own pages. */
class FormWalker {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly issuer: string) {}

  async walk(start: string, account: string): Promise<string> {
    let url = start;
    let init: RequestInit = {};
    for (let step = 0; step < 20; step += 1) {
      if (!url.startsWith(this.issuer)) return url;
      const answer = await fetch(url, {
        ...init,
        redirect: 'manual',
        headers: { ...init.headers, cookie: this.cookie() },
      });
      this.keepCookies(answer);
      const location = answer.headers.get('location');
      if (location) {
        url = new URL(location, url).toString();
        init = {};
        continue;
      }
      const page = await answer.text();
      const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page);
      if (!form) return url;
      const fields = new URLSearchParams();
      for (const input of form[2]!.matchAll(/<input([^>]*)>/g)) {
        const name = /name="([^"]+)"/.exec(input[1]!)?.[1];
        if (!name) continue;
        fields.set(name, name === 'login' ? account : (/value="([^"]*)"/.exec(input[1]!)?.[1] ?? ''));
      }
      url = new URL(form[1]!.replace(/&amp;/g, '&'), url).toString();
      init = {
        method: 'POST',
        body: fields.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      };
    }
    throw new Error(`signing in at ${start} took more than 20 pages`);
  }

  private cookie(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keepCookies(answer: Response): void {
    for (const header of answer.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }
}
