/**
 * A real Chromium for the console's browser tests: the binary CAREEN_CHROMIUM_BIN names (npm
 * test finds Debian's package, installing it when missing), else where Debian's package puts
 * it; driven by Playwright without any browser download.
 */
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
  return chromium.launch({
    executablePath: process.env.CAREEN_CHROMIUM_BIN || '/usr/bin/chromium',
    headless: true,
    args: QUIET_FLAGS,
  });
}
