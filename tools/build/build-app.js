#!/usr/bin/env node
/**
 * Compiles one app of the monorepo to JavaScript for the container image:
 *   node tools/build/build-app.js <app> [--out <folder>]
 * writes dist/<app>/ (or <folder>/<app>/): the app's sources and the libraries' (tests left out) compiled by swc with
 * the same settings the sources run with (.swcrc: decorator metadata for NestJS), the
 * `@careen/*` imports rewritten to relative paths, the package.json files they read, and
 * dist/<app>/main.js, which runs the app: `node dist/<app>/main.js [args…]`. The app
 * `nats-auth` is the deployment's bus-authorization tool (`npm run nats-auth`), which the
 * compose file runs from the image.
 * Plain CommonJS with nothing but Node and @swc/core; the Nx `build` target of each app runs it.
 */
'use strict';

const { transformFileSync } = require('@swc/core');
const {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');

const REPO_ROOT = resolve(__dirname, '..', '..');
/** Libraries no app runs: the test harness and the local stack's process management. */
const NOT_SHIPPED = new Set(['testing', 'devstack']);
/** Apps that are not under apps/: their entry module, whose `main(argv)` answers the exit code, and the libraries they need besides. */
const TOOLS = {
  'nats-auth': { entry: 'tools/launcher/src/nats-auth.ts', libs: ['devstack'] },
};
const TEST_FILE = /\.(spec|int-spec|e2e-spec)\.ts$|\.fixtures?\.ts$|\.d\.ts$/;

function sourcesUnder(folder) {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !TEST_FILE.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .filter((file) => !file.split('/').includes('testing'));
}

/** What to compile for `app` and how its main.js starts it. */
function plan(app) {
  const shipped = readdirSync(join(REPO_ROOT, 'libs')).filter((lib) => !NOT_SHIPPED.has(lib));
  const tool = TOOLS[app];
  if (tool) {
    const libs = [...shipped, ...tool.libs];
    return {
      sources: [
        [join(REPO_ROOT, tool.entry)],
        ...libs.map((lib) => sourcesUnder(join(REPO_ROOT, 'libs', lib, 'src'))),
      ].flat(),
      packages: libs.map((lib) => join('libs', lib, 'package.json')),
      start: `require('./${tool.entry.replace(/\.ts$/, '.js')}')\n  .main(process.argv.slice(2))\n  .then((code) => process.exit(code));`,
    };
  }
  const appRoot = join(REPO_ROOT, 'apps', app);
  if (!existsSync(join(appRoot, 'src', 'main.ts'))) {
    process.stderr.write(
      `unknown app "${app}": no apps/${app}/src/main.ts, and not one of ${Object.keys(TOOLS).join(', ')}\n`,
    );
    process.exit(2);
  }
  return {
    sources: [join(appRoot, 'src'), ...shipped.map((lib) => join(REPO_ROOT, 'libs', lib, 'src'))].flatMap(
      sourcesUnder,
    ),
    packages: [join('apps', app, 'package.json'), ...shipped.map((lib) => join('libs', lib, 'package.json'))],
    start: `require('./apps/${app}/src/main.js');`,
  };
}

function build(app, outRoot) {
  const { sources: files, packages, start } = plan(app);
  const out = join(outRoot, app);
  rmSync(out, { recursive: true, force: true });
  const swcrc = JSON.parse(readFileSync(join(REPO_ROOT, '.swcrc'), 'utf8'));
  const { paths } = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.base.json'), 'utf8')).compilerOptions;
  for (const file of files) {
    const target = join(out, relative(REPO_ROOT, file)).replace(/\.ts$/, '.js');
    const { code, map } = transformFileSync(file, {
      ...swcrc,
      swcrc: false,
      sourceMaps: true,
      jsc: { ...swcrc.jsc, baseUrl: REPO_ROOT, paths },
      outputPath: target,
    });
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${code}\n//# sourceMappingURL=${target.split('/').pop()}.map\n`);
    if (map) writeFileSync(`${target}.map`, map);
  }
  for (const file of packages)
    if (existsSync(join(REPO_ROOT, file))) cpSync(join(REPO_ROOT, file), join(out, file));
  writeFileSync(
    join(out, 'main.js'),
    `'use strict';\n// Runs the compiled ${app}: node dist/${app}/main.js [args…]\n${start}\n`,
  );
  const shown = relative(process.cwd(), out);
  process.stdout.write(`${shown.startsWith('..') ? out : shown}: ${files.length} files compiled\n`);
}

const [app, flag, folder, ...rest] = process.argv.slice(2);
if (!app || (flag !== undefined && (flag !== '--out' || !folder)) || rest.length > 0) {
  process.stderr.write('usage: node tools/build/build-app.js <app> [--out <folder>]\n');
  process.exit(2);
}
build(app, folder ? resolve(folder) : join(REPO_ROOT, 'dist'));
