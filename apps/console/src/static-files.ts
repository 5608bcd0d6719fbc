/**
 * The built single-page app, served as files: a path names a file under the root or, when it
 * names none, the app's index.html, so that the app's own paths (`/nodes/edge-1`) load it too.
 * Nothing outside the root is ever read.
 */
import { createReadStream, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * What the browser may do with the app's pages: scripts, styles and connections of this origin
 * only (the APIs are under it), no framing, no plugins.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

export class ConsoleNotBuiltError extends Error {
  constructor(root: string) {
    super(`the console's files are not built: no index.html in ${root} (npm run build builds them)`);
    this.name = 'ConsoleNotBuiltError';
  }
}

export class StaticFiles {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
    if (fileSize(this.index()) === undefined) throw new ConsoleNotBuiltError(this.root);
  }

  serve(request: IncomingMessage, response: ServerResponse, pathname: string): void {
    const file = this.fileFor(pathname);
    const hashed = file.path.startsWith(join(this.root, 'assets') + sep);
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': CONTENT_TYPES[extname(file.path)] ?? 'application/octet-stream',
      'content-length': file.size,
      // Built assets carry their content's hash in their names; the page itself must be asked for again.
      'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    createReadStream(file.path)
      .on('error', (error) => response.destroy(error))
      .pipe(response);
  }

  /** The file a path names under the root, else the app's page; with its size, from one stat. */
  private fileFor(pathname: string): { path: string; size: number } {
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      decoded = undefined;
    }
    if (decoded !== undefined && !decoded.includes('\0')) {
      const candidate = resolve(this.root, '.' + normalize('/' + decoded));
      const size = candidate.startsWith(this.root + sep) ? fileSize(candidate) : undefined;
      if (size !== undefined) return { path: candidate, size };
    }
    const index = this.index();
    return { path: index, size: fileSize(index) ?? 0 };
  }

  private index(): string {
    return join(this.root, 'index.html');
  }
}

/** The size of a regular file, or undefined when there is none. */
function fileSize(path: string): number | undefined {
  try {
    const stat = statSync(path);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}
