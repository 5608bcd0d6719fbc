import { resolve } from 'node:path';

/** The repository root; this folder is tools/launcher/src. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
