/**
 * One jest run for the whole workspace: unit specs (*.spec.ts), integration specs against real
 * Postgres and NATS (*.int-spec.ts) and black-box platform tests (test-e2e/*.e2e-spec.ts).
 * The web console's browser tests (test-e2e/*.browser-spec.ts) and the contract check run as
 * steps of their own (`--testMatch`, see tools/launcher/src/test.ts).
 * The global setup starts one ephemeral Postgres for the run (unless CAREEN_DATABASE_URL is set);
 * each test file gets its own database and its own JetStream-enabled nats-server.
 */
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias.replace('/', '\\/')}$`,
    `<rootDir>/${target}`,
  ]),
);

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test-e2e'],
  testMatch: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest'],
    // openid-client and its own dependencies are published as ES modules only, which Node loads
    // with require() but Jest's module system does not: Jest gets them compiled to CommonJS.
    '^.+/node_modules/(openid-client|oauth4webapi|openid-client/node_modules/jose)/.+\\.js$': [
      '@swc/jest',
      { module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [
    '^(?!.*/openid-client/node_modules/jose/).*/node_modules/(?!(openid-client|oauth4webapi)/)',
  ],
  moduleNameMapper,
  globalSetup: '<rootDir>/libs/testing/src/jest/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/jest/global-teardown.ts',
  testTimeout: 60000,
  // Two files at a time, even on two cores: most of a file's time is spent waiting on its
  // services, its agents and their timers, not computing. Each file has its own database,
  // nats-server and ports, so files never share state — except on one given nats-server
  // (CAREEN_NATS_URL), whose streams each file clears: then one file at a time.
  maxWorkers: process.env.CAREEN_NATS_URL ? 1 : 2,
  // In one process, what each file's modules leave behind adds up past Node's heap over some
  // 180 files. A worker that has grown past this after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1.5GB',
  slowTestThreshold: 20,
};
