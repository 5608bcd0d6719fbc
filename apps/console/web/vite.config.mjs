/**
 * Builds the console into static files (`index.html`, hashed `assets/`) that the console
 * server, or any static host under the same origin as the APIs, serves. The output folder is
 * dist/console/public unless `--outDir` says otherwise.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: {
    outDir: fileURLToPath(new URL('../../../dist/console/public', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
  },
});
