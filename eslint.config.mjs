import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.careen/**',
      // made by openapi-typescript from the services' documents (npm run api-client)
      'libs/api-client/src/generated/**',
      '.nx/**',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          banTransitiveDependencies: false,
          depConstraints: [
            // contracts and policy are pure: nothing of ours.
            { sourceTag: 'type:pure', onlyDependOnLibsWithTags: [] },
            // libs never import apps; only the test harness may be imported by tests of libs.
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib', 'type:app'] },
            // a service reaches another only over HTTP or the bus, never by import.
            { sourceTag: 'scope:exchange', onlyDependOnLibsWithTags: ['scope:shared', 'scope:exchange'] },
            { sourceTag: 'scope:agbot', onlyDependOnLibsWithTags: ['scope:shared', 'scope:agbot'] },
            {
              sourceTag: 'scope:maintenance-session',
              onlyDependOnLibsWithTags: ['scope:shared', 'scope:maintenance-session'],
            },
            {
              sourceTag: 'scope:deployment-orchestrator',
              onlyDependOnLibsWithTags: ['scope:shared', 'scope:deployment-orchestrator'],
            },
            { sourceTag: 'scope:notifier', onlyDependOnLibsWithTags: ['scope:shared', 'scope:notifier'] },
            { sourceTag: 'scope:agent', onlyDependOnLibsWithTags: ['scope:shared', 'scope:agent'] },
            { sourceTag: 'scope:cli', onlyDependOnLibsWithTags: ['scope:shared', 'scope:cli'] },
            { sourceTag: 'scope:console', onlyDependOnLibsWithTags: ['scope:shared', 'scope:console'] },
            {
              sourceTag: 'scope:vnf-manager',
              onlyDependOnLibsWithTags: ['scope:shared', 'scope:vnf-manager'],
            },
            {
              sourceTag: 'scope:shared',
              onlyDependOnLibsWithTags: [
                'scope:shared',
                'scope:exchange',
                'scope:agbot',
                'scope:maintenance-session',
                'scope:deployment-orchestrator',
                'scope:notifier',
                'scope:agent',
                'scope:cli',
                'scope:vnf-manager',
                'scope:console',
              ],
            },
          ],
        },
      ],
    },
  },
  {
    // The web console: React's rules of hooks, and its effects' dependencies.
    files: ['apps/console/web/**/*.ts', 'apps/console/web/**/*.tsx'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  {
    // Production lib code never imports the test harness; its specs may.
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts', 'libs/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: '@careen/testing', message: 'The test harness is for tests only.' }] },
      ],
    },
  },
);
