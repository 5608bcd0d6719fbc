/**
 * A real Chromium for the console's browser tests: Debian's package (which `npm test`
 * installs when it is missing), or the binary CAREEN_CHROMIUM_BIN names, driven by Playwright
 * without any browser download.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Without these, a headless Chromium reaches out to Google's hosts, which a closed network refuses. */
const QUIET_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CAREEN_CHROMIUM_BIN || chromiumOnPath();
  if (!executablePath)
    throw new Error(
      "no Chromium: install Debian's chromium package (npm test does) or set CAREEN_CHROMIUM_BIN",
    );
  return chromium.launch({ executablePath, headless: true, args: QUIET_FLAGS });
}

function chromiumOnPath(): string | undefined {
  const folders = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin'].filter(Boolean);
  return folders
    .map((folder) => join(folder, 'chromium'))
    .find((candidate) => {
      try {
        accessSync(candidate, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}
